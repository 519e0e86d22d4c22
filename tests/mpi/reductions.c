/* The reductions the reduce-family tests share (reductions.h). */
#include "reductions.h"

#include <string.h>

#include "harness.h"

const char *const op_names[ORDERED_OP_KINDS] = { "sum int", "max double",
                                                 "minloc double_int", "user int",
                                                 "user affine (not commutative)" };

void user_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = a[i] + b[i];
}

static unsigned affine_of(unsigned a, unsigned b) { return (a & 0xFFFFu) << 16 | (b & 0xFFFFu); }

/* first x -> a1 x + b1, then x -> a2 x + b2: x -> a1 a2 x + (a2 b1 + b2) */
static unsigned affine_then(unsigned first, unsigned then)
{
    const unsigned a1 = first >> 16, b1 = first & 0xFFFFu, a2 = then >> 16, b2 = then & 0xFFFFu;
    return affine_of(a1 * a2, a2 * b1 + b2);
}

void affine_compose(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const unsigned *a = in;
    unsigned *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = affine_then(a[i], b[i]);
}

static unsigned affine_input(int r, int i)
{
    return affine_of(2u * (unsigned)((r * 7 + i) % 4096) + 1u, (unsigned)(r * 13 + i * 5));
}

static int int_input(int r, int i) { return (r + 1) * 1000 + i % 997 - r * (i % 7); }
static double double_input(int r, int i) { return (double)((r * 37 + i * 11) % 101) + 0.5 * r; }

void create_user_ops(MPI_Op user[ORDERED_OP_KINDS])
{
    for (int k = 0; k < ORDERED_OP_KINDS; k++)
        user[k] = MPI_OP_NULL;
    mpi_or_die(MPI_Op_create(user_sum, 1, &user[OP_USER_INT]), "MPI_Op_create");
    mpi_or_die(MPI_Op_create(affine_compose, 0, &user[OP_AFFINE]), "MPI_Op_create");
}

void free_user_ops(MPI_Op user[ORDERED_OP_KINDS])
{
    MPI_Op_free(&user[OP_USER_INT]);
    MPI_Op_free(&user[OP_AFFINE]);
}

kind_of_op kind(op_kind k, MPI_Op user)
{
    switch (k) {
    case OP_SUM_INT: return (kind_of_op){ MPI_INT, MPI_SUM, sizeof(int) };
    case OP_MAX_DOUBLE: return (kind_of_op){ MPI_DOUBLE, MPI_MAX, sizeof(double) };
    case OP_MINLOC: return (kind_of_op){ MPI_DOUBLE_INT, MPI_MINLOC, sizeof(double_int) };
    case OP_AFFINE: return (kind_of_op){ MPI_UNSIGNED, user, sizeof(unsigned) };
    default: return (kind_of_op){ MPI_INT, user, sizeof(int) };
    }
}

void fill_input(op_kind k, int r, int count, void *buf)
{
    memset(buf, 0, kind(k, MPI_OP_NULL).element * (size_t)count);   /* a pair's padding too */
    for (int i = 0; i < count; i++)
        switch (k) {
        case OP_MAX_DOUBLE: ((double *)buf)[i] = double_input(r, i); break;
        case OP_MINLOC:
            ((double_int *)buf)[i] = (double_int){ double_input(r, i), r };
            break;
        case OP_AFFINE: ((unsigned *)buf)[i] = affine_input(r, i); break;
        default: ((int *)buf)[i] = int_input(r, i); break;
        }
}

bool holds_combined(op_kind k, const int *in_set, int upto, int i, const void *buf, int at)
{
    int first = 0;
    while (first < upto && in_set && !in_set[first])
        first++;
    if (first == upto)
        return false;
    double best = double_input(first, i);
    int best_rank = first, sum = int_input(first, i);
    unsigned map = affine_input(first, i);
    for (int r = first + 1; r < upto; r++) {
        if (in_set && !in_set[r])
            continue;
        if (double_input(r, i) > best && k == OP_MAX_DOUBLE)
            best = double_input(r, i);
        if (double_input(r, i) < best && k == OP_MINLOC) {
            best = double_input(r, i);
            best_rank = r;
        }
        sum += int_input(r, i);
        map = affine_then(map, affine_input(r, i));
    }
    switch (k) {
    case OP_MAX_DOUBLE: return ((const double *)buf)[at] == best;
    case OP_MINLOC: {
        const double_int got = ((const double_int *)buf)[at];
        return got.value == best && got.index == best_rank;
    }
    case OP_AFFINE: return ((const unsigned *)buf)[at] == map;
    default: return ((const int *)buf)[at] == sum;
    }
}

bool holds_result(op_kind k, int p, int i, const void *buf, int at)
{
    return holds_combined(k, NULL, p, i, buf, at);
}
