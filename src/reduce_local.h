/*
 * Local reductions: inout = in op inout, element by element, as
 * MPI_Reduce_local computes it (in the left operand, for ops that are not
 * commutative).
 *
 * Why not always MPI_Reduce_local: on a short vector its argument checks
 * and dispatch cost more than the combining itself (about 130 instructions
 * a call in Open MPI 5, where a collective of a few bytes at p = 2 costs
 * 1300 natively), and every reducing collective combines at least once a
 * call. So short vectors of the everyday predefined pairs are combined
 * here, with the same arithmetic MPI uses, so that a result's bits never
 * depend on where it was combined; longer vectors, whose combining MPI's
 * vector loops do faster, and every other pair go to MPI_Reduce_local:
 * user ops, MAXLOC and MINLOC, the logical ops, MIN and MAX of floating
 * point types (MPIs order NaNs and signed zeros differently) and of
 * unsigned ones (MPICH 4.0 orders them as signed).
 *
 * Combined here, for count <= FTC_REDUCE_LOCAL_INLINE_MAX:
 *   MPI_INT, MPI_LONG, MPI_LONG_LONG, MPI_INT32_T, MPI_INT64_T with
 *   MPI_SUM, MPI_PROD (both wrapping, as two's complement hardware does),
 *   MPI_MIN, MPI_MAX, MPI_BAND, MPI_BOR, MPI_BXOR;
 *   MPI_UNSIGNED, MPI_UNSIGNED_LONG, MPI_UNSIGNED_LONG_LONG, MPI_UINT32_T,
 *   MPI_UINT64_T with the same but MPI_MIN and MPI_MAX;
 *   MPI_FLOAT, MPI_DOUBLE with MPI_SUM, MPI_PROD (IEEE addition and
 *   multiplication commute: the bits are MPI's whichever operand comes
 *   first).
 */
#ifndef FTCOLL_REDUCE_LOCAL_H
#define FTCOLL_REDUCE_LOCAL_H

#include <mpi.h>

enum { FTC_REDUCE_LOCAL_INLINE_MAX = 64 };

/* inout = in op inout over `count` elements; MPI_SUCCESS or what
 * MPI_Reduce_local returned. */
int ftc_reduce_local(const void *in, void *inout, int count, MPI_Datatype type, MPI_Op op);

#endif
