/*
 * The scatter algorithms as trees (pure, no MPI): who passes which blocks
 * to whom. Ranks are numbered from the root (vrank v = (rank - root) mod
 * n over the n live ranks); the root sends each child the blocks of the
 * child's whole subtree, the run of vranks [c, subtree_end), and each rank
 * keeps its own and passes its children theirs. One file per algorithm,
 * named after it; the flow over the tree is ft_scatter.c's.
 */
#ifndef FTCOLL_SCATTER_ALGORITHMS_H
#define FTCOLL_SCATTER_ALGORITHMS_H

#include <stdbool.h>
#include <stddef.h>

#include "ftcoll.h"
#include "../plans/vrank_tree.h"

extern const ftc_vrank_tree *const ftc_scatter_linear_tree;
extern const ftc_vrank_tree *const ftc_scatter_binomial_tree;

/* The tree of an algorithm (not FTC_SCATTER_AUTO, in range). */
const ftc_vrank_tree *ftc_scatter_tree_of(ftc_scatter_algorithm algorithm);

/* A name ("binomial", Open MPI's "basic_linear", "linear", "linear_nb")
 * or a number ("2"), into *out; false (nothing written) for anything else. */
bool ftc_scatter_parse_name(const char *text, ftc_scatter_algorithm *out);

/* "auto (0), basic_linear (1), binomial (2)": the valid names, for messages. */
void ftc_scatter_list_names(char *out, size_t size);

#endif
