/*
 * ftc_allreduce against MPI's definition of allreduce, every element checked
 * on every rank.
 *
 * Run once per process count (tests/mpi/MpiTests.cmake). The expected result
 * is computed by the test, never by ftcoll or an MPI reduction: every rank's
 * input is a pure function of (rank, element, case), so each rank
 * regenerates all inputs and reduces them in C, in the element type (for
 * large counts the ranks share that work and swap the slices with a plain
 * MPI_Allgatherv). Inputs are chosen so that every result is exact whatever
 * the order of the reduction (small integers, integer-valued or power-of-two
 * floats, full-width bit patterns for MIN/MAX and the bitwise ops), so one
 * correct answer exists and is compared exactly:
 *
 *  - every predefined op on every predefined type it is defined for (MPI 4.0,
 *    6.9.2), count 7, with and without MPI_IN_PLACE;
 *  - counts 0 and 1 on one type of each kind, and a large count (--large)
 *    for a few ops;
 *  - logical ops compare truth values (a single rank's input comes back
 *    unchanged, so "true" is any non-zero value), on inputs 1, 2 and 4
 *    whose bitwise AND is 0;
 *  - MAXLOC/MINLOC with frequent ties (the smaller index must win);
 *  - user-defined commutative ops;
 *  - guard bytes around every receive buffer, and the send buffer, must come
 *    back unchanged.
 *
 * Where rounding makes the result depend on the order of the operands
 * (float/double SUM and PROD of non-integers) or a commutative user op is
 * not bitwise symmetric, the header promises bitwise-identical results on
 * all ranks: every rank's result is gathered to rank 0 and compared byte for
 * byte (and checked against an error bound).
 *
 * Then: argument errors (detected locally, on every rank alike) and a call
 * that works after them; calls interleaved with ftc_allgather on the same
 * ftc_comm_t and with user traffic on MPI_COMM_WORLD; a sub-communicator
 * whose ranks are numbered in reverse.
 *
 * Usage: test_allreduce [--large N] [--lean]
 *   --large N  element count of the large cases (default 256 Ki + 3; 0: none)
 *   --lean     each (type, op) pair once at count 7, not twice (slow MPIs)
 * Exit status 0 when every element on every rank matched.
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "ftcoll.h"
#include "harness.h"

enum { GUARD = 64 };                  /* bytes watched before and after every buffer */
enum { MAX_REPORTED_MISMATCHES = 8 }; /* per rank: the first ones say it all */
enum { DEFAULT_LARGE = 256 * 1024 + 3 };

/* ---- the harness's own failures: not ftcoll's, so stop at once ----------- */

/* die, checked_malloc, mpi_or_die: harness.h */

/* ---- ops ------------------------------------------------------------------------ */

typedef enum {
    OP_SUM, OP_PROD, OP_MIN, OP_MAX,
    OP_BAND, OP_BOR, OP_BXOR,
    OP_LAND, OP_LOR, OP_LXOR,
    OP_MAXLOC, OP_MINLOC,
    OP_USER_MAX,          /* user-defined, commutative: elementwise max of ints */
    OP_COUNT
} op_id;

#define OP_BIT(op) (1u << (op))
#define ARITHMETIC_OPS (OP_BIT(OP_SUM) | OP_BIT(OP_PROD))
#define ORDER_OPS (OP_BIT(OP_MIN) | OP_BIT(OP_MAX))
#define BITWISE_OPS (OP_BIT(OP_BAND) | OP_BIT(OP_BOR) | OP_BIT(OP_BXOR))
#define LOGICAL_OPS (OP_BIT(OP_LAND) | OP_BIT(OP_LOR) | OP_BIT(OP_LXOR))
#define LOC_OPS (OP_BIT(OP_MAXLOC) | OP_BIT(OP_MINLOC))
/* MPI 4.0, 6.9.2: which op is defined on which group of types. */
#define C_INTEGER_OPS (ARITHMETIC_OPS | ORDER_OPS | BITWISE_OPS | LOGICAL_OPS)
#define MULTI_LANGUAGE_OPS (ARITHMETIC_OPS | ORDER_OPS | BITWISE_OPS) /* MPI_AINT, ... */
#define FLOATING_OPS (ARITHMETIC_OPS | ORDER_OPS)
#define COMPLEX_OPS ARITHMETIC_OPS

static const char *const op_names[OP_COUNT] = {
    "MPI_SUM", "MPI_PROD", "MPI_MIN", "MPI_MAX", "MPI_BAND", "MPI_BOR", "MPI_BXOR",
    "MPI_LAND", "MPI_LOR", "MPI_LXOR", "MPI_MAXLOC", "MPI_MINLOC", "user max (commutative)",
};

static MPI_Op user_max_op = MPI_OP_NULL;
static MPI_Op user_first_max_op = MPI_OP_NULL;
static long user_op_wrong_type = 0;   /* calls of a user op with another datatype */

static MPI_Op mpi_op(op_id op)
{
    switch (op) {
    case OP_SUM: return MPI_SUM;
    case OP_PROD: return MPI_PROD;
    case OP_MIN: return MPI_MIN;
    case OP_MAX: return MPI_MAX;
    case OP_BAND: return MPI_BAND;
    case OP_BOR: return MPI_BOR;
    case OP_BXOR: return MPI_BXOR;
    case OP_LAND: return MPI_LAND;
    case OP_LOR: return MPI_LOR;
    case OP_LXOR: return MPI_LXOR;
    case OP_MAXLOC: return MPI_MAXLOC;
    case OP_MINLOC: return MPI_MINLOC;
    case OP_USER_MAX: return user_max_op;
    case OP_COUNT: break;
    }
    die("unknown op");
    return MPI_OP_NULL;
}

static bool is_logical(op_id op)
{
    return (OP_BIT(op) & LOGICAL_OPS) != 0;
}

/* Ops whose result is exact for any input: inputs use every bit of the type. */
static bool uses_all_bits(op_id op)
{
    return (OP_BIT(op) & (ORDER_OPS | BITWISE_OPS)) != 0 || op == OP_USER_MAX;
}

static void user_max(void *in, void *inout, int *len, MPI_Datatype *type)
{
    if (*type != MPI_INT)
        user_op_wrong_type++;
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < *len; i++)
        if (a[i] > b[i])
            b[i] = a[i];
}

/* {value, origin} pairs (MPI_2INT): the larger value wins; on a tie inout
 * keeps its own origin. Commutative as far as the values go, but which
 * origin survives depends on the order of the operands: the header's
 * promise of bitwise-identical results on all ranks is what fixes it. */
typedef struct {
    int value, origin;
} tagged;

static void user_first_max(void *in, void *inout, int *len, MPI_Datatype *type)
{
    if (*type != MPI_2INT)
        user_op_wrong_type++;
    const tagged *a = in;
    tagged *b = inout;
    for (int i = 0; i < *len; i++)
        if (a[i].value > b[i].value)
            b[i] = a[i];
}

/* ---- the data pattern ------------------------------------------------------ */

/* murmur3's finaliser: neighbouring inputs give unrelated outputs. */
static uint32_t mix32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    x *= 0xC2B2AE35u;
    x ^= x >> 16;
    return x;
}

static uint32_t hash4(int rank, size_t element, unsigned salt, unsigned stream)
{
    return mix32(mix32((uint32_t)rank * 0x9E3779B9u + (uint32_t)element * 0x7FEB352Du + 1u)
                 ^ (salt * 0x846CA68Bu + stream * 0x27D4EB2Fu));
}

/* `n` (at most 8) bytes of a full-width pattern: any bit pattern is a value of
 * an integer type (two's complement, no padding bits). */
static uint64_t random_u64(int rank, size_t element, unsigned salt)
{
    return (uint64_t)hash4(rank, element, salt, 1) << 32 | hash4(rank, element, salt, 2);
}

static void random_bytes(void *dst, size_t n, int rank, size_t element, unsigned salt)
{
    const uint64_t h = random_u64(rank, element, salt);
    unsigned char b[8];
    for (int k = 0; k < 8; k++)
        b[k] = (unsigned char)(h >> (8 * k));
    memcpy(dst, b, n);
}

/* PROD: a factor 2 on few enough ranks (at most 4 of 16 per element) that
 * every product fits in 8 bits. */
static bool factor_two(int rank, size_t element, unsigned salt)
{
    return rank < 16 && ((size_t)rank + element + salt) % 5 == 0;
}

/*
 * Truth values of the logical ops, chosen per element (and case) so that
 * every outcome occurs: everybody true, everybody false, all but one rank
 * true, one rank true. True inputs are 1, 2 or 4: a bitwise AND of two
 * different ones is 0, so a logical op done bitwise shows.
 */
static long long truth_input(int rank, int p, size_t element, unsigned salt)
{
    const int special = (int)((element / 4 + salt) % (unsigned)p);
    bool truth = false;
    switch ((element + salt) % 4) {
    case 0: truth = true; break;
    case 1: truth = false; break;
    case 2: truth = rank != special; break;
    case 3: truth = rank == special; break;
    }
    return truth ? 1ll << ((size_t)rank + element) % 3 : 0;
}

/* Inputs of integer types for the ops that are not given every bit. */
static long long small_integer(op_id op, bool is_signed, int rank, int p, size_t element,
                               unsigned salt)
{
    const uint32_t h = hash4(rank, element, salt, (unsigned)op);
    switch (op) {
    case OP_SUM:   /* |sum| <= 3p, or 6p: fits 8 bits for p <= 16 (and 21) */
        return is_signed ? (long long)(h % 7u) - 3 : (long long)(h % 7u);
    case OP_PROD:
        if (factor_two(rank, element, salt))
            return 2;
        return is_signed && h % 3u == 0 ? -1 : 1;
    case OP_LAND:
    case OP_LOR:
    case OP_LXOR:
        return truth_input(rank, p, element, salt);
    default:
        die("small_integer: op takes full-width inputs");
        return 0;
    }
}

/* ---- one set of functions per C type ---------------------------------------
 *
 * value(op, rank, p, element, salt): rank's input;  combine(op, a, b): the op
 * in the C type; fill: a rank's buffer; expect: the result for elements
 * [first, first + n), reduced over all ranks in rank order; differs: compares
 * one element and says how. */

#define DEFINE_COMMON(NAME, T)                                                              \
    static void NAME##_fill(void *buf, size_t n, op_id op, int rank, int p, unsigned salt)  \
    {                                                                                       \
        T *out = buf;                                                                       \
        for (size_t i = 0; i < n; i++)                                                      \
            NAME##_store(&out[i], NAME##_value(op, rank, p, i, salt));                      \
    }                                                                                       \
    static void NAME##_expect(void *buf, size_t first, size_t n, op_id op, int p,           \
                              unsigned salt)                                                \
    {                                                                                       \
        T *out = buf;                                                                       \
        for (size_t i = 0; i < n; i++) {                                                    \
            T acc = NAME##_value(op, 0, p, first + i, salt);                                \
            for (int r = 1; r < p; r++)                                                     \
                acc = NAME##_combine(op, acc, NAME##_value(op, r, p, first + i, salt));     \
            out[i] = acc;                                                                   \
        }                                                                                   \
    }

/* NONNEGATIVE_ORDER: MIN/MAX inputs are non-negative (full width otherwise). */
#define DEFINE_INTEGER_X(NAME, T, IS_SIGNED, NONNEGATIVE_ORDER)                             \
    typedef T NAME##_type;                                                                  \
    static void NAME##_store(T *dst, T x) { *dst = x; }                                     \
    static T NAME##_value(op_id op, int rank, int p, size_t i, unsigned salt)               \
    {                                                                                       \
        if (NONNEGATIVE_ORDER && (op == OP_MIN || op == OP_MAX))                            \
            return (T)(random_u64(rank, i, salt) >> (65 - 8 * sizeof(T)));                  \
        if (uses_all_bits(op)) {                                                            \
            T v;                                                                            \
            random_bytes(&v, sizeof(v), rank, i, salt);                                     \
            return v;                                                                       \
        }                                                                                   \
        return (T)small_integer(op, IS_SIGNED, rank, p, i, salt);                           \
    }                                                                                       \
    static T NAME##_combine(op_id op, T a, T b)                                             \
    {                                                                                       \
        switch (op) {                                                                       \
        case OP_SUM: return (T)(a + b);                                                     \
        case OP_PROD: return (T)(a * b);                                                    \
        case OP_MIN: return b < a ? b : a;                                                  \
        case OP_MAX:                                                                        \
        case OP_USER_MAX: return b > a ? b : a;                                             \
        case OP_BAND: return (T)(a & b);                                                    \
        case OP_BOR: return (T)(a | b);                                                     \
        case OP_BXOR: return (T)(a ^ b);                                                    \
        case OP_LAND: return (T)(a && b);                                                   \
        case OP_LOR: return (T)(a || b);                                                    \
        case OP_LXOR: return (T)(!a != !b);                                                 \
        default: die("integer op"); return a;                                               \
        }                                                                                   \
    }                                                                                       \
    DEFINE_COMMON(NAME, T)                                                                  \
    static bool NAME##_differs(const void *got, const void *want, size_t i, op_id op,       \
                               char *text, size_t len)                                      \
    {                                                                                       \
        const T g = ((const T *)got)[i], w = ((const T *)want)[i];                          \
        const bool logical = is_logical(op);                                                \
        if (logical ? (!g == !w) : (g == w))                                                \
            return false;                                                                   \
        if (IS_SIGNED)                                                                      \
            snprintf(text, len, "got %lld, expected %lld%s", (long long)g, (long long)w,    \
                     logical ? " (as truth values)" : "");                                  \
        else                                                                                \
            snprintf(text, len, "got %llu, expected %llu%s", (unsigned long long)g,         \
                     (unsigned long long)w, logical ? " (as truth values)" : "");           \
        return true;                                                                        \
    }

#define DEFINE_INTEGER(NAME, T, IS_SIGNED) DEFINE_INTEGER_X(NAME, T, IS_SIGNED, 0)

/*
 * MIN/MAX bugs of the MPI libraries themselves (MPI_Allreduce and
 * MPI_Reduce_local alike), not ftcoll's: for these types the inputs of
 * MIN/MAX stay below 2^(bits - 1), where signed and unsigned order agree.
 *  - Open MPI 5.0.7 orders MPI_OFFSET as unsigned: MIN(-5, 7) is 7.
 *  - MPICH 4.0.2 (Debian) orders every unsigned type as signed (MPI_UINT8_T
 *    to MPI_UNSIGNED_LONG_LONG): MIN(1, 244) is 244 on MPI_UNSIGNED_CHAR,
 *    MIN(1, 4000000000) is 4000000000 on MPI_UINT32_T.
 */
#ifdef OPEN_MPI
#define OFFSET_NONNEGATIVE_ORDER 1
#else
#define OFFSET_NONNEGATIVE_ORDER 0
#endif
#ifdef MPICH_VERSION
#define UNSIGNED_NONNEGATIVE_ORDER 1
#else
#define UNSIGNED_NONNEGATIVE_ORDER 0
#endif
#define DEFINE_UNSIGNED(NAME, T) DEFINE_INTEGER_X(NAME, T, 0, UNSIGNED_NONNEGATIVE_ORDER)

/* Floating point: SUM of integers and halves, PROD of 1, -1, 2 and 0.5 (all
 * exact); MIN/MAX of arbitrary values. */
#define DEFINE_FLOATING(NAME, T, FMT)                                                       \
    typedef T NAME##_type;                                                                  \
    static void NAME##_store(T *dst, T x) { *dst = x; }                                     \
    static T NAME##_value(op_id op, int rank, int p, size_t i, unsigned salt)               \
    {                                                                                       \
        (void)p;                                                                            \
        const uint32_t h = hash4(rank, i, salt, (unsigned)op);                              \
        switch (op) {                                                                       \
        case OP_SUM: return (T)((double)((int)(h % 2001u) - 1000) * 0.5);                   \
        case OP_PROD: {                                                                     \
            static const double factors[3] = { 1.0, -1.0, 0.5 };                            \
            return (T)(factor_two(rank, i, salt) ? 2.0 : factors[h % 3u]);                  \
        }                                                                                   \
        default: return (T)(((double)h - 2147483648.0) / 256.0);                            \
        }                                                                                   \
    }                                                                                       \
    static T NAME##_combine(op_id op, T a, T b)                                             \
    {                                                                                       \
        switch (op) {                                                                       \
        case OP_SUM: return a + b;                                                          \
        case OP_PROD: return a * b;                                                         \
        case OP_MIN: return b < a ? b : a;                                                  \
        case OP_MAX: return b > a ? b : a;                                                  \
        default: die("floating op"); return a;                                              \
        }                                                                                   \
    }                                                                                       \
    DEFINE_COMMON(NAME, T)                                                                  \
    static bool NAME##_differs(const void *got, const void *want, size_t i, op_id op,       \
                               char *text, size_t len)                                      \
    {                                                                                       \
        (void)op;                                                                           \
        T g, w;                                                                             \
        memcpy(&g, (const unsigned char *)got + i * sizeof(T), sizeof(T));                  \
        memcpy(&w, (const unsigned char *)want + i * sizeof(T), sizeof(T));                 \
        if (g == w)                                                                         \
            return false;                                                                   \
        snprintf(text, len, "got " FMT ", expected " FMT, g, w);                            \
        return true;                                                                        \
    }

/* Complex: SUM of Gaussian integers; PROD of 1, -1, i, -i and (on few ranks)
 * 1 + i. Built from its two parts (C11 lays a complex out as RT[2]). */
#define DEFINE_COMPLEX(NAME, T, RT, FMT)                                                    \
    typedef T NAME##_type;                                                                  \
    static void NAME##_store(T *dst, T x) { *dst = x; }                                     \
    static T NAME##_value(op_id op, int rank, int p, size_t i, unsigned salt)               \
    {                                                                                       \
        (void)p;                                                                            \
        const uint32_t h = hash4(rank, i, salt, (unsigned)op);                              \
        RT parts[2];                                                                        \
        if (op == OP_SUM) {                                                                 \
            parts[0] = (RT)((int)(h % 201u) - 100);                                         \
            parts[1] = (RT)((int)((h >> 8) % 201u) - 100);                                  \
        } else if (factor_two(rank, i, salt)) {                                             \
            parts[0] = 1;                                                                   \
            parts[1] = 1;                                                                   \
        } else {                                                                            \
            static const int units[4][2] = { { 1, 0 }, { -1, 0 }, { 0, 1 }, { 0, -1 } };    \
            parts[0] = (RT)units[h % 4u][0];                                                \
            parts[1] = (RT)units[h % 4u][1];                                                \
        }                                                                                   \
        T v;                                                                                \
        memcpy(&v, parts, sizeof(v));                                                       \
        return v;                                                                           \
    }                                                                                       \
    static T NAME##_combine(op_id op, T a, T b)                                             \
    {                                                                                       \
        return op == OP_SUM ? a + b : a * b;                                                \
    }                                                                                       \
    DEFINE_COMMON(NAME, T)                                                                  \
    static bool NAME##_differs(const void *got, const void *want, size_t i, op_id op,       \
                               char *text, size_t len)                                      \
    {                                                                                       \
        (void)op;                                                                           \
        RT g[2], w[2];                                                                      \
        memcpy(g, (const unsigned char *)got + i * sizeof(T), sizeof(g));                   \
        memcpy(w, (const unsigned char *)want + i * sizeof(T), sizeof(w));                  \
        if (g[0] == w[0] && g[1] == w[1])                                                   \
            return false;                                                                   \
        snprintf(text, len, "got " FMT " + " FMT "i, expected " FMT " + " FMT "i", g[0],    \
                 g[1], w[0], w[1]);                                                         \
        return true;                                                                        \
    }

/* The pair types of MAXLOC/MINLOC (C structs {value; int}): 5 values across
 * the whole range of the value type, so ties are frequent, and indices that
 * do not follow the rank order. */
#define DEFINE_PAIR(NAME, VT, SCALE)                                                        \
    typedef struct {                                                                        \
        VT v;                                                                               \
        int k;                                                                              \
    } NAME##_type;                                                                          \
    /* Field by field: the padding keeps the buffer's defined bytes. */                     \
    static void NAME##_store(NAME##_type *dst, NAME##_type x)                               \
    {                                                                                       \
        dst->v = x.v;                                                                       \
        dst->k = x.k;                                                                       \
    }                                                                                       \
    static NAME##_type NAME##_value(op_id op, int rank, int p, size_t i, unsigned salt)     \
    {                                                                                       \
        (void)p;                                                                            \
        const uint32_t h = hash4(rank, i, salt, (unsigned)op);                              \
        NAME##_type x;                                                                      \
        memset(&x, 0, sizeof(x));                                                           \
        x.v = (VT)(((int)(h % 5u) - 2) * (SCALE));                                          \
        x.k = (int)((h >> 8) % 97u) - 40;                                                   \
        return x;                                                                           \
    }                                                                                       \
    static NAME##_type NAME##_combine(op_id op, NAME##_type a, NAME##_type b)               \
    {                                                                                       \
        const bool max = op == OP_MAXLOC;                                                   \
        if (a.v == b.v) {                                                                   \
            a.k = b.k < a.k ? b.k : a.k;                                                    \
            return a;                                                                       \
        }                                                                                   \
        return (max ? b.v > a.v : b.v < a.v) ? b : a;                                       \
    }                                                                                       \
    DEFINE_COMMON(NAME, NAME##_type)                                                        \
    static bool NAME##_differs(const void *got, const void *want, size_t i, op_id op,       \
                               char *text, size_t len)                                      \
    {                                                                                       \
        (void)op;                                                                           \
        const NAME##_type g = ((const NAME##_type *)got)[i];                                \
        const NAME##_type w = ((const NAME##_type *)want)[i];                               \
        if (g.v == w.v && g.k == w.k)                                                       \
            return false;                                                                   \
        snprintf(text, len, "got (%.21Lg, %d), expected (%.21Lg, %d)", (long double)g.v,    \
                 g.k, (long double)w.v, w.k);                                               \
        return true;                                                                        \
    }

DEFINE_INTEGER(t_schar, signed char, 1)
DEFINE_UNSIGNED(t_uchar, unsigned char)
DEFINE_INTEGER(t_short, short, 1)
DEFINE_UNSIGNED(t_ushort, unsigned short)
DEFINE_INTEGER(t_int, int, 1)
DEFINE_UNSIGNED(t_uint, unsigned)
DEFINE_INTEGER(t_long, long, 1)
DEFINE_UNSIGNED(t_ulong, unsigned long)
DEFINE_INTEGER(t_llong, long long, 1)
DEFINE_UNSIGNED(t_ullong, unsigned long long)
DEFINE_INTEGER(t_int8, int8_t, 1)
DEFINE_INTEGER(t_int16, int16_t, 1)
DEFINE_INTEGER(t_int32, int32_t, 1)
DEFINE_INTEGER(t_int64, int64_t, 1)
DEFINE_UNSIGNED(t_uint8, uint8_t)
DEFINE_UNSIGNED(t_uint16, uint16_t)
DEFINE_UNSIGNED(t_uint32, uint32_t)
DEFINE_UNSIGNED(t_uint64, uint64_t)
DEFINE_INTEGER(t_aint, MPI_Aint, 1)
DEFINE_INTEGER_X(t_offset, MPI_Offset, 1, OFFSET_NONNEGATIVE_ORDER)
DEFINE_INTEGER(t_count, MPI_Count, 1)
DEFINE_INTEGER(t_byte, unsigned char, 0)

/* MPI_C_BOOL: the logical ops only. */
typedef bool t_bool_type;
static void t_bool_store(bool *dst, bool x)
{
    *dst = x;
}
static bool t_bool_value(op_id op, int rank, int p, size_t i, unsigned salt)
{
    (void)op;
    return truth_input(rank, p, i, salt) != 0;
}
static bool t_bool_combine(op_id op, bool a, bool b)
{
    switch (op) {
    case OP_LAND: return a && b;
    case OP_LOR: return a || b;
    case OP_LXOR: return a != b;
    default: die("bool op"); return a;
    }
}
DEFINE_COMMON(t_bool, bool)
static bool t_bool_differs(const void *got, const void *want, size_t i, op_id op, char *text,
                           size_t len)
{
    (void)op;
    unsigned char g, w;   /* read as bytes: a broken result may be no valid bool */
    memcpy(&g, (const unsigned char *)got + i, 1);
    memcpy(&w, (const unsigned char *)want + i, 1);
    if (g == w)
        return false;
    snprintf(text, len, "got byte %u, expected %u", g, w);
    return true;
}

DEFINE_FLOATING(t_float, float, "%.9g")
DEFINE_FLOATING(t_double, double, "%.17g")
DEFINE_FLOATING(t_ldouble, long double, "%.21Lg")
DEFINE_COMPLEX(t_cfloat, float _Complex, float, "%.9g")
DEFINE_COMPLEX(t_cdouble, double _Complex, double, "%.17g")
DEFINE_COMPLEX(t_cldouble, long double _Complex, long double, "%.21Lg")
DEFINE_PAIR(t_float_int, float, 1.5f)
DEFINE_PAIR(t_double_int, double, 1.25)
DEFINE_PAIR(t_long_int, long, LONG_MAX / 4)
DEFINE_PAIR(t_2int, int, INT_MAX / 4)
DEFINE_PAIR(t_short_int, short, SHRT_MAX / 4)
DEFINE_PAIR(t_ldouble_int, long double, 0.75L)

typedef struct {
    MPI_Datatype type;
    const char *name;
    size_t size;             /* sizeof the C type: MPI's extent of the type */
    unsigned ops;            /* OP_BIT()s of the ops defined on it */
    bool representative;     /* also run at counts 0 and 1 */
    void (*fill)(void *buf, size_t n, op_id op, int rank, int p, unsigned salt);
    void (*expect)(void *buf, size_t first, size_t n, op_id op, int p, unsigned salt);
    bool (*differs)(const void *got, const void *want, size_t i, op_id op, char *text,
                    size_t len);
} type_handler;

#define HANDLER(mpi_type, NAME, OPS, REPRESENTATIVE)                                        \
    { mpi_type, #mpi_type, sizeof(NAME##_type), OPS, REPRESENTATIVE, NAME##_fill,           \
      NAME##_expect, NAME##_differs }

static const type_handler types[] = {
    HANDLER(MPI_SIGNED_CHAR, t_schar, C_INTEGER_OPS, false),
    HANDLER(MPI_UNSIGNED_CHAR, t_uchar, C_INTEGER_OPS, true),
    HANDLER(MPI_SHORT, t_short, C_INTEGER_OPS, false),
    HANDLER(MPI_UNSIGNED_SHORT, t_ushort, C_INTEGER_OPS, false),
    HANDLER(MPI_INT, t_int, C_INTEGER_OPS | OP_BIT(OP_USER_MAX), true),
    HANDLER(MPI_UNSIGNED, t_uint, C_INTEGER_OPS, false),
    HANDLER(MPI_LONG, t_long, C_INTEGER_OPS, false),
    HANDLER(MPI_UNSIGNED_LONG, t_ulong, C_INTEGER_OPS, false),
    HANDLER(MPI_LONG_LONG, t_llong, C_INTEGER_OPS, false),
    HANDLER(MPI_UNSIGNED_LONG_LONG, t_ullong, C_INTEGER_OPS, false),
    HANDLER(MPI_INT8_T, t_int8, C_INTEGER_OPS, false),
    HANDLER(MPI_INT16_T, t_int16, C_INTEGER_OPS, false),
    HANDLER(MPI_INT32_T, t_int32, C_INTEGER_OPS, false),
    HANDLER(MPI_INT64_T, t_int64, C_INTEGER_OPS, true),
    HANDLER(MPI_UINT8_T, t_uint8, C_INTEGER_OPS, false),
    HANDLER(MPI_UINT16_T, t_uint16, C_INTEGER_OPS, false),
    HANDLER(MPI_UINT32_T, t_uint32, C_INTEGER_OPS, false),
    HANDLER(MPI_UINT64_T, t_uint64, C_INTEGER_OPS, false),
    HANDLER(MPI_AINT, t_aint, MULTI_LANGUAGE_OPS, false),
    HANDLER(MPI_OFFSET, t_offset, MULTI_LANGUAGE_OPS, false),
    HANDLER(MPI_COUNT, t_count, MULTI_LANGUAGE_OPS, false),
    HANDLER(MPI_BYTE, t_byte, BITWISE_OPS, true),
    HANDLER(MPI_C_BOOL, t_bool, LOGICAL_OPS, true),
    HANDLER(MPI_FLOAT, t_float, FLOATING_OPS, true),
    HANDLER(MPI_DOUBLE, t_double, FLOATING_OPS, true),
    HANDLER(MPI_LONG_DOUBLE, t_ldouble, FLOATING_OPS, false),
    HANDLER(MPI_C_FLOAT_COMPLEX, t_cfloat, COMPLEX_OPS, false),
    HANDLER(MPI_C_DOUBLE_COMPLEX, t_cdouble, COMPLEX_OPS, true),
    HANDLER(MPI_C_LONG_DOUBLE_COMPLEX, t_cldouble, COMPLEX_OPS, false),
    HANDLER(MPI_FLOAT_INT, t_float_int, LOC_OPS, false),
    HANDLER(MPI_DOUBLE_INT, t_double_int, LOC_OPS, true),
    HANDLER(MPI_LONG_INT, t_long_int, LOC_OPS, false),
    HANDLER(MPI_2INT, t_2int, LOC_OPS, true),
    HANDLER(MPI_SHORT_INT, t_short_int, LOC_OPS, false),
    HANDLER(MPI_LONG_DOUBLE_INT, t_ldouble_int, LOC_OPS, false),
};
#define N_TYPES (sizeof(types) / sizeof(types[0]))

static const type_handler *handler_of(MPI_Datatype type)
{
    for (size_t i = 0; i < N_TYPES; i++)
        if (types[i].type == type)
            return &types[i];
    die("datatype missing from types[]");
    return NULL;
}

/* The C layouts above must be MPI's: same size and extent. */
static void check_layouts(void)
{
    for (size_t i = 0; i < N_TYPES; i++) {
        MPI_Aint lb, extent;
        mpi_or_die(MPI_Type_get_extent(types[i].type, &lb, &extent), "MPI_Type_get_extent");
        if (lb != 0 || (size_t)extent != types[i].size) {
            fprintf(stderr, "%s: extent %ld, C size %zu\n", types[i].name, (long)extent,
                    types[i].size);
            die("a C type does not match its MPI datatype");
        }
    }
}

/* ---- buffers with guard zones --------------------------------------------- */

typedef struct {
    unsigned char *alloc;
    unsigned char *buf;   /* alloc + GUARD: what MPI is given */
    size_t bytes;
} region;

static unsigned char guard_byte(size_t index)
{
    return (unsigned char)(0xC0 + index % 13);
}

static region region_new(size_t bytes)
{
    region r = { checked_malloc(bytes + 2 * GUARD), NULL, bytes };
    r.buf = r.alloc + GUARD;
    for (size_t i = 0; i < bytes + 2 * GUARD; i++)
        r.alloc[i] = guard_byte(i);
    return r;
}

static void region_free(region *r)
{
    free(r->alloc);
    r->alloc = r->buf = NULL;
}

/* The first guard byte that changed, as an offset from buf; 0 if none (an
 * offset inside the buffer cannot be a guard byte). */
static long changed_guard(const region *r)
{
    for (size_t i = 0; i < GUARD; i++) {
        if (r->alloc[i] != guard_byte(i))
            return (long)i - GUARD;
        const size_t after = GUARD + r->bytes + i;
        if (r->alloc[after] != guard_byte(after))
            return (long)(r->bytes + i);
    }
    return 0;
}

/* ---- bookkeeping -------------------------------------------------------------- */

/* Where the calls run: an ftc_comm_t and the MPI communicator it was made
 * from (ranks, sizes and the gathers of the identity checks use that one). */
typedef struct {
    const char *label;
    MPI_Comm base;
    ftc_comm_t comm;
    int rank, p;
    long calls, failures;
} context;

static unsigned next_salt = 1;   /* a fresh data pattern per case, same on every rank */
static int reported_mismatches = 0;

static bool report_allowed(void)
{
    return reported_mismatches++ < MAX_REPORTED_MISMATCHES;
}

/* An error from ftc_allreduce may leave other ranks inside the collective:
 * report it and abort rather than hang. */
static void abort_on_error(int rc, const context *c, const char *call, const char *what,
                           int count)
{
    if (rc == MPI_SUCCESS)
        return;
    int error_class = rc;
    MPI_Error_class(rc, &error_class);
    fprintf(stderr, "FAIL rank %d of %d (%s): %s (%s, count %d) failed with error class %d: %s\n",
            c->rank, c->p, c->label, call, what, count, error_class, ftc_error_message());
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* ---- one case: a type, an op, a count, in place or not ------------------------ */

/* From this count on, the ranks share the work of computing the expected
 * result: each reduces p inputs for its slice of 1/p of the elements, and a
 * plain MPI_Allgatherv on the base communicator hands the slices round.
 * (Alone, every rank would generate p x count inputs: at p = 16 on two
 * cores, seconds per large case.) */
enum { SHARED_EXPECT_MIN_COUNT = 4096 };

static void expect_all(const context *c, const type_handler *t, unsigned char *expected,
                       size_t n, op_id op, unsigned salt)
{
    if (n < SHARED_EXPECT_MIN_COUNT || c->p == 1) {
        t->expect(expected, 0, n, op, c->p, salt);
        return;
    }
    const size_t per_rank = (n + (size_t)c->p - 1) / (size_t)c->p;
    int *counts = checked_malloc((size_t)c->p * sizeof(int));
    int *displacements = checked_malloc((size_t)c->p * sizeof(int));
    for (int r = 0; r < c->p; r++) {
        const size_t first = per_rank * (size_t)r < n ? per_rank * (size_t)r : n;
        const size_t last = first + per_rank < n ? first + per_rank : n;
        if (last * t->size > INT_MAX)
            die("expected result too large for MPI_Allgatherv");
        counts[r] = (int)((last - first) * t->size);
        displacements[r] = (int)(first * t->size);
        if (r == c->rank)
            t->expect(expected + first * t->size, first, last - first, op, c->p, salt);
    }
    mpi_or_die(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, expected, counts,
                              displacements, MPI_BYTE, c->base),
               "MPI_Allgatherv (expected result)");
    free(counts);
    free(displacements);
}

static int run_case(context *c, const type_handler *t, op_id op, int count, bool in_place)
{
    const unsigned salt = next_salt++;
    const size_t n = (size_t)count, bytes = n * t->size;
    region send = region_new(bytes), recv = region_new(bytes);
    unsigned char *pristine = checked_malloc(bytes + 2 * GUARD);
    unsigned char *expected = checked_malloc(bytes);

    t->fill(in_place ? recv.buf : send.buf, n, op, c->rank, c->p, salt);
    if (!in_place)
        memset(recv.buf, 0xEE, bytes);   /* no plausible result */
    memcpy(pristine, send.alloc, bytes + 2 * GUARD);
    expect_all(c, t, expected, n, op, salt);

    char what[96];
    snprintf(what, sizeof(what), "%s %s", op_names[op], t->name);
    abort_on_error(ftc_allreduce(in_place ? MPI_IN_PLACE : (const void *)send.buf, recv.buf,
                                 count, t->type, mpi_op(op), c->comm),
                   c, "ftc_allreduce", what, count);

    int failures = 0;
    char text[256];
    const char *mode = in_place ? " MPI_IN_PLACE" : "";
    for (size_t i = 0; i < n; i++) {
        if (t->differs(recv.buf, expected, i, op, text, sizeof(text))) {
            if (report_allowed())
                fprintf(stderr, "MISMATCH %s op=%s type=%s count=%d%s on rank %d of %d: "
                        "element %zu: %s\n", c->label, op_names[op], t->name, count, mode,
                        c->rank, c->p, i, text);
            failures++;
            break;   /* one report per case */
        }
    }
    const long guard = changed_guard(&recv);
    if (guard != 0) {
        if (report_allowed())
            fprintf(stderr, "MISMATCH %s op=%s type=%s count=%d%s on rank %d of %d: guard byte "
                    "at offset %ld of recvbuf (%zu bytes) overwritten\n", c->label,
                    op_names[op], t->name, count, mode, c->rank, c->p, guard, bytes);
        failures++;
    }
    if (memcmp(send.alloc, pristine, bytes + 2 * GUARD) != 0) {
        if (report_allowed())
            fprintf(stderr, "MISMATCH %s op=%s type=%s count=%d%s on rank %d of %d: sendbuf "
                    "modified\n", c->label, op_names[op], t->name, count, mode, c->rank, c->p);
        failures++;
    }
    free(expected);
    free(pristine);
    region_free(&send);
    region_free(&recv);
    c->calls++;
    c->failures += failures;
    return failures;
}

/*
 * Every op defined on every type, count 7, in place and not; counts 0 and 1
 * on the representative types. Lean: each pair once at count 7, in place
 * for every other pair (so every type and every op still meets both), and
 * count 1 in place, count 0 not, on the representative types.
 */
static void check_all_types_and_ops(context *c, bool lean)
{
    size_t pair = 0;
    for (size_t i = 0; i < N_TYPES; i++)
        for (int op = 0; op < OP_COUNT; op++) {
            if (!(types[i].ops & OP_BIT(op)))
                continue;
            const type_handler *t = &types[i];
            if (lean) {
                run_case(c, t, (op_id)op, 7, pair++ % 2 == 1);
                if (t->representative) {
                    run_case(c, t, (op_id)op, 1, true);
                    run_case(c, t, (op_id)op, 0, false);
                }
                continue;
            }
            for (int in_place = 0; in_place <= 1; in_place++) {
                run_case(c, t, (op_id)op, 7, in_place);
                if (t->representative) {
                    run_case(c, t, (op_id)op, 1, in_place);
                    run_case(c, t, (op_id)op, 0, in_place);
                }
            }
        }
}

static void check_large_counts(context *c, int large)
{
    if (large <= 0)
        return;
    run_case(c, handler_of(MPI_DOUBLE), OP_SUM, large, false);
    run_case(c, handler_of(MPI_INT), OP_MAX, large, true);
    run_case(c, handler_of(MPI_INT), OP_USER_MAX, large, false);
    run_case(c, handler_of(MPI_UNSIGNED_CHAR), OP_BXOR, large, true);
}

/* ---- bitwise identity on all ranks ------------------------------------------ */

/* Gathers every rank's `bytes` to rank 0 of the base communicator, which
 * compares them with its own. Returns the failures (counted on rank 0). */
static int identical_everywhere(context *c, const void *result, size_t bytes, size_t unit,
                                const char *what)
{
    unsigned char *all = c->rank == 0 ? checked_malloc(bytes * (size_t)c->p) : NULL;
    mpi_or_die(MPI_Gather(result, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, 0, c->base),
               "MPI_Gather");
    int failures = 0;
    for (int r = 1; c->rank == 0 && r < c->p; r++) {
        const unsigned char *theirs = all + (size_t)r * bytes;
        for (size_t b = 0; b < bytes; b++) {
            if (theirs[b] != all[b]) {
                if (report_allowed())
                    fprintf(stderr, "MISMATCH %s %s p=%d: rank %d's result differs bitwise from "
                            "rank 0's at element %zu\n", c->label, what, c->p, r, b / unit);
                failures++;
                break;
            }
        }
    }
    free(all);
    return failures;
}

/* A non-integer with all mantissa bits in use, in [-500, 500) (SUM) or
 * [0.5, 2) (PROD). */
static double rough_value(op_id op, int rank, size_t i, unsigned salt)
{
    const double frac = ((double)hash4(rank, i, salt, 11) + (double)hash4(rank, i, salt, 12)
                         / 4294967296.0) / 4294967296.0;
    return op == OP_SUM ? frac * 1000.0 - 500.0 : 0.5 + 1.5 * frac;
}

/*
 * SUM or PROD of non-integers on float or double: the result depends on the
 * order of the operands, so it must be bitwise identical on every rank. It
 * must also be the sum (product) of all inputs, within the error of any order
 * of evaluation: (p - 1) eps sum |x| (sum), (p - 1) eps |product| (product,
 * to first order; doubled).
 */
static void check_rounding_identity(context *c, MPI_Datatype type, op_id op, int count,
                                    bool in_place)
{
    const unsigned salt = next_salt++;
    const bool is_float = type == MPI_FLOAT;
    const size_t unit = is_float ? sizeof(float) : sizeof(double), n = (size_t)count;
    unsigned char *send = checked_malloc(n * unit), *recv = checked_malloc(n * unit);
    unsigned char *mine = in_place ? recv : send;
    for (size_t i = 0; i < n; i++) {
        const double v = rough_value(op, c->rank, i, salt);
        const float f = (float)v;
        if (is_float)
            memcpy(mine + i * unit, &f, unit);
        else
            memcpy(mine + i * unit, &v, unit);
    }
    char what[96];
    snprintf(what, sizeof(what), "%s %s of non-integers count=%d%s", op_names[op],
             is_float ? "MPI_FLOAT" : "MPI_DOUBLE", count, in_place ? " MPI_IN_PLACE" : "");
    abort_on_error(ftc_allreduce(in_place ? MPI_IN_PLACE : (const void *)send, recv, count, type,
                                 mpi_op(op), c->comm),
                   c, "ftc_allreduce", what, count);

    const long double eps = is_float ? FLT_EPSILON : DBL_EPSILON;
    int failures = 0;
    for (size_t i = 0; i < n; i++) {
        long double exact = op == OP_SUM ? 0.0L : 1.0L, magnitude = 0.0L;
        for (int r = 0; r < c->p; r++) {
            const double v = rough_value(op, r, i, salt);
            const long double x = is_float ? (long double)(float)v : (long double)v;
            exact = op == OP_SUM ? exact + x : exact * x;
            magnitude += fabsl(x);
        }
        const long double bound = op == OP_SUM ? (c->p - 1) * eps * magnitude
                                               : 2 * (c->p - 1) * eps * fabsl(exact);
        long double got;
        if (is_float) {
            float g;
            memcpy(&g, recv + i * unit, sizeof(g));
            got = g;
        } else {
            double g;
            memcpy(&g, recv + i * unit, sizeof(g));
            got = g;
        }
        if (!(fabsl(got - exact) <= bound)) {
            if (report_allowed())
                fprintf(stderr, "MISMATCH %s %s on rank %d of %d: element %zu: got %.17Lg, "
                        "exact %.17Lg (allowed error %.3Lg)\n", c->label, what, c->rank, c->p,
                        i, got, exact, bound);
            failures++;
            break;
        }
    }
    failures += identical_everywhere(c, recv, n * unit, unit, what);
    free(send);
    free(recv);
    c->calls++;
    c->failures += failures;
}

/* The {value, origin} op whose result depends on operand order: the value
 * must be the maximum, the origin one of the ranks that hold it, and all of
 * it the same on every rank. */
static void check_first_max_identity(context *c, int count, bool in_place)
{
    const unsigned salt = next_salt++;
    const size_t n = (size_t)count;
    tagged *send = checked_malloc(n * sizeof(tagged)), *recv = checked_malloc(n * sizeof(tagged));
    tagged *mine = in_place ? recv : send;
    for (size_t i = 0; i < n; i++)
        mine[i] = (tagged){ (int)(hash4(c->rank, i, salt, 13) % 4u), c->rank };
    char what[96];
    snprintf(what, sizeof(what), "user {value, origin} max on MPI_2INT count=%d%s", count,
             in_place ? " MPI_IN_PLACE" : "");
    abort_on_error(ftc_allreduce(in_place ? MPI_IN_PLACE : (const void *)send, recv, count,
                                 MPI_2INT, user_first_max_op, c->comm),
                   c, "ftc_allreduce", what, count);
    int failures = 0;
    for (size_t i = 0; i < n; i++) {
        int max = -1;
        for (int r = 0; r < c->p; r++) {
            const int v = (int)(hash4(r, i, salt, 13) % 4u);
            max = v > max ? v : max;
        }
        const int origin = recv[i].origin;
        const bool origin_ok = origin >= 0 && origin < c->p
            && (int)(hash4(origin, i, salt, 13) % 4u) == max;
        if (recv[i].value != max || !origin_ok) {
            if (report_allowed())
                fprintf(stderr, "MISMATCH %s %s on rank %d of %d: element %zu: got (%d, origin "
                        "%d), expected value %d from a rank that holds it\n", c->label, what,
                        c->rank, c->p, i, recv[i].value, origin, max);
            failures++;
            break;
        }
    }
    failures += identical_everywhere(c, recv, n * sizeof(tagged), sizeof(tagged), what);
    free(send);
    free(recv);
    c->calls++;
    c->failures += failures;
}

static void check_identity(context *c, int large)
{
    static const int counts[] = { 1, 7, 1001 };
    for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++)
        for (int in_place = 0; in_place <= 1; in_place++) {
            check_rounding_identity(c, MPI_FLOAT, OP_SUM, counts[k], in_place);
            check_rounding_identity(c, MPI_DOUBLE, OP_SUM, counts[k], in_place);
            check_rounding_identity(c, MPI_DOUBLE, OP_PROD, counts[k], in_place);
            check_first_max_identity(c, counts[k], in_place);
        }
    /* Every rank checks every element against p inputs: keep it moderate. */
    if (large > 0)
        check_rounding_identity(c, MPI_DOUBLE, OP_SUM, large < 32769 ? large : 32769, false);
}

/* ---- errors ----------------------------------------------------------------------- */

static int failed(const context *c, const char *what, const char *detail)
{
    fprintf(stderr, "FAIL rank %d of %d (%s): %s: %s\n", c->rank, c->p, c->label, what, detail);
    return 1;
}

/* class_of, class_name: harness.h */

/* rc must be of class `want`, with a non-empty message. */
static int expect_error(const context *c, const char *what, int rc, int want)
{
    const int got = class_of(rc);
    const char *message = ftc_error_message();
    char detail[768];
    if (got != want) {
        snprintf(detail, sizeof(detail), "returned %s (%d), expected %s; message \"%s\"",
                 class_name(got), got, class_name(want), message ? message : "(null)");
        return failed(c, what, detail);
    }
    if (!message || !message[0])
        return failed(c, what, "the error message is empty");
    return 0;
}

/* A successful call leaves no stale message behind. */
static int expect_success(const context *c, const char *what, int rc)
{
    char detail[768];
    if (rc != MPI_SUCCESS) {
        snprintf(detail, sizeof(detail), "returned %s (%d): %s", class_name(class_of(rc)), rc,
                 ftc_error_message());
        return failed(c, what, detail);
    }
    if (ftc_error_message()[0]) {
        snprintf(detail, sizeof(detail), "succeeded but left the message \"%s\"",
                 ftc_error_message());
        return failed(c, what, detail);
    }
    return 0;
}

/* A correct call and its result: the sum of 1 + rank over all ranks. */
static int expect_working(context *c, const char *what)
{
    int mine[3], sum[3] = { -1, -1, -1 };
    for (int i = 0; i < 3; i++)
        mine[i] = (1 + c->rank) * (i + 1);
    int f = expect_success(c, what, ftc_allreduce(mine, sum, 3, MPI_INT, MPI_SUM, c->comm));
    const int total = c->p * (c->p + 1) / 2;
    for (int i = 0; i < 3; i++)
        if (sum[i] != total * (i + 1)) {
            char detail[96];
            snprintf(detail, sizeof(detail), "element %d: got %d, expected %d", i, sum[i],
                     total * (i + 1));
            return f + failed(c, what, detail);
        }
    return f;
}

/*
 * Every rank passes the same bad arguments, so every rank detects the error
 * before communicating and returns it. After each, a correct call must work
 * (nothing half-started is left on the communicator). An op not defined on
 * the type is refused with MPI_ERR_OP as well (src/allreduce/allreduce.c
 * checks the pair, since MPI_Reduce_local would abort the job instead).
 */
static void check_errors(context *c)
{
    int send[4] = { 1, 2, 3, 4 }, recv[4] = { 0 };
    MPI_Op non_commutative;
    MPI_Datatype pair;
    mpi_or_die(MPI_Op_create(user_max, 0, &non_commutative), "MPI_Op_create");
    mpi_or_die(MPI_Type_contiguous(2, MPI_INT, &pair), "MPI_Type_contiguous");
    mpi_or_die(MPI_Type_commit(&pair), "MPI_Type_commit");

    static const struct {
        const char *what;
        int want;
    } cases[] = {
        { "a non-commutative user op", MPI_ERR_OP },
        { "a non-commutative user op, MPI_IN_PLACE", MPI_ERR_OP },
        { "MPI_OP_NULL", MPI_ERR_OP },
        { "a derived datatype (contiguous 2 x MPI_INT)", MPI_ERR_TYPE },
        { "MPI_DATATYPE_NULL", MPI_ERR_TYPE },
        { "count -1", MPI_ERR_COUNT },
        { "count -1, MPI_IN_PLACE", MPI_ERR_COUNT },
        { "NULL recvbuf, count 1", MPI_ERR_BUFFER },
        { "NULL recvbuf, MPI_IN_PLACE", MPI_ERR_BUFFER },
        { "a NULL ftc_comm_t", MPI_ERR_COMM },
        { "MPI_MAXLOC on MPI_INT (op not defined on the type)", MPI_ERR_OP },
        { "MPI_BAND on MPI_DOUBLE (op not defined on the type)", MPI_ERR_OP },
    };
    int f = 0;
    const size_t n_cases = sizeof(cases) / sizeof(cases[0]);
    for (size_t k = 0; k < n_cases; k++) {
        int rc = MPI_SUCCESS;
        switch (k) {
        case 0: rc = ftc_allreduce(send, recv, 4, MPI_INT, non_commutative, c->comm); break;
        case 1: rc = ftc_allreduce(MPI_IN_PLACE, recv, 4, MPI_INT, non_commutative, c->comm); break;
        case 2: rc = ftc_allreduce(send, recv, 4, MPI_INT, MPI_OP_NULL, c->comm); break;
        case 3: rc = ftc_allreduce(send, recv, 2, pair, MPI_SUM, c->comm); break;
        case 4: rc = ftc_allreduce(send, recv, 4, MPI_DATATYPE_NULL, MPI_SUM, c->comm); break;
        case 5: rc = ftc_allreduce(send, recv, -1, MPI_INT, MPI_SUM, c->comm); break;
        case 6: rc = ftc_allreduce(MPI_IN_PLACE, recv, -1, MPI_INT, MPI_SUM, c->comm); break;
        case 7: rc = ftc_allreduce(send, NULL, 1, MPI_INT, MPI_SUM, c->comm); break;
        case 8: rc = ftc_allreduce(MPI_IN_PLACE, NULL, 4, MPI_INT, MPI_SUM, c->comm); break;
        case 9: rc = ftc_allreduce(send, recv, 4, MPI_INT, MPI_SUM, NULL); break;
        case 10: rc = ftc_allreduce(send, recv, 2, MPI_INT, MPI_MAXLOC, c->comm); break;
        case 11: rc = ftc_allreduce(send, recv, 2, MPI_DOUBLE, MPI_BAND, c->comm); break;
        }
        f += expect_error(c, cases[k].what, rc, cases[k].want);
        char after[128];
        snprintf(after, sizeof(after), "allreduce after: %s", cases[k].what);
        f += expect_working(c, after);
    }
    MPI_Type_free(&pair);
    MPI_Op_free(&non_commutative);
    c->calls += (long)n_cases * 2;
    c->failures += f;
}

/* Count 0 moves nothing: NULL buffers are legal, as in MPI (every rank makes
 * the same call). Run last: under UBSan a memcpy to NULL, even of 0 bytes,
 * ends the process, and the other checks have run by then. */
static void check_count_zero_null_buffers(context *c)
{
    int f = expect_success(c, "NULL buffers with count 0",
                           ftc_allreduce(NULL, NULL, 0, MPI_INT, MPI_SUM, c->comm));
    f += expect_success(c, "MPI_IN_PLACE, NULL recvbuf, count 0",
                        ftc_allreduce(MPI_IN_PLACE, NULL, 0, MPI_DOUBLE, MPI_MAX, c->comm));
    f += expect_working(c, "allreduce after count 0 with NULL buffers");
    c->calls += 3;
    c->failures += f;
}

/* ---- interleaving: allgather on the same communicator, user traffic -------------- */

enum { INTERLEAVED_ROUNDS = 12 };

static int allgather_and_check(context *c, int round)
{
    const int n = 1 + round % 4;
    int send[4], *recv = checked_malloc((size_t)n * (size_t)c->p * sizeof(int));
    for (int i = 0; i < n; i++)
        send[i] = c->rank * 100 + round * 10 + i;
    abort_on_error(ftc_allgather(send, n, MPI_INT, recv, n, MPI_INT, c->comm), c,
                   "ftc_allgather", "interleaved MPI_INT", n);
    int failures = 0;
    for (int r = 0; r < c->p && !failures; r++)
        for (int i = 0; i < n; i++)
            if (recv[r * n + i] != r * 100 + round * 10 + i) {
                fprintf(stderr, "MISMATCH %s interleaved allgather round %d on rank %d of %d: "
                        "block %d element %d: got %d\n", c->label, round, c->rank, c->p, r, i,
                        recv[r * n + i]);
                failures++;
                break;
            }
    free(recv);
    c->calls++;
    c->failures += failures;
    return failures;
}

/* The (type, op) pairs, numbered, to pick different ones round by round. */
static void nth_type_op(size_t index, const type_handler **t, op_id *op)
{
    size_t total = 0;
    for (size_t i = 0; i < N_TYPES; i++)
        for (int o = 0; o < OP_COUNT; o++)
            total += (types[i].ops & OP_BIT(o)) != 0;
    index %= total;
    for (size_t i = 0; i < N_TYPES; i++)
        for (int o = 0; o < OP_COUNT; o++)
            if ((types[i].ops & OP_BIT(o)) && index-- == 0) {
                *t = &types[i];
                *op = (op_id)o;
                return;
            }
}

/*
 * Each round: wildcard receives (any source, any tag) posted on
 * MPI_COMM_WORLD and user messages sent to both neighbours before an
 * allreduce, an allgather and another allreduce on the same ftc_comm_t,
 * completed after them. If ftcoll used MPI_COMM_WORLD, or its sentinel
 * receive matched anything but its own traffic, messages would cross.
 */
static void check_interleaved(context *c)
{
    for (int round = 0; round < INTERLEAVED_ROUNDS; round++) {
        user_traffic traffic;
        user_traffic_start(&traffic, round);

        const type_handler *t;
        op_id op;
        nth_type_op((size_t)round * 37u, &t, &op);
        run_case(c, t, op, 1 + round % 9, round % 2 == 0);
        allgather_and_check(c, round);
        nth_type_op((size_t)round * 37u + 11u, &t, &op);
        run_case(c, t, op, 3 + round % 5, round % 2 == 1);
        if (round % 4 == 3)
            allgather_and_check(c, round);

        c->failures += user_traffic_finish(&traffic);
    }
}

/* ---- a sub-communicator with ranks in reverse order ------------------------------- */

/* Even and odd ranks of MPI_COMM_WORLD, each half numbered backwards: ranks
 * of the ftc_comm_t differ from world ranks, and the halves run at once. */
static void check_split(context *world, int large)
{
    MPI_Comm half;
    mpi_or_die(MPI_Comm_split(MPI_COMM_WORLD, world->rank % 2, world->p - world->rank, &half),
               "MPI_Comm_split");
    context c = { "split", half, NULL, 0, 0, 0, 0 };
    MPI_Comm_rank(half, &c.rank);
    MPI_Comm_size(half, &c.p);
    abort_on_error(ftc_comm_create(half, &c.comm), &c, "ftc_comm_create", "split", 0);
    const type_handler *t_int = handler_of(MPI_INT);
    for (int op = 0; op < OP_COUNT; op++)
        if (t_int->ops & OP_BIT(op))
            run_case(&c, t_int, (op_id)op, 7, op % 2 == 0);
    run_case(&c, handler_of(MPI_DOUBLE_INT), OP_MAXLOC, 7, false);
    run_case(&c, handler_of(MPI_SHORT_INT), OP_MINLOC, 7, true);
    check_rounding_identity(&c, MPI_DOUBLE, OP_SUM, 7, false);
    check_first_max_identity(&c, 7, true);
    if (large > 0)
        run_case(&c, handler_of(MPI_DOUBLE), OP_SUM, large / 4, false);
    c.failures += expect_working(&c, "split: allreduce before ftc_comm_free");
    c.calls++;
    abort_on_error(ftc_comm_free(&c.comm), &c, "ftc_comm_free", "split", 0);
    MPI_Comm_free(&half);
    world->calls += c.calls;
    world->failures += c.failures;
}

/* ---- main --------------------------------------------------------------------- */

/* --large N: the element count of the large cases (0: none); --lean: half
 * the type x op matrix (see check_all_types_and_ops). */
static void parse_options(int argc, char **argv, int *large, bool *lean)
{
    *large = DEFAULT_LARGE;
    *lean = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--large") == 0 && i + 1 < argc) {
            char *end = NULL;
            const long v = strtol(argv[++i], &end, 10);
            if (!end || *end || v < 0 || v > (1l << 24))
                die("--large wants an element count up to 16 Mi");
            *large = (int)v;
        } else if (strcmp(argv[i], "--lean") == 0) {
            *lean = true;
        } else {
            die("usage: test_allreduce [--large N] [--lean]");
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int large;
    bool lean;
    parse_options(argc, argv, &large, &lean);
    check_layouts();
    mpi_or_die(MPI_Op_create(user_max, 1, &user_max_op), "MPI_Op_create");
    mpi_or_die(MPI_Op_create(user_first_max, 1, &user_first_max_op), "MPI_Op_create");

    context c = { "world", MPI_COMM_WORLD, NULL, 0, 0, 0, 0 };
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c.p);
    abort_on_error(ftc_comm_create(MPI_COMM_WORLD, &c.comm), &c, "ftc_comm_create", "-", 0);

    check_errors(&c);
    check_all_types_and_ops(&c, lean);
    check_large_counts(&c, large);
    check_identity(&c, large);
    check_interleaved(&c);
    check_split(&c, large);
    check_count_zero_null_buffers(&c);
    abort_on_error(ftc_comm_free(&c.comm), &c, "ftc_comm_free", "-", 0);

    if (reported_mismatches > MAX_REPORTED_MISMATCHES)
        fprintf(stderr, "rank %d: %d more mismatches not shown\n", c.rank,
                reported_mismatches - MAX_REPORTED_MISMATCHES);
    if (user_op_wrong_type) {
        fprintf(stderr, "FAIL rank %d: a user op was called %ld times with a datatype other "
                "than the one passed to ftc_allreduce\n", c.rank, user_op_wrong_type);
        c.failures++;
    }
    MPI_Op_free(&user_max_op);
    MPI_Op_free(&user_first_max_op);

    long failures = 0;
    MPI_Allreduce(&c.failures, &failures, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (c.rank == 0) {
        if (failures == 0)
            printf("allreduce p=%d: %ld cases, all elements checked\n", c.p, c.calls);
        else
            printf("allreduce p=%d: %ld of %ld cases FAILED (summed over ranks)\n", c.p,
                   failures, c.calls);
    }
    MPI_Finalize();
    return failures == 0 ? 0 : 1;
}
