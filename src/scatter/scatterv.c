/*
 * ftc_scatterv: checks the arguments and runs the scatter family's flow
 * down the linear tree over the live ranks (ft_scatter.c, linear.c), which
 * also ends the call over the survivors after a failure. Open MPI has one scatterv algorithm, linear;
 * so has ftcoll, and nothing to choose.
 *
 *   root's sendbuf: [a] at displs[0], [b b] at displs[1], [c] at displs[2]
 *       ->   rank 0 [a]   rank 1 [b b]   rank 2 [c]
 *
 * Cost: linear.c's.
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
#include "checks.h"
#include "ft_scatter.h"
#include "state.h"

/* ---- the module (module.h) ---------------------------------------------------- */

static int scatterv_create(ftc_comm_t comm)
{
    comm->scatterv = calloc(1, sizeof(*comm->scatterv));
    if (!comm->scatterv)
        return ftc_fail(MPI_ERR_NO_MEM, "ftc_comm_create: out of memory");
    comm->scatterv->known_send.type = MPI_DATATYPE_NULL;
    comm->scatterv->known_recv.type = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

static void scatterv_release(ftc_comm_t comm)
{
    if (!comm->scatterv)
        return;
    free(comm->scatterv->requests);
    free(comm->scatterv);
    comm->scatterv = NULL;
}

const ftc_module ftc_scatterv_module = {
    .name = "scatterv",
    .create = scatterv_create,
    .release = scatterv_release,
};

/* ---- argument checks --------------------------------------------------- */

typedef struct {
    const void *sendbuf;
    const int *sendcounts;
    const int *displs;
    MPI_Datatype sendtype;
    void *recvbuf;
    int recvcount;
    MPI_Datatype recvtype;
    int root;
    bool in_place;
    ftc_type_shape send_shape, recv_shape;
} arguments;

static const ftc_buffer_names send_names = { "ftc_scatterv", "sendbuf", "sendcounts",
                                             "sendtype" };

/* The root's counts: none negative; *largest the largest, which the
 * buffer's check sizes. */
static int check_counts(const arguments *s, ftc_comm_t comm, int *largest)
{
    if (!s->sendcounts || !s->displs)
        return ftc_fail(MPI_ERR_ARG, "ftc_scatterv: %s is NULL at the root",
                        s->sendcounts ? "displs" : "sendcounts");
    *largest = 0;
    for (int r = 0; r < comm->size; r++) {
        if (s->sendcounts[r] < 0)
            return ftc_fail(MPI_ERR_COUNT, "ftc_scatterv: sendcounts[%d] = %d is negative", r,
                            s->sendcounts[r]);
        *largest = s->sendcounts[r] > *largest ? s->sendcounts[r] : *largest;
    }
    return MPI_SUCCESS;
}

/* The root's side: its counts, its buffer, its own block's bytes. */
static int check_root_side(arguments *s, ftc_comm_t comm)
{
    int largest = 0;
    int rc = ftc_scatter_check_send_not_in_place("ftc_scatterv", s->sendbuf);
    if (rc == MPI_SUCCESS)
        rc = check_counts(s, comm, &largest);
    if (rc == MPI_SUCCESS)
        rc = ftc_check_buffer_shape(&send_names, s->sendbuf, largest, s->sendtype, comm->comm,
                                    &comm->scatterv->known_send, &s->send_shape);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((long long)largest * s->send_shape.size > FTC_SCATTER_MAX_BLOCK)
        return ftc_scatter_block_too_large("ftc_scatterv", (long long)largest * s->send_shape.size);
    if (s->in_place)
        return MPI_SUCCESS;
    const long long own = (long long)s->sendcounts[comm->rank] * s->send_shape.size;
    const long long room = (long long)s->recvcount * s->recv_shape.size;
    if (own != room)
        return ftc_fail(MPI_ERR_ARG, "ftc_scatterv: the root's sendcounts[%d] x size(sendtype) = "
                        "%lld bytes differs from its recvcount x size(recvtype) = %lld bytes",
                        comm->rank, own, room);
    return MPI_SUCCESS;
}

static int check_arguments(arguments *s, ftc_comm_t comm)
{
    int rc = ftc_check_comm("ftc_scatterv", comm);
    if (rc == MPI_SUCCESS)
        rc = ftc_scatter_check_receiver("ftc_scatterv", comm, s->root, s->recvbuf, s->recvcount,
                                        s->recvtype, &comm->scatterv->known_recv, &s->recv_shape);
    if (rc == MPI_SUCCESS && comm->rank == s->root)
        rc = check_root_side(s, comm);
    /* a send per rank on every rank (with the root dead, the lowest live
     * rank sends), made here, before the guard: a rank short of memory
     * stops every rank */
    return rc == MPI_SUCCESS ? ftc_ensure_requests(&comm->scatterv->requests,
                                                   &comm->scatterv->capacity, comm->size,
                                                   "ftc_scatterv")
                             : rc;
}

/* ---- the call ---------------------------------------------------------- */

static int scatterv_checked(ftc_comm_t comm, const arguments *s)
{
    const bool at_root = comm->rank == s->root;
    const bool in_place = s->in_place;
    ftc_scatter_call call = {
        .name = "ftc_scatterv", .comm = comm, .root = s->root, .in_place = in_place,
        .recv = in_place ? NULL : s->recvbuf, .recv_count = in_place ? 0 : s->recvcount,
        .recv_type = in_place ? MPI_BYTE : s->recvtype,
        .recv_contiguous = in_place || s->recv_shape.contiguous,
        .recv_bytes = in_place ? 0 : (size_t)s->recvcount * (size_t)s->recv_shape.size,
        .send = at_root ? s->sendbuf : NULL, .send_counts = at_root ? s->sendcounts : NULL,
        .displs = at_root ? s->displs : NULL,
        .send_type = at_root ? s->sendtype : MPI_DATATYPE_NULL,
        .send_extent = at_root ? s->send_shape.extent : 0,
        .send_type_size = at_root ? s->send_shape.size : 0,
        .send_contiguous = at_root && s->send_shape.contiguous,
        .requests = comm->scatterv->requests,
    };
    call.number = ftc_ft_begin_call(comm->ft);
    return ftc_scatter_run(&call);
}

int ftc_scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, ftc_comm_t comm)
{
    ftc_clear_error();
    arguments s = { .sendbuf = sendbuf, .sendcounts = sendcounts, .displs = displs,
                    .sendtype = sendtype, .recvbuf = recvbuf, .recvcount = recvcount,
                    .recvtype = recvtype, .root = root, .in_place = recvbuf == MPI_IN_PLACE };
    int rc = check_arguments(&s, comm);
    if (comm) {   /* guarded: bad arguments here stop every rank cleanly */
        const ftc_guard_args same = ftc_guard_args_of(root, -1);
        rc = ftc_guard_enter(comm, FTC_GUARDED_SCATTERV, rc, &same);
    }
    if (rc == MPI_SUCCESS)
        rc = scatterv_checked(comm, &s);
    if (comm)
        ftc_guard_leave(comm);
    return rc;
}
