#define _POSIX_C_SOURCE 200809L /* fmemopen */
/*
 * The collectives of the layer. Each one:
 *
 *   inside ftcoll, or not routed (FTCOLL_NATIVE, an intercommunicator, a
 *   case ftcoll does not treat)  ->  PMPI_ call, unchanged
 *   otherwise  ->  ftcoll on the communicator's ftcoll twin; an error goes
 *                  to the program's error handler, as MPI's would
 *
 * After a process failure (ULFM) every one goes on over the survivors
 * inside ftcoll: MPI_Allgather(v) and MPI_Alltoall(v) fill the blocks ftcoll
 * reports valid (every survivor's); those of dead ranks are left as they
 * were, or partly written by a rank that died sending them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#ifdef FTCOLL_HAVE_ULFM
#include <mpi-ext.h>
#endif

#include "layer.h"

enum { EXIT_STOPPED = 71 };   /* every rank's exit status after a clean stop */

/* The layer_comm to run `kind` on `comm` in ftcoll, or NULL: pass it to MPI. */
static layer_comm *routed(MPI_Comm comm, layer_kind kind)
{
    if (layer_bypass())
        return NULL;
    layer_comm *lc = NULL;
    if (!layer.native[kind])
        lc = layer_comm_of(comm);
    if (lc && lc->ftc)
        return lc;
    layer_summary_forwarded(kind);
    return NULL;
}

static bool process_failed(int rc)
{
#ifdef FTCOLL_HAVE_ULFM
    return rc == MPIX_ERR_PROC_FAILED;
#else
    (void)rc;
    return false;
#endif
}

/* ---- errors ------------------------------------------------------------ */

static int lowest_live_rank(const layer_comm *lc)
{
    int lowest = 0, count = 0;
    return ftc_comm_live_ranks(lc->ftc, &lowest, 1, &count) == MPI_SUCCESS && count > 0
               ? lowest : 0;
}

/* Why every rank stops: the guard's report, or the call's own message. */
static void write_reason(FILE *out, const layer_comm *lc, const char *call, int rc,
                         const char *failure)
{
    ftc_stop_report report;
    if (rc != FTC_ERR_STOPPED || ftc_guard_last_report(lc->ftc, &report) != MPI_SUCCESS) {
        fprintf(out, "ftcoll: %s failed on every rank: %s", call, failure);
        return;
    }
    fprintf(out, "ftcoll: %s stopped on every rank at check-in %ld: %d rank(s) raised an error",
            call, report.check, report.error_ranks);
    for (int i = 0; i < report.listed; i++)
        fprintf(out, "%s rank %d: %s", i ? ";" : ":", report.error_rank[i], report.message[i]);
}

/*
 * An error every survivor got alike (a guard's stop, a broadcast whose root
 * died): under the default MPI_ERRORS_ARE_FATAL the program cannot go on,
 * so every rank finalizes and exits with EXIT_STOPPED, the lowest live rank
 * saying why; no rank aborts the others, none is left waiting.
 */
static void stop_every_rank(const layer_comm *lc, const char *call, int rc)
{
    char failure[512];   /* the call's message, before the queries below clear it */
    snprintf(failure, sizeof(failure), "%s", ftc_error_message());
    if (ftc_comm_rank(lc->ftc) == lowest_live_rank(lc)) {
        /* one write: another rank's output cannot cut the line */
        char why[2048] = "";
        FILE *line = fmemopen(why, sizeof(why) - 1, "w");   /* cuts a long text short */
        if (line) {
            write_reason(line, lc, call, rc, failure);
            fclose(line);
        }
        fprintf(stderr, "%s\nftcoll: every rank ends with exit status %d\n", why, EXIT_STOPPED);
    }
    PMPI_Finalize();
    exit(EXIT_STOPPED);
}

/* What a routed call returns: MPI_SUCCESS, or `rc` after the program's
 * error handler has seen it, as MPI would do. */
static int finish(const layer_comm *lc, MPI_Comm comm, const char *call, int rc, bool uniform)
{
    if (rc == MPI_SUCCESS)
        return rc;
    if (!layer_errors_are_fatal(comm)) {
        PMPI_Comm_call_errhandler(comm, rc);
        return rc;
    }
    if (uniform)
        stop_every_rank(lc, call, rc);
    fprintf(stderr, "ftcoll: rank %d: %s: %s\n", layer.world_rank, call, ftc_error_message());
    PMPI_Comm_call_errhandler(comm, rc);
    return rc;
}

static bool uniform_error(int rc)
{
    return rc == FTC_ERR_STOPPED || process_failed(rc);
}

/* ---- MPI_Allreduce ------------------------------------------------------- */

/* The datatype this thread last found predefined. A predefined handle is
 * never freed, so the answer stays true; a derived type's handle may be
 * freed and reused, so no other answer is remembered. */
static _Thread_local MPI_Datatype last_predefined;
static _Thread_local bool have_last_predefined;

static bool is_predefined(MPI_Datatype type)
{
    if (have_last_predefined && type == last_predefined)
        return true;
    int integers, addresses, types, combiner;
    if (PMPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner) != MPI_SUCCESS
        || combiner != MPI_COMBINER_NAMED)
        return false;
    last_predefined = type;
    have_last_predefined = true;
    return true;
}

/* MPI's predefined reduction ops: commutative, and never freed, so the
 * answer needs no question to MPI (a user's op is asked on every call: its
 * handle may be freed, by any binding, and reused for another op). */
static bool is_predefined_op(MPI_Op op)
{
    static const MPI_Op ops[] = { MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD, MPI_LAND, MPI_BAND,
                                  MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC };
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (op == ops[i])
            return true;
    return false;
}

/* A null type or op is ftcoll's to reject: the rank that passes one while
 * the others pass valid handles leaves the call as ftcoll's ranks expect
 * (its call number stays in step), not through MPI's own collective. */
static bool names_null_handle(MPI_Datatype type, MPI_Op op)
{
    return type == MPI_DATATYPE_NULL || op == MPI_OP_NULL;
}

/* ftcoll's scans take predefined datatypes and any op, commutative or not
 * (they combine in rank order); MPI's handles the rest (and the invalid
 * handles it alone can name). */
static bool scan_supported(MPI_Datatype type, MPI_Op op)
{
    return names_null_handle(type, op) || is_predefined(type);
}

/* ftcoll's allreduce takes what its scans take (scan_supported), with
 * commutative ops only. */
static bool allreduce_supported(MPI_Datatype type, MPI_Op op)
{
    if (names_null_handle(type, op))
        return true;
    if (!is_predefined(type))
        return false;
    int commutative = 0;
    return is_predefined_op(op)
        || (PMPI_Op_commutative(op, &commutative) == MPI_SUCCESS && commutative);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm)
{
    layer_comm *lc = routed(comm, LAYER_ALLREDUCE);
    if (lc && !allreduce_supported(datatype, op)) {
        layer_summary_forwarded(LAYER_ALLREDUCE);
        lc = NULL;
    }
    if (!lc)
        return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    layer_depth++;
    const int rc = ftc_allreduce(sendbuf, recvbuf, count, datatype, op, lc->ftc);
    if (rc == MPI_SUCCESS)
        layer_note_ft_call(lc);
    layer_depth--;
    lc->stats.routed[LAYER_ALLREDUCE]++;
    return finish(lc, comm, "MPI_Allreduce", rc, rc == FTC_ERR_STOPPED);
}

/* As MPI_Allreduce's: ftcoll's reduce takes what its allreduce takes. A
 * root that died leaves nobody a result to miss: every survivor returns
 * MPI_SUCCESS, so an error here is this rank's own. */
int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm)
{
    layer_comm *lc = routed(comm, LAYER_REDUCE);
    if (lc && !allreduce_supported(datatype, op)) {
        layer_summary_forwarded(LAYER_REDUCE);
        lc = NULL;
    }
    if (!lc)
        return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    layer_depth++;
    const int rc = ftc_reduce(sendbuf, recvbuf, count, datatype, op, root, lc->ftc);
    if (rc == MPI_SUCCESS)
        layer_note_ft_call(lc);
    layer_depth--;
    lc->stats.routed[LAYER_REDUCE]++;
    return finish(lc, comm, "MPI_Reduce", rc, rc == FTC_ERR_STOPPED);
}

/* ---- MPI_Allgather and MPI_Allgatherv ------------------------------------ */

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    layer_comm *lc = routed(comm, LAYER_ALLGATHER);
    if (!lc)
        return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    layer_depth++;
    const int rc = ftc_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                 lc->ftc);
    ftc_allgather_choice choice;
    if (rc == MPI_SUCCESS) {
        layer_note_ft_call(lc);
        if (ftc_allgather_last_choice(lc->ftc, &choice) == MPI_SUCCESS)
            lc->stats.allgather_runs[choice.executed]++;
    }
    layer_depth--;
    lc->stats.routed[LAYER_ALLGATHER]++;
    return finish(lc, comm, "MPI_Allgather", rc, rc == FTC_ERR_STOPPED);
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm)
{
    layer_comm *lc = routed(comm, LAYER_ALLGATHERV);
    if (!lc)
        return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                               recvtype, comm);
    layer_depth++;
    const int rc = ftc_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                  recvtype, lc->ftc);
    ftc_allgatherv_choice choice;
    if (rc == MPI_SUCCESS) {
        layer_note_ft_call(lc);
        if (ftc_allgatherv_last_choice(lc->ftc, &choice) == MPI_SUCCESS)
            lc->stats.allgatherv_runs[choice.executed]++;
    }
    layer_depth--;
    lc->stats.routed[LAYER_ALLGATHERV]++;
    return finish(lc, comm, "MPI_Allgatherv", rc, rc == FTC_ERR_STOPPED);
}

/* ---- MPI_Gather(v) ---------------------------------------------------------- */

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    layer_comm *lc = routed(comm, LAYER_GATHER);
    if (!lc)
        return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                           comm);
    layer_depth++;
    const int rc = ftc_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                              lc->ftc);
    ftc_gather_choice choice;
    if (rc == MPI_SUCCESS) {
        layer_note_ft_call(lc);
        if (ftc_gather_last_choice(lc->ftc, &choice) == MPI_SUCCESS)
            lc->stats.gather_runs[choice.executed]++;
    }
    layer_depth--;
    lc->stats.routed[LAYER_GATHER]++;
    return finish(lc, comm, "MPI_Gather", rc, rc == FTC_ERR_STOPPED);
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
    layer_comm *lc = routed(comm, LAYER_GATHERV);
    if (!lc)
        return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                            root, comm);
    layer_depth++;
    const int rc = ftc_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                               recvtype, root, lc->ftc);
    if (rc == MPI_SUCCESS)
        layer_note_ft_call(lc);
    layer_depth--;
    lc->stats.routed[LAYER_GATHERV]++;
    return finish(lc, comm, "MPI_Gatherv", rc, rc == FTC_ERR_STOPPED);
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    layer_comm *lc = routed(comm, LAYER_SCATTER);
    if (!lc)
        return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                            comm);
    layer_depth++;
    const int rc = ftc_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                               lc->ftc);
    ftc_scatter_choice choice;
    if (rc == MPI_SUCCESS || process_failed(rc)) {
        layer_note_ft_call(lc);
        if (ftc_scatter_last_choice(lc->ftc, &choice) == MPI_SUCCESS)
            lc->stats.scatter_runs[choice.executed]++;
    }
    layer_depth--;
    lc->stats.routed[LAYER_SCATTER]++;
    /* as MPI_Scatterv's: not a uniform error */
    return finish(lc, comm, "MPI_Scatter", rc, rc == FTC_ERR_STOPPED);
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm)
{
    layer_comm *lc = routed(comm, LAYER_SCATTERV);
    if (!lc)
        return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                             root, comm);
    layer_depth++;
    const int rc = ftc_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                recvtype, root, lc->ftc);
    if (rc == MPI_SUCCESS || process_failed(rc))
        layer_note_ft_call(lc);
    layer_depth--;
    lc->stats.routed[LAYER_SCATTERV]++;
    /* a survivor whose block died with the root fails alone where others
     * got theirs: not a uniform error */
    return finish(lc, comm, "MPI_Scatterv", rc, rc == FTC_ERR_STOPPED);
}

/* As MPI_Allreduce's: ftcoll's reduce_scatter(_block) takes what its
 * allreduce takes, and runs it. */
/* Which reduce-scatter algorithm ran, for the summary. */
static void count_reduce_scatter_run(layer_comm *lc)
{
    ftc_reduce_scatter_algorithm executed;
    if (ftc_reduce_scatter_last_algorithm(lc->ftc, &executed) == MPI_SUCCESS)
        lc->stats.reduce_scatter_runs[executed]++;
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    layer_comm *lc = routed(comm, LAYER_REDUCE_SCATTER_BLOCK);
    if (lc && !allreduce_supported(datatype, op)) {
        layer_summary_forwarded(LAYER_REDUCE_SCATTER_BLOCK);
        lc = NULL;
    }
    if (!lc)
        return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
    layer_depth++;
    const int rc = ftc_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, lc->ftc);
    if (rc == MPI_SUCCESS) {
        layer_note_ft_call(lc);
        count_reduce_scatter_run(lc);
    }
    layer_depth--;
    lc->stats.routed[LAYER_REDUCE_SCATTER_BLOCK]++;
    return finish(lc, comm, "MPI_Reduce_scatter_block", rc, rc == FTC_ERR_STOPPED);
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    layer_comm *lc = routed(comm, LAYER_REDUCE_SCATTER);
    if (lc && !allreduce_supported(datatype, op)) {
        layer_summary_forwarded(LAYER_REDUCE_SCATTER);
        lc = NULL;
    }
    if (!lc)
        return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
    layer_depth++;
    const int rc = ftc_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, lc->ftc);
    if (rc == MPI_SUCCESS) {
        layer_note_ft_call(lc);
        count_reduce_scatter_run(lc);
    }
    layer_depth--;
    lc->stats.routed[LAYER_REDUCE_SCATTER]++;
    return finish(lc, comm, "MPI_Reduce_scatter", rc, rc == FTC_ERR_STOPPED);
}

/* ---- MPI_Scan, MPI_Exscan ---------------------------------------------- */

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm)
{
    layer_comm *lc = routed(comm, LAYER_SCAN);
    if (lc && !scan_supported(datatype, op)) {
        layer_summary_forwarded(LAYER_SCAN);
        lc = NULL;
    }
    if (!lc)
        return PMPI_Scan(sendbuf, recvbuf, count, datatype, op, comm);
    layer_depth++;
    const int rc = ftc_scan(sendbuf, recvbuf, count, datatype, op, lc->ftc);
    if (rc == MPI_SUCCESS)
        layer_note_ft_call(lc);
    layer_depth--;
    lc->stats.routed[LAYER_SCAN]++;
    return finish(lc, comm, "MPI_Scan", rc, rc == FTC_ERR_STOPPED);
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm)
{
    layer_comm *lc = routed(comm, LAYER_EXSCAN);
    if (lc && !scan_supported(datatype, op)) {
        layer_summary_forwarded(LAYER_EXSCAN);
        lc = NULL;
    }
    if (!lc)
        return PMPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm);
    layer_depth++;
    const int rc = ftc_exscan(sendbuf, recvbuf, count, datatype, op, lc->ftc);
    if (rc == MPI_SUCCESS)
        layer_note_ft_call(lc);
    layer_depth--;
    lc->stats.routed[LAYER_EXSCAN]++;
    return finish(lc, comm, "MPI_Exscan", rc, rc == FTC_ERR_STOPPED);
}

/* ---- MPI_Alltoall(v) --------------------------------------------------- */

static void note_alltoall(layer_comm *lc)
{
    ftc_alltoall_choice choice;
    layer_note_ft_call(lc);
    if (ftc_alltoall_last_choice(lc->ftc, &choice) == MPI_SUCCESS)
        lc->stats.alltoall_runs[choice.executed]++;
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    layer_comm *lc = routed(comm, LAYER_ALLTOALL);
    if (!lc)
        return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    layer_depth++;
    const int rc = ftc_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                lc->ftc);
    if (rc == MPI_SUCCESS)
        note_alltoall(lc);
    layer_depth--;
    lc->stats.routed[LAYER_ALLTOALL]++;
    return finish(lc, comm, "MPI_Alltoall", rc, rc == FTC_ERR_STOPPED);
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    layer_comm *lc = routed(comm, LAYER_ALLTOALLV);
    if (!lc)
        return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                              rdispls, recvtype, comm);
    layer_depth++;
    const int rc = ftc_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                 rdispls, recvtype, lc->ftc);
    if (rc == MPI_SUCCESS)
        note_alltoall(lc);
    layer_depth--;
    lc->stats.routed[LAYER_ALLTOALLV]++;
    return finish(lc, comm, "MPI_Alltoallv", rc, rc == FTC_ERR_STOPPED);
}

/* ---- MPI_Bcast and MPI_Barrier ----------------------------------------- */

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    layer_comm *lc = routed(comm, LAYER_BCAST);
    if (!lc)
        return PMPI_Bcast(buffer, count, datatype, root, comm);
    layer_depth++;
    const int rc = ftc_bcast(buffer, count, datatype, root, lc->ftc);
    if (rc == MPI_SUCCESS || process_failed(rc))
        layer_note_ft_call(lc);
    layer_depth--;
    lc->stats.routed[LAYER_BCAST]++;
    return finish(lc, comm, "MPI_Bcast", rc, uniform_error(rc));
}

int MPI_Barrier(MPI_Comm comm)
{
    layer_comm *lc = routed(comm, LAYER_BARRIER);
    if (!lc)
        return PMPI_Barrier(comm);
    layer_depth++;
    const int rc = ftc_barrier(lc->ftc);
    if (rc == MPI_SUCCESS)
        layer_note_ft_call(lc);
    layer_depth--;
    lc->stats.routed[LAYER_BARRIER]++;
    return finish(lc, comm, "MPI_Barrier", rc, rc == FTC_ERR_STOPPED);
}
