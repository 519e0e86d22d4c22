/*
 * ftc_bcast: the root's buffer to every rank.
 *
 * With ULFM a broadcast is an allreduce in which only the root contributes,
 * run by the fault-tolerant engine (ft_engine.c), so that it survives the
 * same failures and ends the same way on every survivor:
 *
 *     root:    its data, packed, padded to 8-byte words --+
 *     others:  zeros                                     --+-- bitwise OR,
 *                                                             recursive doubling
 *     every survivor: the root's words; unpacked into its buffer
 *
 * The engine's set S of contributors is the same on every survivor: the
 * root is in S exactly when its data reached them. If the root died before
 * any survivor held its data, every survivor returns MPIX_ERR_PROC_FAILED
 * and leaves its buffer alone.
 *
 * Without ULFM (no rank outlives a failure): MPI_Bcast on ftcoll's private
 * communicator.
 */
#include <stdint.h>
#include <string.h>

#include <mpi.h>
#ifdef FTCOLL_HAVE_ULFM
#include <mpi-ext.h>
#endif

#include "../args.h"
#include "../buffer.h"
#include "../comm.h"
#include "../error.h"
#include "../guard/guard.h"
#include "adaptive.h"
#include "../allreduce/ft_engine.h"

static int check_arguments(const void *buf, int count, MPI_Datatype type, int root,
                           ftc_comm_t comm)
{
    static const ftc_buffer_names names = { "ftc_bcast", "buffer", "count", "datatype" };
    int size;
    int rc = ftc_check_comm("ftc_bcast", comm);
    if (rc == MPI_SUCCESS)
        rc = ftc_check_buffer(&names, buf, count, type, comm->comm, &size);
    if (rc == MPI_SUCCESS && (root < 0 || root >= comm->size))
        rc = ftc_fail(MPI_ERR_ROOT, "ftc_bcast: root %d is not a rank of the communicator "
                                    "(0..%d)", root, comm->size - 1);
    return rc;
}

#ifdef FTCOLL_HAVE_ULFM
static int broadcast_over_allreduce(void *buf, int count, MPI_Datatype type, int root,
                                    ftc_comm_t comm)
{
    int packed_bytes;
    int rc = MPI_Pack_size(count, type, comm->comm, &packed_bytes);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "ftc_bcast: cannot size the packed data");
    const int words = (int)(((size_t)packed_bytes + 7) / 8);
    const size_t bytes = (size_t)words * 8;
    rc = ftc_ensure_capacity(&comm->packed, &comm->packed_size, bytes > 0 ? bytes : 1);
    if (rc != MPI_SUCCESS)
        return rc;
    memset(comm->packed, 0, bytes);
    int position = 0;
    if (comm->rank == root) {
        rc = MPI_Pack(buf, count, type, comm->packed, packed_bytes, &position, comm->comm);
        if (rc != MPI_SUCCESS)
            return ftc_fail_mpi(rc, "ftc_bcast: packing the root's data failed");
    }
    rc = ftc_ft_allreduce_run(comm, NULL, comm->packed, words, MPI_UINT64_T, MPI_BOR, bytes);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!ftc_allreduce_result_includes(comm, root))
        return ftc_fail(MPIX_ERR_PROC_FAILED, "ftc_bcast: root %d died before its data "
                                              "reached any survivor", root);
    if (comm->rank == root)
        return MPI_SUCCESS;
    rc = MPI_Unpack(comm->packed, packed_bytes, &position, buf, count, type, comm->comm);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : ftc_fail_mpi(rc, "ftc_bcast: unpacking failed");
}
#endif

int ftc_bcast(void *buf, int count, MPI_Datatype type, int root, ftc_comm_t comm)
{
    ftc_clear_error();
    int rc = check_arguments(buf, count, type, root, comm);
    if (comm)   /* guarded: bad arguments here stop every rank cleanly */
        rc = ftc_guard_enter(comm, FTC_GUARDED_BCAST, rc);
    if (rc != MPI_SUCCESS)
        return rc;
    if (ftc_tree_bcast_wanted(comm)) {
        rc = ftc_tree_bcast(buf, count, type, root, comm);
        ftc_guard_leave(comm);
        return rc;
    }
#ifdef FTCOLL_HAVE_ULFM
    rc = broadcast_over_allreduce(buf, count, type, root, comm);
#else
    rc = PMPI_Bcast(buf, count, type, root, comm->comm);   /* never through the PMPI layer */
    if (rc != MPI_SUCCESS)
        rc = ftc_fail_mpi(rc, "ftc_bcast: MPI_Bcast failed");
#endif
    ftc_guard_leave(comm);
    return rc;
}
