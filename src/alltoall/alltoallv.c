/*
 * ftc_alltoallv: checks the arguments, picks the algorithm for the live
 * ranks by Open MPI's alltoallv rules (by p alone, select.c), and runs it
 * over them (exchange.c), as ftc_alltoall with blocks of their own counts
 * and places.
 *
 *   rank 0 sends [a0][a1 a1] from sdispls, rank 1 [b0 b0][b1]
 *       ->  rank 0 receives [a0][b0 b0] at rdispls, rank 1 [a1 a1][b1]
 *
 * Cost: the algorithm's (see its file).
 */
#include <limits.h>

#include "../args.h"
#include "../buffer.h"
#include "../comm.h"
#include "../error.h"
#include "../ft/ft.h"
#include "../guard/guard.h"
#include "exchange.h"
#include "state.h"

typedef struct {
    const void *sendbuf;
    const int *sendcounts, *sdispls;
    MPI_Datatype sendtype;
    void *recvbuf;
    const int *recvcounts, *rdispls;
    MPI_Datatype recvtype;
    bool in_place;
    ftc_type_shape send_shape, recv_shape;
} arguments;

/* One side's counts and displacements: not NULL, no count negative;
 * *largest the largest count, which the buffer's check sizes. */
static int check_counts(const char *counts_name, const int *counts, const char *displs_name,
                        const int *displs, int size, int *largest)
{
    if (!counts || !displs)
        return ftc_fail(MPI_ERR_ARG, "ftc_alltoallv: %s is NULL",
                        counts ? displs_name : counts_name);
    *largest = 0;
    for (int r = 0; r < size; r++) {
        if (counts[r] < 0)
            return ftc_fail(MPI_ERR_COUNT, "ftc_alltoallv: %s[%d] = %d is negative", counts_name,
                            r, counts[r]);
        *largest = counts[r] > *largest ? counts[r] : *largest;
    }
    return MPI_SUCCESS;
}

/* One side's buffer and its largest block. */
static int check_side(const ftc_buffer_names *names, const void *buf, const int *counts,
                      const int *displs, const char *displs_name, MPI_Datatype type,
                      ftc_comm_t comm, ftc_known_type *known, ftc_type_shape *shape)
{
    int largest = 0;
    int rc = check_counts(names->count, counts, displs_name, displs, comm->size, &largest);
    if (rc == MPI_SUCCESS)
        rc = ftc_check_buffer_shape(names, buf, largest, type, comm->comm, known, shape);
    if (rc == MPI_SUCCESS && (long long)largest * shape->size > FTC_ALLTOALL_MAX_BLOCK)
        return ftc_fail(MPI_ERR_COUNT, "ftc_alltoallv: a block of %lld bytes; a message "
                        "carries at most %d", (long long)largest * shape->size,
                        FTC_ALLTOALL_MAX_BLOCK);
    return rc;
}

/* The bytes of the blocks to send, in place: they are copied, and the
 * copy's places are ints. */
static int packed_bytes(const arguments *a, ftc_comm_t comm, size_t *bytes)
{
    long long all = 0;
    for (int r = 0; r < comm->size; r++)
        all += (long long)a->recvcounts[r] * a->recv_shape.size;
    if (all > INT_MAX)
        return ftc_fail(MPI_ERR_COUNT, "ftc_alltoallv: in place, the blocks come to %lld "
                        "bytes; the copy of them to send carries at most %d", all, INT_MAX);
    *bytes = (size_t)all;
    return MPI_SUCCESS;
}

static int check_arguments(arguments *a, ftc_comm_t comm)
{
    static const ftc_buffer_names send_names = { "ftc_alltoallv", "sendbuf", "sendcounts",
                                                 "sendtype" };
    static const ftc_buffer_names recv_names = { "ftc_alltoallv", "recvbuf", "recvcounts",
                                                 "recvtype" };
    int rc = ftc_check_comm("ftc_alltoallv", comm);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = ftc_check_not_in_place("ftc_alltoallv", a->recvbuf, "recvbuf");
    if (rc != MPI_SUCCESS)
        return rc;
    struct ftc_alltoall_state *s = comm->alltoall;
    rc = check_side(&recv_names, a->recvbuf, a->recvcounts, a->rdispls, "rdispls", a->recvtype,
                    comm, &s->known_recv, &a->recv_shape);
    size_t packed = 0;
    if (rc == MPI_SUCCESS && a->in_place)
        rc = packed_bytes(a, comm, &packed);
    if (rc == MPI_SUCCESS && !a->in_place)
        rc = check_side(&send_names, a->sendbuf, a->sendcounts, a->sdispls, "sdispls",
                        a->sendtype, comm, &s->known_send, &a->send_shape);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!a->in_place) {
        const int me = comm->rank;
        const long long sent = (long long)a->sendcounts[me] * a->send_shape.size;
        const long long room = (long long)a->recvcounts[me] * a->recv_shape.size;
        if (sent != room)
            return ftc_fail(MPI_ERR_ARG, "ftc_alltoallv: sendcounts[%d] x size(sendtype) = %lld "
                            "bytes (this rank's own block) differs from recvcounts[%d] x "
                            "size(recvtype) = %lld bytes", me, sent, me, room);
    }
    return ftc_alltoall_reserve(comm, "ftc_alltoallv", packed, 0);
}

/* The call, made before the guard (an in-place call's blocks packed). */
static int build_call(ftc_comm_t comm, const arguments *a, ftc_alltoall_call *call)
{
    *call = (ftc_alltoall_call){
        .name = "ftc_alltoallv", .comm = comm, .in_place = a->in_place,
        .recv = { .base = a->recvbuf, .counts = a->recvcounts, .displs = a->rdispls,
                  .type = a->recvtype, .extent = a->recv_shape.extent,
                  .type_size = a->recv_shape.size },
        .recv_contiguous = a->recv_shape.contiguous && ftc_type_is_predefined(a->recvtype),
        .requests = comm->alltoall->requests,
    };
    if (a->in_place)
        return ftc_alltoall_pack_in_place(call);
    call->send = (ftc_block_places){ .base = (char *)a->sendbuf, .counts = a->sendcounts,
                                     .displs = a->sdispls, .type = a->sendtype,
                                     .extent = a->send_shape.extent,
                                     .type_size = a->send_shape.size };
    call->send_contiguous = a->send_shape.contiguous && ftc_type_is_predefined(a->sendtype);
    return MPI_SUCCESS;
}

int ftc_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, ftc_comm_t comm)
{
    ftc_clear_error();
    arguments a = { .sendbuf = sendbuf, .sendcounts = sendcounts, .sdispls = sdispls,
                    .sendtype = sendtype, .recvbuf = recvbuf, .recvcounts = recvcounts,
                    .rdispls = rdispls, .recvtype = recvtype,
                    .in_place = sendbuf == MPI_IN_PLACE };
    ftc_alltoall_call call;
    int rc = check_arguments(&a, comm);
    if (rc == MPI_SUCCESS)
        rc = build_call(comm, &a, &call);
    if (comm)   /* guarded: bad arguments here stop every rank cleanly */
        rc = ftc_guard_enter(comm, FTC_GUARDED_ALLTOALLV, rc, NULL);
    if (rc == MPI_SUCCESS) {
        call.number = ftc_ft_begin_call(comm->ft);
        const int n = ftc_ft_live_count(comm->ft);
        /* no Bruck alltoallv (nor in Open MPI): forced, linear runs */
        call.algorithm = ftc_alltoall_choose(comm, n, ftc_alltoallv_decide(n), false);
        rc = ftc_alltoall_run(&call);
    }
    if (comm)
        ftc_guard_leave(comm);
    return rc;
}
