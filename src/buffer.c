#include "buffer.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

int ftc_type_shape_of(MPI_Datatype type, ftc_type_shape *shape)
{
    MPI_Aint lb, true_lb, true_extent;
    int rc = MPI_Type_size(type, &shape->size);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_get_extent(type, &lb, &shape->extent);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_get_true_extent(type, &true_lb, &true_extent);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "cannot read the layout of a datatype");
    shape->contiguous = lb == 0 && true_lb == 0 && shape->extent == shape->size &&
                        true_extent == shape->size;
    return MPI_SUCCESS;
}

int ftc_type_is_contiguous(MPI_Datatype type, bool *contiguous)
{
    ftc_type_shape shape;
    const int rc = ftc_type_shape_of(type, &shape);
    if (rc == MPI_SUCCESS)
        *contiguous = shape.contiguous;
    return rc;
}

/* MPI_Pack_size reports an int, and wraps past 2 GiB. */
static int too_large_to_pack(void)
{
    return ftc_fail(MPI_ERR_COUNT, "a non-contiguous block or buffer of 2 GiB or more cannot be "
                                   "packed; use a contiguous datatype or smaller counts");
}

int ftc_ensure_capacity(char **buffer, size_t *capacity, size_t bytes)
{
    if (bytes <= *capacity)
        return MPI_SUCCESS;
    char *bigger = realloc(*buffer, bytes);
    if (!bigger)
        return ftc_fail(MPI_ERR_NO_MEM, "cannot allocate %zu bytes of scratch memory", bytes);
    *buffer = bigger;
    *capacity = bytes;
    return MPI_SUCCESS;
}

int ftc_ensure_requests(MPI_Request **requests, int *capacity, int n, const char *call)
{
    if (n <= *capacity)
        return MPI_SUCCESS;
    MPI_Request *grown = realloc(*requests, sizeof(*grown) * (size_t)n);
    if (!grown)
        return ftc_fail(MPI_ERR_NO_MEM, "%s: out of memory for %d requests", call, n);
    *requests = grown;
    *capacity = n;
    return MPI_SUCCESS;
}

/* The lowest and highest byte that `count` x `type` touches at `at`
 * (extents may be negative: elements then run downwards). */
static void span_of(MPI_Aint at, int count, MPI_Aint extent, MPI_Aint true_lb,
                    MPI_Aint true_extent, MPI_Aint *low, MPI_Aint *high)
{
    const MPI_Aint last = (MPI_Aint)(count - 1) * extent;
    *low = at + true_lb + (last < 0 ? last : 0);
    *high = at + true_lb + true_extent + (last > 0 ? last : 0);
}

int ftc_slots_room(MPI_Datatype type, int count, MPI_Aint extent, int n, char **buffer,
                   size_t *capacity, char **base)
{
    MPI_Aint true_lb = 0, true_extent = 0;
    MPI_Type_get_true_extent(type, &true_lb, &true_extent);
    const MPI_Aint stride = (MPI_Aint)count * extent;
    MPI_Aint first_low = 0, first_high = 0, last_low = 0, last_high = 0;
    if (count > 0 && n > 0) {
        span_of(0, count, extent, true_lb, true_extent, &first_low, &first_high);
        span_of((MPI_Aint)(n - 1) * stride, count, extent, true_lb, true_extent, &last_low,
                &last_high);
    }
    const MPI_Aint low = first_low < last_low ? first_low : last_low;
    const MPI_Aint high = first_high > last_high ? first_high : last_high;
    const size_t bytes = count > 0 && n > 0 ? (size_t)(high - low) : 0;
    const int rc = ftc_ensure_capacity(buffer, capacity, bytes > 0 ? bytes : 1);
    *base = *buffer - low;
    return rc;
}

bool ftc_type_is_predefined(MPI_Datatype type)
{
    int integers, addresses, types, combiner;
    return MPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner) == MPI_SUCCESS
        && combiner == MPI_COMBINER_NAMED;
}

/*
 * An uncommitted derived type crashes Open MPI's packing code. MPI has no
 * "is committed" query, but each library checks it somewhere cheap: Open MPI
 * on an empty send to MPI_PROC_NULL (a few nanoseconds, no data moves),
 * MPICH in MPI_Pack_size. Both report to `comm`, which returns errors.
 */
bool ftc_type_is_committed(MPI_Datatype type, MPI_Comm comm)
{
#ifdef OPEN_MPI
    return MPI_Send(NULL, 0, type, MPI_PROC_NULL, 0, comm) == MPI_SUCCESS;
#else
    int packed_size;
    return MPI_Pack_size(1, type, comm, &packed_size) == MPI_SUCCESS;
#endif
}

/* Bytes can be copied as they are: both layouts dense, and the same type or
 * both predefined (a dense derived type may list its elements out of order). */
static bool byte_copy_is_exact(MPI_Datatype stype, bool scontiguous, MPI_Datatype rtype,
                               bool rcontiguous)
{
    if (!scontiguous || !rcontiguous)
        return false;
    return stype == rtype || (ftc_type_is_predefined(stype) && ftc_type_is_predefined(rtype));
}

int ftc_typed_copy(const void *src, int scount, MPI_Datatype stype, bool scontiguous,
                   void *dst, int rcount, MPI_Datatype rtype, bool rcontiguous, MPI_Comm comm)
{
    int size;
    int rc = MPI_Type_size(rtype, &size);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "cannot read the size of the receive type");
    const size_t bytes = (size_t)size * (size_t)rcount;
    if (bytes == 0 || src == dst)
        return MPI_SUCCESS;
    if (byte_copy_is_exact(stype, scontiguous, rtype, rcontiguous)) {
        memmove(dst, src, bytes);
        return MPI_SUCCESS;
    }
    /* Through MPI's packed form: it walks both layouts and leaves gaps alone. */
    int packed_size;
    rc = MPI_Pack_size(scount, stype, comm, &packed_size);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "cannot size a packed copy");
    if (packed_size < 0)
        return too_large_to_pack();
    char *packed = malloc(packed_size > 0 ? (size_t)packed_size : 1);
    if (!packed)
        return ftc_fail(MPI_ERR_NO_MEM, "cannot allocate %d bytes to copy a block", packed_size);
    int position = 0;
    rc = MPI_Pack(src, scount, stype, packed, packed_size, &position, comm);
    if (rc == MPI_SUCCESS) {
        int in = 0;
        rc = MPI_Unpack(packed, position, &in, dst, rcount, rtype, comm);
    }
    free(packed);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : ftc_fail_mpi(rc, "local block copy failed");
}

int ftc_pack_block(const void *from, int count, MPI_Datatype type, bool dense, void *into,
                   size_t bytes, MPI_Comm comm)
{
    if (dense) {
        if (bytes > 0)
            memcpy(into, from, bytes);
        return MPI_SUCCESS;
    }
    int position = 0;
    return MPI_Pack(from, count, type, into, (int)bytes, &position, comm);
}

int ftc_unpack_block(const void *from, size_t bytes, void *to, int count, MPI_Datatype type,
                     bool dense, MPI_Comm comm)
{
    if (dense) {
        if (bytes > 0)
            memcpy(to, from, bytes);
        return MPI_SUCCESS;
    }
    int position = 0;
    return MPI_Unpack(from, (int)bytes, &position, to, count, type, comm);
}
