#include "checkin_tree.h"

static int lowest_set_bit(int r)
{
    return r & -r;
}

void ftc_guard_node_of(int rank, int p, ftc_guard_node *node)
{
    node->rank = rank;
    node->parent = rank == 0 ? -1 : rank - lowest_set_bit(rank);
    node->nchildren = 0;
    node->height = 0;
    node->depth = __builtin_popcount((unsigned)rank);
    const long limit = rank == 0 ? (long)p : (long)lowest_set_bit(rank);
    for (long step = 1; step < limit && rank + step < p; step *= 2)
        node->children[node->nchildren++] = rank + (int)step;
    /* One level above its tallest child (p may cut the last one short). */
    for (int i = 0; i < node->nchildren; i++) {
        ftc_guard_node child;
        ftc_guard_node_of(node->children[i], p, &child);
        if (child.height + 1 > node->height)
            node->height = child.height + 1;
    }
}

/* The deepest rank has the most bits set: below p, that is every bit of
 * p - 1 if p - 1 is all ones, else one fewer than its bit length. */
int ftc_guard_tree_height(int p)
{
    const unsigned last = p > 1 ? (unsigned)(p - 1) : 0u;
    int bits = 0;
    while (bits < 32 && (last >> bits) != 0)
        bits++;
    return (last & (last + 1)) == 0 ? bits : bits - 1;
}

double ftc_guard_children_window(const ftc_guard_node *node, double latecomer_window)
{
    return node->height * latecomer_window;
}

double ftc_guard_decision_window(int p, double latecomer_window)
{
    return 1.2 * (ftc_guard_tree_height(p) + 1) * latecomer_window;
}

double ftc_guard_window_from_deadline(double seconds_left)
{
    return seconds_left > 0 ? 0.2 * seconds_left : 0.0;
}
