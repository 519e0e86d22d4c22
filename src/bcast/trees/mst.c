/* Driving GHS and the adaptation over MPI; see mst.h. */
#include "mst.h"

#include <stdlib.h>
#include <string.h>

#include "ghs.h"
#include "../../abort.h"

/* Every rank's tree edges to every rank; the tree must be one and the same. */
static int publish_edges(ftc_mst *mst, ftc_net *net)
{
    const int n = mst->n;
    int rc = ftc_net_allgather(mst->adapt.tree, n, MPI_UNSIGNED_CHAR, mst->adjacency, net);
    if (rc != MPI_SUCCESS)
        return rc;
    int edges = 0;
    for (int a = 0; a < n; a++) {
        for (int b = 0; b < n; b++) {
            const unsigned char edge = mst->adjacency[a * n + b];
            if (edge != mst->adjacency[b * n + a] || (a == b && edge))
                return MPI_ERR_INTERN;   /* one-sided edge, or a loop: the ranks disagree */
            edges += a < b && mst->adjacency[a * n + b];
        }
    }
    return edges == n - 1 ? MPI_SUCCESS : MPI_ERR_INTERN;
}

/* The other ranks wait for this one's messages: it cannot just return. */
_Noreturn static void stop_job(void)
{
    ftc_abort_job("ftcoll: out of memory while building or adapting the broadcast tree; "
                  "the other ranks would wait for this one forever: ending the job");
}

static int run_ghs(ftc_ghs_node *node, ftc_net *net)
{
    ftc_ghs_wakeup(node, ftc_net_send, net);
    int rc = MPI_SUCCESS;
    while (!ftc_ghs_done(node) && rc == MPI_SUCCESS) {
        ftc_msg msg;
        rc = ftc_net_next(net, &msg);
        if (rc == MPI_SUCCESS && msg.kind != FTC_MSG_PING && msg.kind != FTC_MSG_PONG)
            ftc_ghs_receive(node, &msg, ftc_net_send, net);   /* not a monitor's straggler */
        if (node->out_of_memory)
            stop_job();
    }
    if (rc == MPI_SUCCESS)
        rc = ftc_net_flush(net);
    return rc;
}

int ftc_mst_build(ftc_mst *mst, ftc_net *net, const double *latency)
{
    const int n = net->size, self = net->rank;
    ftc_mst_free(mst);
    mst->n = n;
    mst->adjacency = calloc((size_t)n * (size_t)n, 1);
    unsigned char *row = calloc((size_t)n, 1);
    ftc_ghs_node node;
    int rc = mst->adjacency && row && ftc_ghs_init(&node, self, n, latency + (size_t)self * n) == 0
                 ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        rc = run_ghs(&node, net);
        for (int j = 0; j < n; j++)
            row[j] = j != self && ftc_ghs_is_branch(&node, j);
        mst->root = node.root;
        mst->parent = node.parent;
        ftc_ghs_free(&node);
    }
    if (rc == MPI_SUCCESS && ftc_adapt_init(&mst->adapt, self, n, mst->root, mst->parent, row,
                                            latency + (size_t)self * n) != 0)
        rc = MPI_ERR_NO_MEM;
    free(row);
    if (rc == MPI_SUCCESS)
        rc = publish_edges(mst, net);
    mst->ready = rc == MPI_SUCCESS;
    return rc;
}

int ftc_mst_adapt(ftc_mst *mst, ftc_net *net, int nchanges, const ftc_adapt_change *changes)
{
    if (ftc_adapt_begin(&mst->adapt, nchanges, changes, ftc_net_send, net) != 0)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    while (!ftc_adapt_finished(&mst->adapt) && rc == MPI_SUCCESS) {
        ftc_msg msg;
        rc = ftc_net_next(net, &msg);
        if (rc == MPI_SUCCESS)
            ftc_adapt_receive(&mst->adapt, &msg, ftc_net_send, net);
        if (mst->adapt.out_of_memory)
            stop_job();
    }
    if (rc == MPI_SUCCESS)
        rc = ftc_net_flush(net);
    mst->parent = mst->adapt.parent;
    if (rc == MPI_SUCCESS && nchanges > 0)
        rc = publish_edges(mst, net);
    return rc;
}

void ftc_mst_free(ftc_mst *mst)
{
    if (mst->adapt.tree)
        ftc_adapt_free(&mst->adapt);
    free(mst->adjacency);
    memset(mst, 0, sizeof *mst);
}
