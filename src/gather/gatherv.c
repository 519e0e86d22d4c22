/*
 * ftc_gatherv: checks the arguments and runs the linear flow over the live
 * ranks (gatherv_linear.c), which also ends the call over the survivors
 * after a failure. Open MPI has one gatherv algorithm, linear; so has
 * ftcoll, and nothing to choose.
 *
 *   rank 0 [a]  rank 1 [b b]  rank 2 [c]   ->   root's recvbuf:
 *       [a] at displs[0], [b b] at displs[1], [c] at displs[2]
 *
 * Cost: the algorithm's (see its file).
 */
#include <limits.h>
#include <stdlib.h>

#include "../args.h"
#include "../buffer.h"
#include "../comm.h"
#include "../error.h"
#include "../ft/ft.h"
#include "../guard/guard.h"
#include "../module.h"
#include "gatherv_linear.h"
#include "state.h"

/* ---- the module (module.h) ---------------------------------------------------- */

static int gatherv_create(ftc_comm_t comm)
{
    comm->gatherv = calloc(1, sizeof(*comm->gatherv));
    if (!comm->gatherv)
        return ftc_fail(MPI_ERR_NO_MEM, "ftc_comm_create: out of memory");
    comm->gatherv->known_send.type = MPI_DATATYPE_NULL;
    comm->gatherv->known_recv.type = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

static void gatherv_release(ftc_comm_t comm)
{
    if (!comm->gatherv)
        return;
    free(comm->gatherv->requests);
    free(comm->gatherv);
    comm->gatherv = NULL;
}

const ftc_module ftc_gatherv_module = {
    .name = "gatherv",
    .create = gatherv_create,
    .release = gatherv_release,
};

/* ---- argument checks --------------------------------------------------- */

typedef struct {
    const void *sendbuf;
    int sendcount;
    MPI_Datatype sendtype;
    void *recvbuf;
    const int *recvcounts;
    const int *displs;
    MPI_Datatype recvtype;
    int root;
    bool in_place;
    ftc_type_shape send_shape, recv_shape;
} arguments;

static const ftc_buffer_names send_names = { "ftc_gatherv", "sendbuf", "sendcount", "sendtype" };
static const ftc_buffer_names recv_names = { "ftc_gatherv", "recvbuf", "recvcounts",
                                             "recvtype" };

/* The root's counts: none negative, no block of 2 GiB or more; *largest
 * the largest count, which the buffer's check sizes. */
static int check_counts(const arguments *g, ftc_comm_t comm, int *largest)
{
    if (!g->recvcounts || !g->displs)
        return ftc_fail(MPI_ERR_ARG, "ftc_gatherv: %s is NULL at the root",
                        g->recvcounts ? "displs" : "recvcounts");
    *largest = 0;
    for (int r = 0; r < comm->size; r++) {
        if (g->recvcounts[r] < 0)
            return ftc_fail(MPI_ERR_COUNT, "ftc_gatherv: recvcounts[%d] = %d is negative", r,
                            g->recvcounts[r]);
        *largest = g->recvcounts[r] > *largest ? g->recvcounts[r] : *largest;
    }
    return MPI_SUCCESS;
}

/* The root's side: its counts, its buffer, its own block's bytes. */
static int check_root_side(arguments *g, ftc_comm_t comm)
{
    int largest = 0;
    int rc = check_counts(g, comm, &largest);
    if (rc == MPI_SUCCESS)
        rc = ftc_check_buffer_shape(&recv_names, g->recvbuf, largest, g->recvtype, comm->comm,
                                    &comm->gatherv->known_recv, &g->recv_shape);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((long long)largest * g->recv_shape.size > FTC_GATHERV_MAX_BLOCK)
        return ftc_fail(MPI_ERR_COUNT, "ftc_gatherv: a block of %lld bytes; a message carries "
                        "at most %d", (long long)largest * g->recv_shape.size,
                        FTC_GATHERV_MAX_BLOCK);
    if (g->in_place)
        return MPI_SUCCESS;
    const long long sent = (long long)g->sendcount * g->send_shape.size;
    const long long room = (long long)g->recvcounts[comm->rank] * g->recv_shape.size;
    if (sent != room)
        return ftc_fail(MPI_ERR_ARG, "ftc_gatherv: the root's sendcount x size(sendtype) = %lld "
                        "bytes differs from recvcounts[%d] x size(recvtype) = %lld bytes", sent,
                        comm->rank, room);
    return MPI_SUCCESS;
}

static int check_arguments(arguments *g, ftc_comm_t comm)
{
    int rc = ftc_check_comm("ftc_gatherv", comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (g->root < 0 || g->root >= comm->size)
        return ftc_fail(MPI_ERR_ROOT, "ftc_gatherv: root %d is not a rank of the communicator "
                        "(0..%d)", g->root, comm->size - 1);
    const bool at_root = comm->rank == g->root;
    if (g->in_place && !at_root)
        return ftc_fail(MPI_ERR_BUFFER, "ftc_gatherv: MPI_IN_PLACE is the root's only (rank %d "
                        "is not root %d)", comm->rank, g->root);
    if (!g->in_place)
        rc = ftc_check_buffer_shape(&send_names, g->sendbuf, g->sendcount, g->sendtype,
                                    comm->comm, &comm->gatherv->known_send, &g->send_shape);
    if (rc == MPI_SUCCESS && !g->in_place &&
        (long long)g->sendcount * g->send_shape.size > FTC_GATHERV_MAX_BLOCK)
        return ftc_fail(MPI_ERR_COUNT, "ftc_gatherv: a block of %lld bytes; a message carries "
                        "at most %d", (long long)g->sendcount * g->send_shape.size,
                        FTC_GATHERV_MAX_BLOCK);
    if (rc == MPI_SUCCESS && at_root)
        rc = check_root_side(g, comm);
    /* a receive per rank on every rank (with the root dead, the lowest live
     * rank receives), made here, before the guard: a rank short of memory
     * stops every rank */
    return rc == MPI_SUCCESS ? ftc_ensure_requests(&comm->gatherv->requests,
                                                   &comm->gatherv->capacity, comm->size,
                                                   "ftc_gatherv")
                             : rc;
}

/* ---- the call ---------------------------------------------------------- */

static int gatherv_checked(ftc_comm_t comm, const arguments *g)
{
    const bool at_root = comm->rank == g->root;
    const bool in_place = g->in_place;
    char *recv = g->recvbuf;
    const MPI_Aint own_place = in_place ? (MPI_Aint)g->displs[comm->rank] * g->recv_shape.extent
                                        : 0;
    ftc_gatherv_call call = {
        .comm = comm, .root = g->root, .in_place = in_place,
        .send = in_place ? recv + own_place : g->sendbuf,
        .send_count = in_place ? g->recvcounts[comm->rank] : g->sendcount,
        .send_type = in_place ? g->recvtype : g->sendtype,
        .send_contiguous = in_place ? g->recv_shape.contiguous : g->send_shape.contiguous,
        .recv = at_root ? recv : NULL, .recv_counts = at_root ? g->recvcounts : NULL,
        .displs = at_root ? g->displs : NULL,
        .recv_type = at_root ? g->recvtype : MPI_DATATYPE_NULL,
        .recv_extent = at_root ? g->recv_shape.extent : 0,
        .recv_type_size = at_root ? g->recv_shape.size : 0,
        .recv_contiguous = at_root && g->recv_shape.contiguous,
    };
    call.send_bytes = in_place ? (size_t)g->recvcounts[comm->rank] * (size_t)g->recv_shape.size
                               : (size_t)g->sendcount * (size_t)g->send_shape.size;
    call.number = ftc_ft_begin_call(comm->ft);
    return ftc_gatherv_run(&call);
}

int ftc_gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                ftc_comm_t comm)
{
    ftc_clear_error();
    arguments g = { .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype,
                    .recvbuf = recvbuf, .recvcounts = recvcounts, .displs = displs,
                    .recvtype = recvtype, .root = root, .in_place = sendbuf == MPI_IN_PLACE };
    int rc = check_arguments(&g, comm);
    if (comm) {   /* guarded: bad arguments here stop every rank cleanly */
        const ftc_guard_args same = ftc_guard_args_of(root, -1);
        rc = ftc_guard_enter(comm, FTC_GUARDED_GATHERV, rc, &same);
    }
    if (rc == MPI_SUCCESS)
        rc = gatherv_checked(comm, &g);
    if (comm)
        ftc_guard_leave(comm);
    return rc;
}
