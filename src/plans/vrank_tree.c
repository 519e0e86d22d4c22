/* The linear and binomial vrank trees (vrank_tree.h). */
#include "vrank_tree.h"

#include "binomial.h"

static int linear_parent(int v, int n)
{
    (void)n;
    return v == 0 ? -1 : 0;
}

static int linear_subtree_end(int v, int n) { return v == 0 ? n : v + 1; }

static int linear_children(int v, int n) { return v == 0 ? n - 1 : 0; }

static int linear_child(int v, int n, int i)
{
    (void)v;
    (void)n;
    return i + 1;
}

const ftc_vrank_tree ftc_linear_vrank_tree = { linear_parent, linear_subtree_end, linear_children,
                                               linear_child };

static int binomial_parent(int v, int n)
{
    (void)n;
    return ftc_binomial_parent(v);
}

static int binomial_child(int v, int n, int i)
{
    (void)n;
    return ftc_binomial_child(v, i);
}

const ftc_vrank_tree ftc_binomial_vrank_tree = { binomial_parent, ftc_binomial_subtree_end,
                                                 ftc_binomial_children, binomial_child };
