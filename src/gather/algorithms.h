/*
 * The gather algorithms as trees (pure, no MPI): who sends its blocks to
 * whom. Ranks are numbered from the root (vrank v = (rank - root) mod n,
 * over the n live ranks); every rank's blocks travel towards vrank 0 and
 * each rank forwards, in one message, the blocks of its whole subtree,
 * which is always the run of vranks [v, subtree_end). One file per
 * algorithm, named after it.
 */
#ifndef FTCOLL_GATHER_ALGORITHMS_H
#define FTCOLL_GATHER_ALGORITHMS_H

#include <stdbool.h>
#include <stddef.h>

#include "ftcoll.h"
#include "../plans/vrank_tree.h"

/* A gather's tree: the shape its blocks travel up, and whether a child
 * sends only once its parent's empty message asked it to. */
typedef struct {
    const ftc_vrank_tree *shape;
    bool sync;
} ftc_gather_tree;

extern const ftc_gather_tree ftc_gather_linear_tree;
extern const ftc_gather_tree ftc_gather_binomial_tree;
extern const ftc_gather_tree ftc_gather_linear_sync_tree;

/* The tree of an algorithm (not FTC_GATHER_AUTO, in range). */
const ftc_gather_tree *ftc_gather_tree_of(ftc_gather_algorithm algorithm);

/* A name ("binomial", Open MPI's "basic_linear", "linear") or a number
 * ("2"), into *out; false (nothing written) for anything else. */
bool ftc_gather_parse_name(const char *text, ftc_gather_algorithm *out);

/* "auto (0), basic_linear (1), ...": the valid names, for messages. */
void ftc_gather_list_names(char *out, size_t size);

#endif
