/*
 * The blocks of a chain's recovery (chain.c), and the end of a chain that
 * a death stopped, once the engine's round gave every survivor every block
 * held. A block per rank: N bytes, a tag (a prefix P_r, an input a_r, or
 * nothing where nobody held it) and, for a prefix, the ranks it combines.
 *
 *   K        the highest rank whose prefix is there
 *   S        the ranks P_K combines (every rank live up to K in the
 *            chain's epoch), and above K the ranks whose input is there
 *   result   a rank whose message never arrived (K is below it) folds
 *            P_K op a_j over the inputs of S after K, up to itself
 *            (ftc_exscan: before it), in rank order, in the blocks
 *            themselves:
 *
 *              rank 4, K = 1, inputs of 3 and 4:  (P_1 op a_3) op a_4
 *
 *            where S has nothing up to it (ftc_exscan's rank 0, or every
 *            rank before it dead and lost), recvbuf stays as it was
 *
 * Cost: up to p - 1 local ops of N bytes, after a failure only.
 */
#include <string.h>

#include "../allreduce/ft_engine.h"
#include "../error.h"
#include "../reduce_local.h"
#include "scan.h"
#include "state.h"

/* A block: N bytes, the tag, then the ranks combined as holdings words. */
static size_t words_bytes(const ftc_scan_call *call)
{
    return sizeof(uint64_t) * (size_t)ftc_holdings_words(call->comm->size);
}

/* Rounded up to 16 bytes: every block starts aligned for any predefined
 * type, as the op that folds it expects. */
size_t ftc_scan_block_width(const ftc_scan_call *call)
{
    const size_t bytes = ftc_scan_block_bytes(call) + 1 + words_bytes(call);
    return (bytes + 15) & ~(size_t)15;
}

static char *block_of(const ftc_scan_call *call, char *blocks, int rank)
{
    return blocks + (size_t)rank * ftc_scan_block_width(call);
}

static char tag_of(const ftc_scan_call *call, char *blocks, int rank)
{
    return block_of(call, blocks, rank)[ftc_scan_block_bytes(call)];
}

void ftc_scan_write_tag(const ftc_scan_call *call, char *block, char tag,
                        const ftc_holdings *combined)
{
    block[ftc_scan_block_bytes(call)] = tag;
    memcpy(block + ftc_scan_block_bytes(call) + 1, combined->words, words_bytes(call));
}

/* The highest rank below `below` whose prefix is among the blocks, or -1. */
static int highest_prefix(const ftc_scan_call *call, char *blocks, int below)
{
    int k = below - 1;
    while (k >= 0 && tag_of(call, blocks, k) != FTC_SCAN_TAG_PREFIX)
        k--;
    return k;
}

/* P_K op a_j over the inputs after K up to `top`, from the lowest up, so an
 * op need not be commutative; *at: the rank whose block holds the result,
 * or -1 when there is none. */
static int fold_from(const ftc_scan_call *call, char *blocks, int k, int top, int *at)
{
    int prefix = k;
    for (int j = k + 1; j <= top; j++) {
        if (tag_of(call, blocks, j) != FTC_SCAN_TAG_INPUT)
            continue;
        if (prefix >= 0 && ftc_reduce_local(block_of(call, blocks, prefix),
                                            block_of(call, blocks, j), call->count,
                                            call->type, call->op) != MPI_SUCCESS)
            return ftc_fail(MPI_ERR_OP, "%s: MPI_Reduce_local failed on rank %d's block",
                            call->name, j);
        prefix = j;
    }
    *at = prefix;
    return MPI_SUCCESS;
}

int ftc_scan_fold(const ftc_scan_call *call, char *blocks)
{
    ftc_comm_t comm = call->comm;
    ftc_holdings *s = &comm->scan->result;
    const int k = highest_prefix(call, blocks, comm->rank);
    ftc_holdings_clear(s);
    if (k >= 0)
        memcpy(s->words, block_of(call, blocks, k) + ftc_scan_block_bytes(call) + 1,
               words_bytes(call));
    for (int j = k + 1; j < comm->size; j++)
        if (tag_of(call, blocks, j) == FTC_SCAN_TAG_INPUT)
            ftc_holdings_add(s, j);
    ftc_allreduce_report_set(comm, s);
    int at = -1;
    const int rc = fold_from(call, blocks, k, call->exclusive ? comm->rank - 1 : comm->rank, &at);
    if (rc == MPI_SUCCESS && at >= 0 && call->count > 0)
        memcpy(call->result, block_of(call, blocks, at), ftc_scan_block_bytes(call));
    return rc;
}
