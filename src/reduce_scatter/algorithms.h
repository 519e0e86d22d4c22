/*
 * The reduce-scatter's algorithms, one file each: the allreduce of the
 * whole vector (allreduce_block.c) and recursive halving
 * (recursive_halving.c); select.c picks between them.
 */
#ifndef FTCOLL_REDUCE_SCATTER_ALGORITHMS_H
#define FTCOLL_REDUCE_SCATTER_ALGORITHMS_H

#include <stdbool.h>
#include <stddef.h>

#include "ftcoll.h"


/* By the rules: recursive halving on a vector of at least
 * FTC_HALVING_MIN_BYTES (any, on two ranks), else the allreduce.
 * From p and the vector's bytes only, never the live ranks: a rank still
 * in an older epoch picks as the others do. */
ftc_reduce_scatter_algorithm ftc_reduce_scatter_decide(int p, size_t vector_bytes);

/* "auto", "allreduce", "recursive_halving" (or 0, 1, 2) into *out; false
 * for anything else. */
bool ftc_reduce_scatter_parse_name(const char *text, ftc_reduce_scatter_algorithm *out);

#endif
