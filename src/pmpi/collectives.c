#define _POSIX_C_SOURCE 200809L /* fmemopen */
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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#ifdef FTCOLL_HAVE_ULFM
#include <mpi-ext.h>
#endif

#include "layer.h"

enum { EXIT_STOPPED = 71 };   /* every rank's exit status after a clean stop */

/* The message of an error the layer itself found (not ftcoll: a dead root,
 * memory), for finish(); "" when the error is ftcoll's. Cleared when a
 * routed call starts, as ftcoll clears its own. */
static _Thread_local char layer_failure[256];

/* Records the layer's own error message and returns `code`. */
static int layer_fail(int code, const char *format, ...) __attribute__((format(printf, 2, 3)));

static int layer_fail(int code, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(layer_failure, sizeof(layer_failure), format, args);
    va_end(args);
    return code;
}

/* What went wrong in the routed call that just returned an error. */
static const char *failure_message(void)
{
    return layer_failure[0] ? layer_failure : ftc_error_message();
}

/* The layer_comm to run `kind` on `comm` in ftcoll, or NULL: pass it to MPI. */
static layer_comm *routed(MPI_Comm comm, layer_kind kind)
{
    if (layer_bypass())
        return NULL;
    layer_comm *lc = NULL;
    if (!layer.native[kind])
        lc = layer_comm_of(comm);
    if (lc && lc->ftc) {
        layer_failure[0] = '\0';
        return lc;
    }
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
    snprintf(failure, sizeof(failure), "%s", failure_message());
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
    if (!errors_are_fatal(comm)) {
        PMPI_Comm_call_errhandler(comm, rc);
        return rc;
    }
    if (uniform)
        stop_every_rank(lc, call, rc);
    fprintf(stderr, "ftcoll: rank %d: %s: %s\n", layer.world_rank, call, failure_message());
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

/* ftcoll's allreduce takes predefined datatypes and commutative ops; MPI's
 * handles the rest (and the invalid handles it alone can name). */
static bool allreduce_supported(MPI_Datatype type, MPI_Op op)
{
    if (type == MPI_DATATYPE_NULL || op == MPI_OP_NULL || !is_predefined(type))
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

/* ---- MPI_Allgather ------------------------------------------------------- */

/* An MPI error `rc` of `what`, in MPI's words, as the layer's own error. */
static int layer_fail_mpi(int rc, const char *what)
{
    char words[MPI_MAX_ERROR_STRING] = "";
    int length = 0;
    PMPI_Error_string(rc, words, &length);
    return layer_fail(rc, "MPI_Allgather: %s: %s", what, words);
}

/*
 * Copies slot i of `base` to slot owner[i] of `user`, for i in 0..slots-1,
 * each slot `count` x `type`, `stride` bytes apart, leaving the gaps of
 * `type` in `user` as they were: the bytes as they are for a dense type (no
 * gaps, lower bound 0), else through MPI's packed form, which walks the
 * layout. `comm` returns MPI's errors.
 */
static int move_to_owners(const char *base, char *user, const int *owner, int slots, int count,
                          MPI_Datatype type, MPI_Aint stride, MPI_Comm comm)
{
    int type_size = 0;
    MPI_Aint lb, extent, true_lb, true_extent;
    int rc = PMPI_Type_size(type, &type_size);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_get_extent(type, &lb, &extent);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_get_true_extent(type, &true_lb, &true_extent);
    if (rc != MPI_SUCCESS)
        return layer_fail_mpi(rc, "cannot read the layout of the receive type");
    const bool dense = lb == 0 && true_lb == 0 && extent == type_size && true_extent == type_size;
    const size_t slot_bytes = (size_t)type_size * (size_t)count;
    if (slot_bytes == 0)
        return MPI_SUCCESS;
    if (dense) {
        for (int i = 0; i < slots; i++)
            memcpy(user + (MPI_Aint)owner[i] * stride, base + i * stride, slot_bytes);
        return MPI_SUCCESS;
    }
    int packed_size = 0;
    rc = PMPI_Pack_size(count, type, comm, &packed_size);
    if (rc != MPI_SUCCESS)
        return layer_fail_mpi(rc, "cannot size a packed copy");
    if (packed_size < 0)   /* MPI_Pack_size reports an int, and wraps past 2 GiB */
        return layer_fail(MPI_ERR_COUNT, "MPI_Allgather: a non-contiguous block of 2 GiB or more "
                          "cannot be packed; use a contiguous datatype or smaller counts");
    char *packed = malloc(packed_size > 0 ? (size_t)packed_size : 1);
    if (!packed)
        return layer_fail(MPI_ERR_NO_MEM, "MPI_Allgather: cannot allocate %d bytes to copy a block",
                          packed_size);
    for (int i = 0; rc == MPI_SUCCESS && i < slots; i++) {
        int packed_end = 0, unpacked_from = 0;
        rc = PMPI_Pack(base + i * stride, count, type, packed, packed_size, &packed_end, comm);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Unpack(packed, packed_end, &unpacked_from,
                             user + (MPI_Aint)owner[i] * stride, count, type, comm);
    }
    free(packed);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : layer_fail_mpi(rc, "local block copy failed");
}

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
        return layer_fail(MPI_ERR_NO_MEM, "MPI_Allgather: out of memory gathering the survivors");
    char *base = scratch - true_lb;
    char *user = recvbuf;
    if (sendbuf == MPI_IN_PLACE) {
        sendbuf = user + (MPI_Aint)lc->user_rank[ftc_comm_rank(c)] * stride;
        sendcount = recvcount;
        sendtype = recvtype;
    }
    int rc = ftc_allgather(sendbuf, sendcount, sendtype, base, recvcount, recvtype, c);
    if (rc == MPI_SUCCESS)
        rc = move_to_owners(base, user, lc->user_rank, size, recvcount, recvtype, stride,
                            ftc_comm_mpi(c));
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
        rc = layer_fail(MPI_ERR_OTHER, "root %d died in an earlier collective", root);
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
