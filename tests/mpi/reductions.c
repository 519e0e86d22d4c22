/* The reductions the reduce-family tests share (reductions.h). */
#include "reductions.h"

#include <string.h>

const char *const op_names[OP_KINDS] = { "sum int", "max double", "minloc double_int",
                                         "user int" };

void user_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = a[i] + b[i];
}

static int int_input(int r, int i) { return (r + 1) * 1000 + i % 997 - r * (i % 7); }
static double double_input(int r, int i) { return (double)((r * 37 + i * 11) % 101) + 0.5 * r; }

kind_of_op kind(op_kind k, MPI_Op user)
{
    switch (k) {
    case OP_SUM_INT: return (kind_of_op){ MPI_INT, MPI_SUM, sizeof(int) };
    case OP_MAX_DOUBLE: return (kind_of_op){ MPI_DOUBLE, MPI_MAX, sizeof(double) };
    case OP_MINLOC: return (kind_of_op){ MPI_DOUBLE_INT, MPI_MINLOC, sizeof(double_int) };
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
        default: ((int *)buf)[i] = int_input(r, i); break;
        }
}

bool holds_result(op_kind k, int p, int i, const void *buf, int at)
{
    switch (k) {
    case OP_MAX_DOUBLE: {
        double best = double_input(0, i);
        for (int r = 1; r < p; r++)
            best = double_input(r, i) > best ? double_input(r, i) : best;
        return ((const double *)buf)[at] == best;
    }
    case OP_MINLOC: {
        double_int best = { double_input(0, i), 0 };
        for (int r = 1; r < p; r++)
            if (double_input(r, i) < best.value)
                best = (double_int){ double_input(r, i), r };
        const double_int got = ((const double_int *)buf)[at];
        return got.value == best.value && got.index == best.index;
    }
    default: {
        int sum = 0;
        for (int r = 0; r < p; r++)
            sum += int_input(r, i);
        return ((const int *)buf)[at] == sum;
    }
    }
}
