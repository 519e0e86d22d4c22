/*
 * ftc_scatter: checks the arguments and runs the scatterv's linear flow
 * (scatterv_linear.c) with every block sendcount elements, end to end in
 * rank order, as MPI_Scatter lays them out; that flow also ends the call
 * over the survivors after a failure.
 *
 *   root's sendbuf: [a a][b b][c c]   ->   rank 0 [a a]  rank 1 [b b]  rank 2 [c c]
 *
 * Cost: the scatterv's (see scatterv_linear.c).
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
#include "scatterv_linear.h"
#include "state.h"

/* ---- the module (module.h) ---------------------------------------------------- */

static int scatter_create(ftc_comm_t comm)
{
    comm->scatter = calloc(1, sizeof(*comm->scatter));
    if (!comm->scatter)
        return ftc_fail(MPI_ERR_NO_MEM, "ftc_comm_create: out of memory");
    comm->scatter->known_send.type = MPI_DATATYPE_NULL;
    comm->scatter->known_recv.type = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

static void scatter_release(ftc_comm_t comm)
{
    if (!comm->scatter)
        return;
    free(comm->scatter->counts);
    free(comm->scatter->requests);
    free(comm->scatter);
    comm->scatter = NULL;
}

const ftc_module ftc_scatter_module = {
    .name = "scatter",
    .create = scatter_create,
    .release = scatter_release,
};

/* ---- argument checks --------------------------------------------------- */

typedef struct {
    const void *sendbuf;
    int sendcount;
    MPI_Datatype sendtype;
    void *recvbuf;
    int recvcount;
    MPI_Datatype recvtype;
    int root;
    bool in_place;
    ftc_type_shape send_shape, recv_shape;
} arguments;

static const ftc_buffer_names send_names = { "ftc_scatter", "sendbuf", "sendcount",
                                             "sendtype" };

/* The root's side: its buffer of p blocks, its own block's bytes. */
static int check_root_side(arguments *s, ftc_comm_t comm)
{
    int rc = ftc_scatter_check_send_not_in_place("ftc_scatter", s->sendbuf);
    if (rc == MPI_SUCCESS)
        rc = ftc_check_buffer_shape(&send_names, s->sendbuf, s->sendcount, s->sendtype,
                                    comm->comm, &comm->scatter->known_send, &s->send_shape);
    if (rc != MPI_SUCCESS)
        return rc;
    const long long block = (long long)s->sendcount * s->send_shape.size;
    if (block > FTC_SCATTERV_MAX_BLOCK)
        return ftc_scatter_block_too_large("ftc_scatter", block);
    const long long room = (long long)s->recvcount * s->recv_shape.size;
    if (!s->in_place && block != room)
        return ftc_fail(MPI_ERR_ARG, "ftc_scatter: the root's sendcount x size(sendtype) = %lld "
                        "bytes differs from its recvcount x size(recvtype) = %lld bytes", block,
                        room);
    return MPI_SUCCESS;
}

/* The root's counts as a scatterv's (its blocks' places are a stride, in
 * MPI_Aint: p x sendcount may pass INT_MAX), and room for its sends. */
static int make_layout(ftc_comm_t comm, int sendcount)
{
    struct ftc_scatter_state *st = comm->scatter;
    if (st->capacity < comm->size) {
        const size_t n = (size_t)comm->size;
        int *counts = realloc(st->counts, sizeof(int) * n);
        st->counts = counts ? counts : st->counts;
        MPI_Request *requests = counts ? realloc(st->requests, sizeof(MPI_Request) * n) : NULL;
        st->requests = requests ? requests : st->requests;
        if (!requests)
            return ftc_fail(MPI_ERR_NO_MEM, "ftc_scatter: out of memory for %d ranks",
                            comm->size);
        st->capacity = comm->size;
    }
    for (int r = 0; r < comm->size; r++)
        st->counts[r] = sendcount;
    return MPI_SUCCESS;
}

static int check_arguments(arguments *s, ftc_comm_t comm)
{
    int rc = ftc_check_comm("ftc_scatter", comm);
    if (rc == MPI_SUCCESS)
        rc = ftc_scatter_check_receiver("ftc_scatter", comm, s->root, s->recvbuf, s->recvcount,
                                        s->recvtype, &comm->scatter->known_recv, &s->recv_shape);
    if (rc == MPI_SUCCESS && comm->rank == s->root)
        rc = check_root_side(s, comm);
    /* the layout and a send per rank on every rank (with the root dead,
     * the lowest live rank sends), made here, before the guard: a rank
     * short of memory stops every rank */
    return rc == MPI_SUCCESS ? make_layout(comm, comm->rank == s->root ? s->sendcount : 0) : rc;
}

/* ---- the call ---------------------------------------------------------- */

static int scatter_checked(ftc_comm_t comm, const arguments *s)
{
    const bool at_root = comm->rank == s->root;
    const bool in_place = s->in_place;
    const struct ftc_scatter_state *st = comm->scatter;
    ftc_scatterv_call call = {
        .name = "ftc_scatter", .comm = comm, .root = s->root, .in_place = in_place,
        .recv = in_place ? NULL : s->recvbuf, .recv_count = in_place ? 0 : s->recvcount,
        .recv_type = in_place ? MPI_BYTE : s->recvtype,
        .recv_contiguous = in_place || s->recv_shape.contiguous,
        .recv_bytes = in_place ? 0 : (size_t)s->recvcount * (size_t)s->recv_shape.size,
        .send = at_root ? s->sendbuf : NULL, .send_counts = at_root ? st->counts : NULL,
        .displs = NULL, .stride = at_root ? s->sendcount : 0,
        .send_type = at_root ? s->sendtype : MPI_DATATYPE_NULL,
        .send_extent = at_root ? s->send_shape.extent : 0,
        .send_type_size = at_root ? s->send_shape.size : 0,
        .send_contiguous = at_root && s->send_shape.contiguous,
        .requests = st->requests,
    };
    call.number = ftc_ft_begin_call(comm->ft);
    return ftc_scatterv_run(&call);
}

int ftc_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, ftc_comm_t comm)
{
    ftc_clear_error();
    arguments s = { .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype,
                    .recvbuf = recvbuf, .recvcount = recvcount, .recvtype = recvtype,
                    .root = root, .in_place = recvbuf == MPI_IN_PLACE };
    int rc = check_arguments(&s, comm);
    if (comm)   /* guarded: bad arguments here stop every rank cleanly */
        rc = ftc_guard_enter(comm, FTC_GUARDED_SCATTER, rc);
    if (rc == MPI_SUCCESS)
        rc = scatter_checked(comm, &s);
    if (comm)
        ftc_guard_leave(comm);
    return rc;
}
