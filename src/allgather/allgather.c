/*
 * ftc_allgather: checks the arguments, picks the algorithm for the live
 * ranks, plans it (once per communicator and epoch), places this rank's
 * block and runs the plan; after a failure, ft_allgather.c ends the call
 * over the survivors.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../allreduce/ft_engine.h"
#include "../args.h"
#include "../buffer.h"
#include "../comm.h"
#include "../ft/ft.h"
#include "../error.h"
#include "../guard/guard.h"
#include "../module.h"
#include "../p2p.h"
#include "algorithms.h"
#include "ft_allgather.h"
#include "state.h"

/* ---- names ------------------------------------------------------------- */

const char *ftc_allgather_algorithm_name(ftc_allgather_algorithm algorithm)
{
    if (algorithm == FTC_ALLGATHER_AUTO)
        return "auto";
    const ftc_allgather_info *info = ftc_allgather_info_of(algorithm);
    return info ? info->name : NULL;
}

/* Accepted spellings besides the canonical names. */
static const struct { const char *alias; ftc_allgather_algorithm id; } aliases[] = {
    { "ignore", FTC_ALLGATHER_AUTO },        /* Open MPI's name for 0: its settings work */
    { "neighbor", FTC_ALLGATHER_NEIGHBOR_EXCHANGE },
    { "two_procs", FTC_ALLGATHER_TWO_PROC },
};

/* A number is plain decimal digits: no sign, no spaces. */
static bool parse_number(const char *text, ftc_allgather_algorithm *out)
{
    long value = 0;
    for (const char *c = text; *c; c++) {
        if (*c < '0' || *c > '9' || value >= FTC_ALLGATHER_ALGORITHM_COUNT)
            return false;
        value = value * 10 + (*c - '0');
    }
    if (*text == '\0' || value >= FTC_ALLGATHER_ALGORITHM_COUNT)
        return false;
    *out = (ftc_allgather_algorithm)value;
    return true;
}

int ftc_allgather_algorithm_parse(const char *text, ftc_allgather_algorithm *out)
{
    ftc_clear_error();
    if (!text || !out)
        return ftc_fail(MPI_ERR_ARG, "ftc_allgather_algorithm_parse: NULL argument");
    if (parse_number(text, out))
        return MPI_SUCCESS;
    for (int id = 0; id < FTC_ALLGATHER_ALGORITHM_COUNT; id++) {
        if (strcmp(text, ftc_allgather_algorithm_name((ftc_allgather_algorithm)id)) == 0) {
            *out = (ftc_allgather_algorithm)id;
            return MPI_SUCCESS;
        }
    }
    for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++) {
        if (strcmp(text, aliases[i].alias) == 0) {
            *out = aliases[i].id;
            return MPI_SUCCESS;
        }
    }
    char valid[256] = "";
    for (int id = 0; id < FTC_ALLGATHER_ALGORITHM_COUNT; id++) {
        size_t used = strlen(valid);
        snprintf(valid + used, sizeof(valid) - used, "%s%s (%d)", id ? ", " : "",
                 ftc_allgather_algorithm_name((ftc_allgather_algorithm)id), id);
    }
    return ftc_fail(MPI_ERR_ARG, "unknown allgather algorithm \"%s\"; valid: %s", text, valid);
}

/* ---- the module (module.h) ---------------------------------------------------- */

static int allgather_create(ftc_comm_t comm)
{
    comm->allgather = calloc(1, sizeof(*comm->allgather));
    if (!comm->allgather)
        return ftc_fail(MPI_ERR_NO_MEM, "ftc_comm_create: out of memory");
    comm->allgather->forced = FTC_ALLGATHER_AUTO;
    comm->allgather->known.type = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

/* FTCOLL_ALLGATHER_ALGORITHM: a name or number forces the algorithm. */
static int allgather_read_settings(ftc_comm_t comm)
{
    const char *text = getenv("FTCOLL_ALLGATHER_ALGORITHM");
    if (!text || !*text)
        return MPI_SUCCESS;
    int rc = ftc_allgather_algorithm_parse(text, &comm->allgather->forced);
    if (rc != MPI_SUCCESS) {
        char why[400];
        snprintf(why, sizeof(why), "%s", ftc_error_message());
        return ftc_fail(rc, "FTCOLL_ALLGATHER_ALGORITHM: %s", why);
    }
    return MPI_SUCCESS;
}

static const char *algorithm_name(int algorithm)
{
    return ftc_allgather_algorithm_name((ftc_allgather_algorithm)algorithm);
}

/* Ranks running different schedules would wait for each other forever. */
static int allgather_agreed(ftc_comm_t comm, ftc_equal_value *values)
{
    values[0] = (ftc_equal_value){ "FTCOLL_ALLGATHER_ALGORITHM", (int)comm->allgather->forced,
                                   algorithm_name };
    return 1;
}

static void allgather_release(ftc_comm_t comm)
{
    if (!comm->allgather)
        return;
    ftc_allgather_plans_free(&comm->allgather->plans);
    ftc_allgather_scratch_free(&comm->allgather->scratch);
    free(comm->allgather);
    comm->allgather = NULL;
}

const ftc_module ftc_allgather_module = {
    .name = "allgather",
    .create = allgather_create,
    .read_settings = allgather_read_settings,
    .agreed = allgather_agreed,
    .release = allgather_release,
};

/* ---- public calls --------------------------------------------------------------- */

int ftc_allgather_set_algorithm(ftc_comm_t comm, ftc_allgather_algorithm algorithm)
{
    ftc_clear_error();
    if (!comm)
        return ftc_fail(MPI_ERR_COMM, "ftc_allgather_set_algorithm: the communicator is NULL");
    if (!ftc_allgather_algorithm_name(algorithm))
        return ftc_fail(MPI_ERR_ARG, "ftc_allgather_set_algorithm: no algorithm number %d (0..%d)",
                        (int)algorithm, FTC_ALLGATHER_ALGORITHM_COUNT - 1);
    comm->allgather->forced = algorithm;
    return MPI_SUCCESS;
}

int ftc_allgather_last_choice(ftc_comm_t comm, ftc_allgather_choice *out)
{
    ftc_clear_error();
    const int rc = ftc_check_query("ftc_allgather_last_choice", comm, out, "the output");
    if (rc != MPI_SUCCESS)
        return rc;
    *out = comm->allgather->last;
    return MPI_SUCCESS;
}

/* ---- argument checks --------------------------------------------------- */

/* One side of the call (send or receive): buffer, count, type. */
typedef struct {
    const void *buf;
    int count;
    MPI_Datatype type;
    const ftc_buffer_names *names;
    int type_size;
    bool contiguous;
    MPI_Aint extent;
} side;

static const ftc_buffer_names send_names = { "ftc_allgather", "sendbuf", "sendcount", "sendtype" };
static const ftc_buffer_names recv_names = { "ftc_allgather", "recvbuf", "recvcount", "recvtype" };

static int check_side(side *s, MPI_Comm comm, ftc_known_type *known)
{
    ftc_type_shape shape = { 0, 0, false };
    const int rc = ftc_check_buffer_shape(s->names, s->buf, s->count, s->type, comm, known,
                                          &shape);
    s->type_size = shape.size;
    s->contiguous = shape.contiguous;
    s->extent = shape.extent;
    return rc;
}

static int check_arguments(side *send, side *recv, bool in_place, ftc_comm_t comm)
{
    int rc = ftc_check_comm("ftc_allgather", comm);
    if (rc == MPI_SUCCESS)
        rc = check_side(recv, comm->comm, &comm->allgather->known);
    if (rc == MPI_SUCCESS && !in_place)
        rc = check_side(send, comm->comm, &comm->allgather->known);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!in_place && (long long)send->count * send->type_size
                         != (long long)recv->count * recv->type_size)
        return ftc_fail(MPI_ERR_ARG, "ftc_allgather: sendcount x size(sendtype) = %lld bytes "
                        "differs from recvcount x size(recvtype) = %lld bytes",
                        (long long)send->count * send->type_size,
                        (long long)recv->count * recv->type_size);
    if ((long long)recv->count * comm->size > INT_MAX)
        return ftc_fail(MPI_ERR_COUNT, "ftc_allgather: recvcount x p = %lld exceeds INT_MAX",
                        (long long)recv->count * comm->size);
    return ftc_allgather_check_total("ftc_allgather", comm->size,
                                     (long long)recv->count * recv->type_size * comm->size);
}

/* ---- choice and plan --------------------------------------------------- */

/* The call's choice, written where ftc_allgather_last_choice reads it (no
 * copy of its reason on every call), and logged when it changed. */
static ftc_allgather_algorithm choose(ftc_comm_t comm, int n, size_t block_bytes)
{
    ftc_allgather_choice *choice = &comm->allgather->last;
    const ftc_allgather_algorithm selected_before = choice->selected,
                                  executed_before = choice->executed;
    choice->requested = comm->allgather->forced;
    choice->selected = choice->requested == FTC_ALLGATHER_AUTO
        ? ftc_allgather_decide(n, block_bytes) : choice->requested;
    choice->executed = ftc_allgather_resolve(choice->selected, n, block_bytes,
                                             choice->reason, sizeof(choice->reason));
    if (comm->verbose && comm->rank == 0
        && (choice->selected != selected_before || choice->executed != executed_before))
        fprintf(stderr, "ftcoll: allgather on %d ranks: %s%s%s%s\n", n,
                ftc_allgather_algorithm_name(choice->executed),
                choice->requested == FTC_ALLGATHER_AUTO ? " (decision table)" : " (forced)",
                choice->reason[0] ? " — " : "", choice->reason);
    return choice->executed;
}

/* The call's description for the family's run (ft_allgather.h). */
static ftc_allgather_call describe(ftc_comm_t comm, const char *name, const side *send,
                                   const side *recv, bool in_place)
{
    char *recvbuf = (char *)recv->buf;
    const MPI_Aint stride = recv->extent * recv->count;
    ftc_allgather_call a = {
        .comm = comm, .name = name, .scratch = &comm->allgather->scratch,
        .in_place = in_place,
        .send = in_place ? recvbuf + (MPI_Aint)comm->rank * stride : send->buf,
        .send_count = in_place ? recv->count : send->count,
        .send_type = in_place ? recv->type : send->type,
        .send_contiguous = in_place ? recv->contiguous : send->contiguous,
        .recv = recvbuf, .count = recv->count, .type = recv->type,
        .contiguous = recv->contiguous, .type_size = recv->type_size, .extent = recv->extent,
        .stride = stride,
        .all_bytes = (size_t)recv->count * (size_t)recv->type_size * (size_t)comm->size,
    };
    return a;
}

/* The whole call after the checks. */
static int allgather_checked(ftc_comm_t comm, const char *name, const side *send,
                             const side *recv, bool in_place)
{
    ftc_allgather_call a = describe(comm, name, send, recv, in_place);
    a.number = ftc_ft_begin_call(comm->ft);
    const int n = ftc_ft_live_count(comm->ft), me = ftc_ft_live_index(comm->ft);
    const ftc_allgather_algorithm executed = choose(comm, n, (size_t)recv->count
                                                                 * (size_t)recv->type_size);
    const ftc_schedule *plan = NULL;
    const int rc = ftc_allgather_plan_for(&comm->allgather->plans, executed, me, n, &plan);
    if (rc != MPI_SUCCESS)
        return rc;
    return ftc_allgather_run(&a, plan, ftc_allgather_algorithm_name(executed),
                             comm->allgather->plans.own_block_alone[executed]);
}

int ftc_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, ftc_comm_t comm)
{
    ftc_clear_error();
    const bool in_place = sendbuf == MPI_IN_PLACE;
    side send = { sendbuf, sendcount, sendtype, &send_names, 0, false, 0 };
    side recv = { recvbuf, recvcount, recvtype, &recv_names, 0, false, 0 };
    int rc = check_arguments(&send, &recv, in_place, comm);
    if (comm) {   /* guarded: bad arguments here stop every rank cleanly */
        const ftc_guard_args same =
            ftc_guard_args_of(-1, (long long)recv.count * recv.type_size);
        rc = ftc_guard_enter(comm, FTC_GUARDED_ALLGATHER, rc, &same);
    }
    if (rc == MPI_SUCCESS)
        rc = allgather_checked(comm, "ftc_allgather", &send, &recv, in_place);
    if (comm)
        ftc_guard_leave(comm);   /* disarms the watchdog if the guard let the call in */
    return rc;
}
