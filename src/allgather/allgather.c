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

/* Whether a failure can be survived (ULFM), so that the call ends it. */
#ifdef FTCOLL_HAVE_ULFM
enum { FTC_ALLGATHER_SURVIVES = 1 };
#else
enum { FTC_ALLGATHER_SURVIVES = 0 };
#endif

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
    for (int i = 0; i < FTC_ALLGATHER_ALGORITHM_COUNT; i++) {
        if (comm->allgather->plans[i]) {
            ftc_schedule_destroy(comm->allgather->plans[i]);
            free(comm->allgather->plans[i]);
        }
    }
    free(comm->allgather->gathered);
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
    const long long all_bytes = (long long)recv->count * recv->type_size * comm->size;
    if (FTC_ALLGATHER_SURVIVES && all_bytes > FTC_ALLGATHER_MAX_BYTES)
        return ftc_fail(MPI_ERR_COUNT, "ftc_allgather: the %d blocks come to %lld bytes; the "
                        "recovery after a failure carries at most %d", comm->size, all_bytes,
                        FTC_ALLGATHER_MAX_BYTES);
    return MPI_SUCCESS;
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

/* The plan of `alg` for live rank `me` of n: the one built before, unless
 * ranks died since. */
static int plan_for(ftc_comm_t comm, ftc_allgather_algorithm alg, int me, int n,
                    const ftc_schedule **out)
{
    ftc_schedule *plan = comm->allgather->plans[alg];
    if (plan && (plan->rank != me || plan->size != n)) {
        ftc_schedule_destroy(plan);
        free(plan);
        comm->allgather->plans[alg] = plan = NULL;
    }
    if (!plan) {
        plan = malloc(sizeof(*plan));
        if (!plan)
            return ftc_fail(MPI_ERR_NO_MEM, "ftc_allgather: out of memory planning");
        ftc_schedule_init(plan, me, n);
        if (!ftc_allgather_build_plan(alg, plan)) {
            ftc_schedule_destroy(plan);
            free(plan);
            return ftc_fail(MPI_ERR_NO_MEM, "ftc_allgather: out of memory planning %s",
                            ftc_allgather_algorithm_name(alg));
        }
        comm->allgather->plans[alg] = plan;
        comm->allgather->own_block_alone[alg] = ftc_schedule_sends_own_block_alone(plan);
    }
    *out = plan;
    return MPI_SUCCESS;
}

/* ---- the call ---------------------------------------------------------- */

/* Puts this rank's block where the plan expects it (slot own_slot). */
static int place_own_block(const ftc_schedule *plan, const side *send, bool in_place,
                           const ftc_slots *slots, MPI_Comm comm)
{
    char *target = ftc_slot(slots, plan->own_slot);
    if (in_place)
        return ftc_typed_copy(ftc_slot(slots, plan->rank), slots->count, slots->type,
                              slots->contiguous, target, slots->count, slots->type,
                              slots->contiguous, comm);
    return ftc_typed_copy(send->buf, send->count, send->type, send->contiguous, target,
                          slots->count, slots->type, slots->contiguous, comm);
}

/*
 * Places the own block and runs the plan over the epoch's communicator
 * with the call's tag (no message of another call can match). Where the
 * plan sends the own block only on its own (two-proc, ring), it goes out
 * straight from the send buffer and is placed after the run, as Open MPI
 * does: placing it first puts a copy of the whole block before the first
 * message, on every rank's critical path (at p = 2 and 1 MiB, half again
 * the call's time). *ran: the plan ran (every step, whatever their errors).
 */
static int gather_blocks(ftc_comm_t comm, long number, const ftc_schedule *plan,
                         const side *send, bool in_place, ftc_slots *slots,
                         ftc_allgather_algorithm algorithm, bool *ran)
{
    const bool own_block_after = !in_place && comm->allgather->own_block_alone[algorithm];
    const ftc_own_block own = { plan->own_slot, send->buf, send->count, send->type };
    slots->own = own_block_after ? &own : NULL;
    int rc = own_block_after ? MPI_SUCCESS
                             : place_own_block(plan, send, in_place, slots, comm->comm);
    ftc_allreduce_injection_point(comm, number, 0, FTC_INJECT_BEFORE_SEND, NULL);
    if (rc == MPI_SUCCESS) {
        rc = ftc_schedule_run(plan, slots, ftc_ft_epoch_comm(comm->ft),
                              ftc_ft_call_tag(comm->ft, number), &comm->exec,
                              ftc_allgather_algorithm_name(algorithm), ftc_ft_sentinel(comm->ft));
        *ran = rc != FTC_EXEC_INTERRUPTED;
    }
    slots->own = NULL;
    if (rc == MPI_SUCCESS)   /* every block arrived here; the others may still wait */
        ftc_allreduce_injection_point(comm, number, 1, FTC_INJECT_BEFORE_SEND, NULL);
    if (rc == MPI_SUCCESS && own_block_after)
        rc = place_own_block(plan, send, in_place, slots, comm->comm);
    return rc;
}

/* The attempt over the live ranks: every block in the user's buffer, the
 * dead ranks' slots as they were. `send` is in place only where the plan
 * gathers in the user's buffer. */
static int run_attempt(ftc_comm_t comm, const ftc_allgather_call *a, const ftc_schedule *plan,
                       const side *send, bool apart, ftc_allgather_algorithm algorithm,
                       bool *ran)
{
    ftc_slots slots;
    int rc = ftc_allgather_attempt_slots(a, apart, &slots);
    if (rc == MPI_SUCCESS && ftc_ft_failure_known(comm->ft))
        rc = FTC_EXEC_INTERRUPTED;
    if (rc == MPI_SUCCESS)
        rc = gather_blocks(comm, a->number, plan, send, a->in_place && !apart, &slots, algorithm,
                           ran);
    if (rc == MPI_SUCCESS && apart)
        rc = ftc_allgather_deliver(a, &slots, plan->rotation);
    return rc;
}

/* The send side as the attempt sees it: gathering apart from the user's
 * buffer, an in-place block is sent from this rank's slot there. */
static side attempt_send(const ftc_allgather_call *a, const side *send, const side *recv,
                         bool apart)
{
    if (!a->in_place || !apart)
        return *send;
    return (side){ a->send, recv->count, recv->type, &send_names, recv->type_size,
                   recv->contiguous };
}

/* The call's description for ft_allgather.c. */
static ftc_allgather_call describe(ftc_comm_t comm, const side *send, const side *recv,
                                   bool in_place)
{
    MPI_Aint lb = 0, extent = 0;
    MPI_Type_get_extent(recv->type, &lb, &extent);
    char *recvbuf = (char *)recv->buf;
    const MPI_Aint stride = extent * recv->count;
    ftc_allgather_call a = {
        .comm = comm, .in_place = in_place,
        .send = in_place ? recvbuf + (MPI_Aint)comm->rank * stride : send->buf,
        .send_count = in_place ? recv->count : send->count,
        .send_type = in_place ? recv->type : send->type,
        .send_contiguous = in_place ? recv->contiguous : send->contiguous,
        .recv = recvbuf, .count = recv->count, .type = recv->type,
        .contiguous = recv->contiguous, .stride = stride,
        .block_bytes = (size_t)recv->count * (size_t)recv->type_size,
    };
    return a;
}

/* A failure stopped the attempt or the confirmation: the survivors end the call. */
static bool interrupted(int rc)
{
    return FTC_ALLGATHER_SURVIVES
        && (rc == FTC_EXEC_INTERRUPTED || rc == FTC_DETECTED || ftc_ft_is_process_failure(rc));
}

/*
 * The whole call after the checks. Even an empty block runs the schedule
 * (of empty messages): returning at once would leave waiting any rank that
 * passed a larger block.
 */
static int allgather_checked(ftc_comm_t comm, const side *send, const side *recv,
                             bool in_place)
{
    ftc_allgather_call a = describe(comm, send, recv, in_place);
    a.number = ftc_ft_begin_call(comm->ft);
    const int n = ftc_ft_live_count(comm->ft), me = ftc_ft_live_index(comm->ft);
    const ftc_allgather_algorithm executed = choose(comm, n, a.block_bytes);
    const ftc_schedule *plan = NULL;
    int rc = plan_for(comm, executed, me, n, &plan);
    if (rc != MPI_SUCCESS)
        return rc;
    const bool apart = ftc_allgather_gathers_apart(&a, plan->rotation);
    const side attempt = attempt_send(&a, send, recv, apart);
    /* a rank others wait for in a meeting goes there first */
    bool plan_ran = false;
    rc = ftc_ft_owes_meeting(comm->ft)
        ? FTC_EXEC_INTERRUPTED : run_attempt(comm, &a, plan, &attempt, apart, executed, &plan_ran);
    const bool holds_every_block = rc == MPI_SUCCESS, confirms = ftc_allgather_confirms(&a);
    int confirmed = MPI_SUCCESS;
    /* after an error of its own in the plan (a block of the wrong size), a
     * rank still takes part, so that the others do not wait for its tokens
     * (ranks that passed blocks of sizes on both sides of the threshold
     * decide differently, and those that confirm wait) */
    if (confirms && plan_ran && !interrupted(rc))
        confirmed = ftc_allgather_confirm(&a);
    if (rc == MPI_SUCCESS)
        rc = confirmed;
    if (rc == MPI_SUCCESS)
        return ftc_allgather_complete(&a, confirms);
    if (interrupted(rc) || interrupted(confirmed)) {
        const int recovered = ftc_allgather_recover(&a, holds_every_block);
        return interrupted(rc) ? recovered : rc;
    }
    return rc;
}

int ftc_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, ftc_comm_t comm)
{
    ftc_clear_error();
    const bool in_place = sendbuf == MPI_IN_PLACE;
    side send = { sendbuf, sendcount, sendtype, &send_names, 0, false };
    side recv = { recvbuf, recvcount, recvtype, &recv_names, 0, false };
    int rc = check_arguments(&send, &recv, in_place, comm);
    if (comm)   /* guarded: bad arguments here stop every rank cleanly */
        rc = ftc_guard_enter(comm, FTC_GUARDED_ALLGATHER, rc);
    if (rc == MPI_SUCCESS)
        rc = allgather_checked(comm, &send, &recv, in_place);
    if (comm)
        ftc_guard_leave(comm);   /* disarms the watchdog if the guard let the call in */
    return rc;
}
