/*
 * ftc_allgatherv: checks the arguments, picks the algorithm for the live
 * ranks by Open MPI's allgatherv rules, and runs the allgather plan of that
 * name over blocks of their own counts and places (attempt.c); after a
 * failure, ft_allgather.c ends the call over the survivors.
 *
 *   recvbuf  [ block 2 ][ block 0 ]...[ block 1 ]   block r: recvcounts[r]
 *             ^ displs[2]  ^ displs[0]   ^ displs[1]   elements of recvtype
 *
 * Cost: the plan's over blocks of n = total / p bytes on average; a
 * transfer of several blocks that do not lie end to end in the buffer
 * builds a datatype for its message.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../args.h"
#include "../comm.h"
#include "../error.h"
#include "../ft/ft.h"
#include "../guard/guard.h"
#include "../module.h"
#include "algorithms.h"
#include "ft_allgather.h"
#include "state.h"

/* ---- names (registry.c) ------------------------------------------------ */

int ftc_allgatherv_algorithm_parse(const char *text, ftc_allgatherv_algorithm *out)
{
    ftc_clear_error();
    if (!text || !out)
        return ftc_fail(MPI_ERR_ARG, "ftc_allgatherv_algorithm_parse: NULL argument");
    if (ftc_allgatherv_parse_name(text, out))
        return MPI_SUCCESS;
    char valid[256];
    ftc_allgatherv_list_names(valid, sizeof(valid));
    return ftc_fail(MPI_ERR_ARG, "unknown allgatherv algorithm \"%s\"; valid: %s", text, valid);
}

/* ---- the module (module.h) ---------------------------------------------------- */

static int allgatherv_create(ftc_comm_t comm)
{
    comm->allgatherv = calloc(1, sizeof(*comm->allgatherv));
    if (!comm->allgatherv)
        return ftc_fail(MPI_ERR_NO_MEM, "ftc_comm_create: out of memory");
    comm->allgatherv->forced = FTC_ALLGATHERV_AUTO;
    comm->allgatherv->known.type = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

/* FTCOLL_ALLGATHERV_ALGORITHM: a name or number forces the algorithm. */
static int allgatherv_read_settings(ftc_comm_t comm)
{
    const char *text = getenv("FTCOLL_ALLGATHERV_ALGORITHM");
    if (!text || !*text)
        return MPI_SUCCESS;
    const int rc = ftc_allgatherv_algorithm_parse(text, &comm->allgatherv->forced);
    if (rc != MPI_SUCCESS) {
        char why[400];
        snprintf(why, sizeof(why), "%s", ftc_error_message());
        return ftc_fail(rc, "FTCOLL_ALLGATHERV_ALGORITHM: %s", why);
    }
    return MPI_SUCCESS;
}

static const char *algorithm_name(int algorithm)
{
    return ftc_allgatherv_algorithm_name((ftc_allgatherv_algorithm)algorithm);
}

/* Ranks running different schedules would wait for each other forever. */
static int allgatherv_agreed(ftc_comm_t comm, ftc_equal_value *values)
{
    values[0] = (ftc_equal_value){ "FTCOLL_ALLGATHERV_ALGORITHM", (int)comm->allgatherv->forced,
                                   algorithm_name };
    return 1;
}

static void allgatherv_release(ftc_comm_t comm)
{
    if (!comm->allgatherv)
        return;
    ftc_allgather_plans_free(&comm->allgatherv->plans);
    ftc_allgather_scratch_free(&comm->allgatherv->scratch);
    free(comm->allgatherv);
    comm->allgatherv = NULL;
}

const ftc_module ftc_allgatherv_module = {
    .name = "allgatherv",
    .create = allgatherv_create,
    .read_settings = allgatherv_read_settings,
    .agreed = allgatherv_agreed,
    .release = allgatherv_release,
};

/* ---- public calls --------------------------------------------------------------- */

int ftc_allgatherv_set_algorithm(ftc_comm_t comm, ftc_allgatherv_algorithm algorithm)
{
    ftc_clear_error();
    if (!comm)
        return ftc_fail(MPI_ERR_COMM, "ftc_allgatherv_set_algorithm: the communicator is NULL");
    if (!ftc_allgatherv_algorithm_name(algorithm))
        return ftc_fail(MPI_ERR_ARG, "ftc_allgatherv_set_algorithm: no algorithm number %d "
                        "(0..%d)", (int)algorithm, FTC_ALLGATHERV_ALGORITHM_COUNT - 1);
    comm->allgatherv->forced = algorithm;
    return MPI_SUCCESS;
}

int ftc_allgatherv_last_choice(ftc_comm_t comm, ftc_allgatherv_choice *out)
{
    ftc_clear_error();
    const int rc = ftc_check_query("ftc_allgatherv_last_choice", comm, out, "the output");
    if (rc != MPI_SUCCESS)
        return rc;
    *out = comm->allgatherv->last;
    return MPI_SUCCESS;
}

/* ---- argument checks --------------------------------------------------- */

typedef struct {
    const void *sendbuf;
    int sendcount;
    MPI_Datatype sendtype;
    void *recvbuf;
    const int *recvcounts;
    const int *displs;
    MPI_Datatype recvtype;
    bool in_place;
    ftc_type_shape send_shape, recv_shape;
    long long total;   /* elements of every block */
} arguments;

static const ftc_buffer_names send_names = { "ftc_allgatherv", "sendbuf", "sendcount",
                                             "sendtype" };
static const ftc_buffer_names recv_names = { "ftc_allgatherv", "recvbuf", "recvcounts",
                                             "recvtype" };

static int check_counts(arguments *g, ftc_comm_t comm)
{
    if (!g->recvcounts || !g->displs)
        return ftc_fail(MPI_ERR_ARG, "ftc_allgatherv: %s is NULL",
                        g->recvcounts ? "displs" : "recvcounts");
    g->total = 0;
    for (int r = 0; r < comm->size; r++) {
        if (g->recvcounts[r] < 0)
            return ftc_fail(MPI_ERR_COUNT, "ftc_allgatherv: recvcounts[%d] = %d is negative", r,
                            g->recvcounts[r]);
        g->total += g->recvcounts[r];
    }
    if (g->total > INT_MAX)
        return ftc_fail(MPI_ERR_COUNT, "ftc_allgatherv: recvcounts sum to %lld, past INT_MAX",
                        g->total);
    /* here, before the guard: a rank short of memory stops every rank */
    return ftc_allgather_scratch_reserve(&comm->allgatherv->scratch, comm->size);
}

static int check_arguments(arguments *g, ftc_comm_t comm)
{
    int rc = ftc_check_comm("ftc_allgatherv", comm);
    if (rc == MPI_SUCCESS)
        rc = check_counts(g, comm);
    if (rc == MPI_SUCCESS)   /* the buffer is checked as if it held every block */
        rc = ftc_check_buffer_shape(&recv_names, g->recvbuf, (int)g->total, g->recvtype,
                                    comm->comm, &comm->allgatherv->known, &g->recv_shape);
    if (rc == MPI_SUCCESS && !g->in_place)
        rc = ftc_check_buffer_shape(&send_names, g->sendbuf, g->sendcount, g->sendtype,
                                    comm->comm, &comm->allgatherv->known, &g->send_shape);
    if (rc != MPI_SUCCESS)
        return rc;
    const long long mine = (long long)g->recvcounts[comm->rank] * g->recv_shape.size;
    if (!g->in_place && (long long)g->sendcount * g->send_shape.size != mine)
        return ftc_fail(MPI_ERR_ARG, "ftc_allgatherv: sendcount x size(sendtype) = %lld bytes "
                        "differs from recvcounts[%d] x size(recvtype) = %lld bytes",
                        (long long)g->sendcount * g->send_shape.size, comm->rank, mine);
    return ftc_allgather_check_total("ftc_allgatherv", comm->size,
                                     g->total * g->recv_shape.size);
}

/* ---- the call ---------------------------------------------------------- */

/* The call's choice, written where ftc_allgatherv_last_choice reads it, and
 * logged when it changed. */
static ftc_allgatherv_algorithm choose(ftc_comm_t comm, int n, size_t total_bytes)
{
    ftc_allgatherv_choice *choice = &comm->allgatherv->last;
    const ftc_allgatherv_algorithm executed_before = choice->executed;
    choice->requested = comm->allgatherv->forced;
    choice->selected = choice->requested == FTC_ALLGATHERV_AUTO
        ? ftc_allgatherv_decide(n, total_bytes) : choice->requested;
    choice->executed = ftc_allgatherv_resolve(choice->selected, n, total_bytes, choice->reason,
                                              sizeof(choice->reason));
    if (comm->verbose && comm->rank == 0 && choice->executed != executed_before)
        fprintf(stderr, "ftcoll: allgatherv on %d ranks: %s%s%s%s\n", n,
                ftc_allgatherv_algorithm_name(choice->executed),
                choice->requested == FTC_ALLGATHERV_AUTO ? " (decision table)" : " (forced)",
                choice->reason[0] ? " — " : "", choice->reason);
    return choice->executed;
}

/* The call's description for the family's run (ft_allgather.h). */
static ftc_allgather_call describe(ftc_comm_t comm, const arguments *g)
{
    ftc_allgather_scratch *scratch = &comm->allgatherv->scratch;
    const MPI_Aint extent = g->recv_shape.extent;
    for (int r = 0; r < comm->size; r++)
        scratch->block_offsets[r] = (MPI_Aint)g->displs[r] * extent;
    char *recv = g->recvbuf;
    const int me = comm->rank;
    return (ftc_allgather_call){
        .comm = comm, .name = "ftc_allgatherv", .scratch = scratch, .in_place = g->in_place,
        .send = g->in_place ? recv + scratch->block_offsets[me] : g->sendbuf,
        .send_count = g->in_place ? g->recvcounts[me] : g->sendcount,
        .send_type = g->in_place ? g->recvtype : g->sendtype,
        .send_contiguous = g->in_place ? g->recv_shape.contiguous : g->send_shape.contiguous,
        .recv = recv, .type = g->recvtype, .contiguous = g->recv_shape.contiguous,
        .type_size = g->recv_shape.size, .extent = extent, .counts = g->recvcounts,
        .offsets = scratch->block_offsets,
        .all_bytes = (size_t)g->total * (size_t)g->recv_shape.size,
    };
}

static int allgatherv_checked(ftc_comm_t comm, const arguments *g)
{
    ftc_allgather_call a = describe(comm, g);
    a.number = ftc_ft_begin_call(comm->ft);
    const int n = ftc_ft_live_count(comm->ft), me = ftc_ft_live_index(comm->ft);
    const ftc_allgatherv_algorithm executed = choose(comm, n, a.all_bytes);
    const ftc_allgather_algorithm plan_of = ftc_allgatherv_plan_of(executed);
    const ftc_schedule *plan = NULL;
    const int rc = ftc_allgather_plan_for(&comm->allgatherv->plans, plan_of, me, n, &plan);
    if (rc != MPI_SUCCESS)
        return rc;
    return ftc_allgather_run(&a, plan, ftc_allgatherv_algorithm_name(executed),
                             comm->allgatherv->plans.own_block_alone[plan_of]);
}

int ftc_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   ftc_comm_t comm)
{
    ftc_clear_error();
    arguments g = { .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype,
                    .recvbuf = recvbuf, .recvcounts = recvcounts, .displs = displs,
                    .recvtype = recvtype, .in_place = sendbuf == MPI_IN_PLACE };
    int rc = check_arguments(&g, comm);
    if (comm) {   /* guarded: bad arguments here stop every rank cleanly */
        ftc_guard_args same = ftc_guard_args_of(-1, g.total * g.recv_shape.size);
        same.counts = g.recvcounts;
        same.count_bytes = g.recv_shape.size;
        rc = ftc_guard_enter(comm, FTC_GUARDED_ALLGATHERV, rc, &same);
    }
    if (rc == MPI_SUCCESS)
        rc = allgatherv_checked(comm, &g);
    if (comm)
        ftc_guard_leave(comm);   /* disarms the watchdog if the guard let the call in */
    return rc;
}
