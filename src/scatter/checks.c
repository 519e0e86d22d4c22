/* The scatter family's common checks (checks.h). */
#include "checks.h"

#include <stdbool.h>

#include "../error.h"
#include "ft_scatter.h"

int ftc_scatter_block_too_large(const char *call, long long bytes)
{
    return ftc_fail(MPI_ERR_COUNT, "%s: a block of %lld bytes; a message carries at most %d",
                    call, bytes, FTC_SCATTER_MAX_BLOCK);
}

int ftc_scatter_check_send_not_in_place(const char *call, const void *sendbuf)
{
    if (sendbuf != MPI_IN_PLACE)
        return MPI_SUCCESS;
    return ftc_fail(MPI_ERR_BUFFER, "%s: MPI_IN_PLACE as the root's sendbuf (it is the root's "
                    "recvbuf that may be MPI_IN_PLACE)", call);
}

int ftc_scatter_check_receiver(const char *call, ftc_comm_t comm, int root, void *recvbuf,
                               int recvcount, MPI_Datatype recvtype, ftc_known_type *known,
                               ftc_type_shape *shape)
{
    if (root < 0 || root >= comm->size)
        return ftc_fail(MPI_ERR_ROOT, "%s: root %d is not a rank of the communicator (0..%d)",
                        call, root, comm->size - 1);
    const bool in_place = recvbuf == MPI_IN_PLACE;
    if (in_place && comm->rank != root)
        return ftc_fail(MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is the root's only (rank %d is not "
                        "root %d)", call, comm->rank, root);
    if (in_place)
        return MPI_SUCCESS;
    const ftc_buffer_names names = { call, "recvbuf", "recvcount", "recvtype" };
    const int rc = ftc_check_buffer_shape(&names, recvbuf, recvcount, recvtype, comm->comm, known,
                                          shape);
    if (rc == MPI_SUCCESS && (long long)recvcount * shape->size > FTC_SCATTER_MAX_BLOCK)
        return ftc_scatter_block_too_large(call, (long long)recvcount * shape->size);
    return rc;
}
