/*
 * The collectives of the layer. Each one:
 *
 *   inside ftcoll, or not routed (FTCOLL_NATIVE, an intercommunicator, a
 *   case ftcoll does not treat)  ->  PMPI_ call, unchanged
 *   otherwise  ->  ftcoll on the communicator's ftcoll twin; an error goes
 *                  to the program's error handler, as MPI's would
 *
 * After a process failure (ULFM): MPI_Allreduce, MPI_Bcast and MPI_Barrier
 * go on over the survivors inside ftcoll; MPI_Allgather, which needs every
 * rank, moves the communicator to the survivors (layer_shrink) and fills
 * the blocks of the survivors, leaving those of dead ranks as they were.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#ifdef FTCOLL_HAVE_ULFM
#include <mpi-ext.h>
#endif

#include "../buffer.h"
#include "../error.h"
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

static bool errors_are_fatal(MPI_Comm comm)
{
    MPI_Errhandler handler;
    if (PMPI_Comm_get_errhandler(comm, &handler) != MPI_SUCCESS)
        return true;
    const bool fatal = handler == MPI_ERRORS_ARE_FATAL;
    PMPI_Errhandler_free(&handler);
    return fatal;
}

static int lowest_live_rank(const layer_comm *lc)
{
    int lowest = 0, count = 0;
    return ftc_comm_live_ranks(lc->ftc, &lowest, 1, &count) == MPI_SUCCESS && count > 0
               ? lowest : 0;
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
        char why[2048] = "";   /* written at once: another rank's output cannot cut it */
        ftc_stop_report report;
        if (rc == FTC_ERR_STOPPED && ftc_guard_last_report(lc->ftc, &report) == MPI_SUCCESS) {
            ftc_append(why, sizeof(why), "ftcoll: %s stopped on every rank at check-in %ld: "
                       "%d rank(s) raised an error", call, report.check, report.error_ranks);
            for (int i = 0; i < report.listed; i++)
                ftc_append(why, sizeof(why), "%s rank %d: %s", i ? ";" : ":",
                           report.error_rank[i], report.message[i]);
        } else {
            ftc_append(why, sizeof(why), "ftcoll: %s failed on every rank: %s", call, failure);
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
    if (!errors_are_fatal(comm)) {
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

/* ftcoll's allreduce takes predefined datatypes and commutative ops; MPI's
 * handles the rest (and the invalid handles it alone can name). */
static bool allreduce_supported(MPI_Datatype type, MPI_Op op)
{
    if (type == MPI_DATATYPE_NULL || op == MPI_OP_NULL)
        return false;
    int commutative = 0;
    return ftc_type_is_predefined(type)
        && PMPI_Op_commutative(op, &commutative) == MPI_SUCCESS && commutative;
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

/* ---- MPI_Allgather ------------------------------------------------------- */

/*
 * The survivors gather into a scratch buffer of one slot each, then every
 * slot moves to its owner's place in the program's buffer, whose slots of
 * dead ranks stay as they were.
 */
static int allgather_on_survivors(const layer_comm *lc, const void *sendbuf, int sendcount,
                                  MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                  MPI_Datatype recvtype)
{
    ftc_comm_t c = lc->ftc;
    const int size = ftc_comm_size(c);
    MPI_Aint lb, extent, true_lb, true_extent;
    if (recvtype == MPI_DATATYPE_NULL || recvcount < 0)   /* ftcoll names the error */
        return ftc_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c);
    PMPI_Type_get_extent(recvtype, &lb, &extent);
    PMPI_Type_get_true_extent(recvtype, &true_lb, &true_extent);
    const MPI_Aint stride = extent * recvcount;
    const MPI_Aint span = recvcount > 0 ? (recvcount - 1) * extent + true_extent : 0;
    const size_t bytes = (size_t)((size - 1) * stride + span);
    char *scratch = malloc(bytes > 0 ? bytes : 1);
    if (!scratch)
        return ftc_fail(MPI_ERR_NO_MEM, "MPI_Allgather: out of memory gathering the survivors");
    char *base = scratch - true_lb;
    char *user = recvbuf;
    if (sendbuf == MPI_IN_PLACE) {
        sendbuf = user + (MPI_Aint)lc->user_rank[ftc_comm_rank(c)] * stride;
        sendcount = recvcount;
        sendtype = recvtype;
    }
    int rc = ftc_allgather(sendbuf, sendcount, sendtype, base, recvcount, recvtype, c);
    bool contiguous = false;
    if (rc == MPI_SUCCESS)
        rc = ftc_type_is_contiguous(recvtype, &contiguous);
    for (int i = 0; rc == MPI_SUCCESS && i < size; i++)
        rc = ftc_typed_copy(base + i * stride, recvcount, recvtype, contiguous,
                            user + (MPI_Aint)lc->user_rank[i] * stride, recvcount, recvtype,
                            contiguous, ftc_comm_mpi(c));
    free(scratch);
    return rc;
}

static int allgather_once(const layer_comm *lc, const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype)
{
    if (lc->user_rank)
        return allgather_on_survivors(lc, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                      recvtype);
    return ftc_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, lc->ftc);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    layer_comm *lc = routed(comm, LAYER_ALLGATHER);
    if (!lc)
        return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    layer_depth++;
    int rc = allgather_once(lc, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    /* Every survivor got the failure alike: all move on together. */
    while (process_failed(rc)) {
        rc = layer_shrink(lc);
        if (rc == MPI_SUCCESS)
            rc = allgather_once(lc, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    }
    ftc_allgather_choice choice;
    if (rc == MPI_SUCCESS && ftc_allgather_last_choice(lc->ftc, &choice) == MPI_SUCCESS)
        lc->stats.allgather_runs[choice.executed]++;
    layer_depth--;
    lc->stats.routed[LAYER_ALLGATHER]++;
    return finish(lc, comm, "MPI_Allgather", rc, rc == FTC_ERR_STOPPED);
}

/* ---- MPI_Bcast and MPI_Barrier ----------------------------------------- */

/* The root as a rank of the ftcoll communicator: after a shrink, -2 for a
 * dead root, and an invalid root stays invalid (-1) for ftcoll to report. */
static int ftc_root_of(const layer_comm *lc, int root)
{
    if (root < 0 || root >= lc->user_size)
        return -1;
    if (!lc->user_rank)
        return root;
    for (int i = 0, n = ftc_comm_size(lc->ftc); i < n; i++)
        if (lc->user_rank[i] == root)
            return i;
    return -2;
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    layer_comm *lc = routed(comm, LAYER_BCAST);
    if (!lc)
        return PMPI_Bcast(buffer, count, datatype, root, comm);
    layer_depth++;
    const int ftc_root = ftc_root_of(lc, root);
    int rc;
    if (ftc_root == -2) {
        rc = ftc_fail(MPI_ERR_OTHER, "root %d died in an earlier collective", root);
#ifdef FTCOLL_HAVE_ULFM
        rc = MPIX_ERR_PROC_FAILED;
#endif
    } else {
        rc = ftc_bcast(buffer, count, datatype, ftc_root, lc->ftc);
        if (rc == MPI_SUCCESS || process_failed(rc))
            layer_note_ft_call(lc);
    }
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
