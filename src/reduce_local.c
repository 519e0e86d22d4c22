/* Local reductions: short vectors of everyday pairs here, the rest MPI's (reduce_local.h). */
#include <stdbool.h>
#include <stdint.h>

#include "reduce_local.h"

_Static_assert(sizeof(int) == 4 && sizeof(unsigned) == 4, "MPI_INT, MPI_UNSIGNED: 32 bits");
_Static_assert(sizeof(long long) == 8, "MPI_LONG_LONG: 64 bits");
_Static_assert(sizeof(long) == 4 || sizeof(long) == 8, "MPI_LONG: 32 or 64 bits");

typedef enum { NOT_HERE, INT32, UINT32, INT64, UINT64, FLOAT, DOUBLE } element_kind;
typedef enum { SUM, PROD, MIN, MAX, BAND, BOR, BXOR, NO_OP } op_kind;

static element_kind element_of(MPI_Datatype type)
{
    if (type == MPI_INT || type == MPI_INT32_T)
        return INT32;
    if (type == MPI_DOUBLE)
        return DOUBLE;
    if (type == MPI_FLOAT)
        return FLOAT;
    if (type == MPI_LONG)
        return sizeof(long) == 8 ? INT64 : INT32;
    if (type == MPI_LONG_LONG || type == MPI_INT64_T)
        return INT64;
    if (type == MPI_UNSIGNED || type == MPI_UINT32_T)
        return UINT32;
    if (type == MPI_UNSIGNED_LONG)
        return sizeof(unsigned long) == 8 ? UINT64 : UINT32;
    if (type == MPI_UNSIGNED_LONG_LONG || type == MPI_UINT64_T)
        return UINT64;
    return NOT_HERE;
}

static op_kind op_of(MPI_Op op)
{
    if (op == MPI_SUM)
        return SUM;
    if (op == MPI_MAX)
        return MAX;
    if (op == MPI_MIN)
        return MIN;
    if (op == MPI_PROD)
        return PROD;
    if (op == MPI_BAND)
        return BAND;
    if (op == MPI_BOR)
        return BOR;
    if (op == MPI_BXOR)
        return BXOR;
    return NO_OP;
}

/* Integers: the sum and product in the unsigned type of the same width,
 * which wraps as two's complement hardware does (in the signed type an
 * overflow is undefined); MIN and MAX in the type itself, where ORDERED. */
#define COMBINE_INTEGERS(name, T, U, ORDERED)                                                  \
    static bool name(const T *in, T *inout, int n, op_kind op)                                 \
    {                                                                                          \
        switch (op) {                                                                          \
        case SUM:                                                                              \
            for (int i = 0; i < n; i++)                                                        \
                inout[i] = (T)((U)in[i] + (U)inout[i]);                                        \
            return true;                                                                       \
        case PROD:                                                                             \
            for (int i = 0; i < n; i++)                                                        \
                inout[i] = (T)((U)in[i] * (U)inout[i]);                                        \
            return true;                                                                       \
        case MIN:                                                                              \
            if (!(ORDERED))                                                                    \
                return false;                                                                  \
            for (int i = 0; i < n; i++)                                                        \
                inout[i] = in[i] < inout[i] ? in[i] : inout[i];                                \
            return true;                                                                       \
        case MAX:                                                                              \
            if (!(ORDERED))                                                                    \
                return false;                                                                  \
            for (int i = 0; i < n; i++)                                                        \
                inout[i] = in[i] > inout[i] ? in[i] : inout[i];                                \
            return true;                                                                       \
        case BAND:                                                                             \
            for (int i = 0; i < n; i++)                                                        \
                inout[i] = (T)((U)in[i] & (U)inout[i]);                                        \
            return true;                                                                       \
        case BOR:                                                                              \
            for (int i = 0; i < n; i++)                                                        \
                inout[i] = (T)((U)in[i] | (U)inout[i]);                                        \
            return true;                                                                       \
        case BXOR:                                                                             \
            for (int i = 0; i < n; i++)                                                        \
                inout[i] = (T)((U)in[i] ^ (U)inout[i]);                                        \
            return true;                                                                       \
        case NO_OP:                                                                            \
            break;                                                                             \
        }                                                                                      \
        return false;                                                                          \
    }

/* Floating point: the sum and product only (see reduce_local.h). */
#define COMBINE_FLOATING(name, T)                                                              \
    static bool name(const T *in, T *inout, int n, op_kind op)                                 \
    {                                                                                          \
        if (op == SUM) {                                                                       \
            for (int i = 0; i < n; i++)   /* Open MPI's order: with two NaNs, inout's */     \
                inout[i] = inout[i] + in[i];                                                   \
            return true;                                                                       \
        }                                                                                      \
        if (op == PROD) {                                                                      \
            for (int i = 0; i < n; i++)                                                        \
                inout[i] = inout[i] * in[i];                                                   \
            return true;                                                                       \
        }                                                                                      \
        return false;                                                                          \
    }

/* Unsigned MIN and MAX stay MPI's: MPICH 4.0 orders them as signed, and a
 * result's bits must not depend on where it was combined. */
COMBINE_INTEGERS(combine_int32, int32_t, uint32_t, true)
COMBINE_INTEGERS(combine_uint32, uint32_t, uint32_t, false)
COMBINE_INTEGERS(combine_int64, int64_t, uint64_t, true)
COMBINE_INTEGERS(combine_uint64, uint64_t, uint64_t, false)
COMBINE_FLOATING(combine_float, float)
COMBINE_FLOATING(combine_double, double)

/* Whether the pair is combined here (then it is done). */
static bool combined_here(const void *in, void *inout, int count, MPI_Datatype type, MPI_Op op)
{
    const op_kind o = op_of(op);
    if (o == NO_OP)
        return false;
    switch (element_of(type)) {
    case INT32:  return combine_int32(in, inout, count, o);
    case UINT32: return combine_uint32(in, inout, count, o);
    case INT64:  return combine_int64(in, inout, count, o);
    case UINT64: return combine_uint64(in, inout, count, o);
    case FLOAT:  return combine_float(in, inout, count, o);
    case DOUBLE: return combine_double(in, inout, count, o);
    case NOT_HERE: break;
    }
    return false;
}

int ftc_reduce_local(const void *in, void *inout, int count, MPI_Datatype type, MPI_Op op)
{
    if (count >= 0 && count <= FTC_REDUCE_LOCAL_INLINE_MAX &&
        combined_here(in, inout, count, type, op))
        return MPI_SUCCESS;
    return MPI_Reduce_local(in, inout, count, type, op);
}
