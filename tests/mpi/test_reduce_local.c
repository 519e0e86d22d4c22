/*
 * ftc_reduce_local against MPI_Reduce_local: the same bits for every
 * predefined (type, op) pair it may combine itself and for some it leaves
 * to MPI, at every count from 0 to past its inline limit, on values that
 * overflow, wrap, carry signs, infinities, signed zeros, subnormals and
 * NaNs (one operand at a time: which of two NaNs' payloads a sum keeps is
 * the processor's choice, in MPI's loops too).
 *
 * One process; prints "reduce_local: N cases, every byte checked" on success.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include "../../src/reduce_local.h"

enum { MAX_COUNT = FTC_REDUCE_LOCAL_INLINE_MAX + 9, MAX_ELEMENT = 8 };

typedef struct {
    MPI_Datatype type;
    const char *name;
    size_t size;
    int kind;   /* 0: signed integer, 1: unsigned, 2: floating point */
} type_case;

static const type_case types[] = {
    { MPI_INT, "MPI_INT", sizeof(int), 0 },
    { MPI_UNSIGNED, "MPI_UNSIGNED", sizeof(unsigned), 1 },
    { MPI_LONG, "MPI_LONG", sizeof(long), 0 },
    { MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", sizeof(unsigned long), 1 },
    { MPI_LONG_LONG, "MPI_LONG_LONG", sizeof(long long), 0 },
    { MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", sizeof(unsigned long long), 1 },
    { MPI_INT32_T, "MPI_INT32_T", 4, 0 },
    { MPI_UINT32_T, "MPI_UINT32_T", 4, 1 },
    { MPI_INT64_T, "MPI_INT64_T", 8, 0 },
    { MPI_UINT64_T, "MPI_UINT64_T", 8, 1 },
    { MPI_SHORT, "MPI_SHORT", sizeof(short), 0 },   /* MPI's */
    { MPI_FLOAT, "MPI_FLOAT", sizeof(float), 2 },
    { MPI_DOUBLE, "MPI_DOUBLE", sizeof(double), 2 },
};

typedef struct {
    MPI_Op op;
    const char *name;
    int integers_only;
} op_case;

static const op_case ops[] = {
    { MPI_SUM, "MPI_SUM", 0 },   { MPI_PROD, "MPI_PROD", 0 }, { MPI_MIN, "MPI_MIN", 0 },
    { MPI_MAX, "MPI_MAX", 0 },   { MPI_BAND, "MPI_BAND", 1 }, { MPI_BOR, "MPI_BOR", 1 },
    { MPI_BXOR, "MPI_BXOR", 1 }, { MPI_LAND, "MPI_LAND", 1 },
};

static uint64_t state = 0x9e3779b97f4a7c15u;

static uint64_t next_random(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

/* Integers: small, near the limits (sums and products overflow), or any bits. */
static void integer_value(void *to, size_t size)
{
    uint64_t v = next_random();
    switch (v % 4) {
    case 0: v = (v >> 8) % 7; break;
    case 1: v = ~((v >> 8) % 5); break;   /* -1 .. -5, or the largest unsigned */
    case 2: v = (UINT64_C(1) << (size * 8 - 1)) - 1 - (v >> 8) % 3; break;   /* signed max */
    default: break;
    }
    memcpy(to, &v, size);   /* little-endian: the low bytes */
}

static double special(uint64_t pick)
{
    static const double values[] = { 0.0, -0.0, 1.0, -2.5, 1e300, -1e300, 3.0e38, DBL_MIN / 4,
                                     INFINITY, -INFINITY };
    return values[pick % (sizeof values / sizeof values[0])];
}

/* Floating point: specials or ordinary values; a NaN only where `nan_ok`. */
static void floating_value(void *to, size_t size, int nan_ok)
{
    const uint64_t r = next_random();
    double v = r % 3 == 0 ? special(r >> 8) : (double)(int64_t)(r >> 11) / 1e9;
    if (nan_ok && r % 17 == 0)
        v = NAN;
    if (size == sizeof(float)) {
        const float f = (float)v;
        memcpy(to, &f, sizeof f);
    } else {
        memcpy(to, &v, sizeof v);
    }
}

static int is_nan(const void *at, size_t size)
{
    if (size == sizeof(float)) {
        float f;
        memcpy(&f, at, sizeof f);
        return isnan(f);
    }
    double d;
    memcpy(&d, at, sizeof d);
    return isnan(d);
}

/* in and inout: a NaN in at most one of them at each element. */
static void fill(const type_case *t, int count, unsigned char *in, unsigned char *inout)
{
    for (int i = 0; i < count; i++) {
        unsigned char *a = in + (size_t)i * t->size, *b = inout + (size_t)i * t->size;
        if (t->kind == 2) {
            floating_value(a, t->size, 1);
            floating_value(b, t->size, !is_nan(a, t->size));
        } else {
            integer_value(a, t->size);
            integer_value(b, t->size);
        }
    }
}

static int check(const type_case *t, const op_case *o, int count)
{
    unsigned char in[MAX_COUNT * MAX_ELEMENT], ours[MAX_COUNT * MAX_ELEMENT],
        theirs[MAX_COUNT * MAX_ELEMENT], kept_in[MAX_COUNT * MAX_ELEMENT];
    memset(in, 0, sizeof in);
    memset(ours, 0, sizeof ours);
    fill(t, count, in, ours);
    memcpy(theirs, ours, sizeof theirs);
    memcpy(kept_in, in, sizeof kept_in);
    const int rc_ours = ftc_reduce_local(in, ours, count, t->type, o->op);
    const int rc_theirs = MPI_Reduce_local(in, theirs, count, t->type, o->op);
    if (rc_ours != MPI_SUCCESS || rc_theirs != MPI_SUCCESS) {
        printf("FAIL %s %s count %d: ftc_reduce_local %d, MPI_Reduce_local %d\n", t->name,
               o->name, count, rc_ours, rc_theirs);
        return 1;
    }
    if (memcmp(in, kept_in, (size_t)count * t->size) != 0) {
        printf("FAIL %s %s count %d: the input changed\n", t->name, o->name, count);
        return 1;
    }
    for (int i = 0; i < count; i++) {
        const size_t at = (size_t)i * t->size;
        if (memcmp(ours + at, theirs + at, t->size) == 0)
            continue;
        if (t->kind == 2 && is_nan(ours + at, t->size) && is_nan(theirs + at, t->size))
            continue;
        printf("FAIL %s %s count %d: element %d differs from MPI_Reduce_local's\n", t->name,
               o->name, count, i);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int failures = 0, cases = 0;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            if (types[t].kind == 2 && ops[o].integers_only)
                continue;
            for (int count = 0; count <= MAX_COUNT; count++) {
                for (int round = 0; round < 4; round++, cases++)
                    failures += check(&types[t], &ops[o], count);
            }
        }
    }
    if (failures == 0)
        printf("reduce_local: %d cases, every byte checked\n", cases);
    MPI_Finalize();
    return failures == 0 ? 0 : 1;
}
