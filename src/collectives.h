/*
 * Every collective ftcoll offers, listed once. A row gives its kind (the
 * guard counts and names calls by it: "ftc_bcast call 4"), its public name
 * and its module table (module.h), which the composition root creates and
 * frees with the communicator. Adding a collective is a row here, its
 * file(s) and its declaration in ftcoll.h (docs/architecture.md).
 *
 * The order is the kinds' numbering, which check-in records carry.
 */
#ifndef FTCOLL_COLLECTIVES_H
#define FTCOLL_COLLECTIVES_H

/*         kind       public name      module table */
#define FTC_COLLECTIVES(X)                                    \
    X(ALLGATHER, "ftc_allgather", ftc_allgather_module)       \
    X(ALLGATHERV, "ftc_allgatherv", ftc_allgatherv_module)    \
    X(ALLREDUCE, "ftc_allreduce", ftc_allreduce_module)       \
    X(BCAST,     "ftc_bcast",     ftc_bcast_module)           \
    X(BARRIER,   "ftc_barrier",   ftc_barrier_module)         \
    X(GATHER,    "ftc_gather",    ftc_gather_module)          \
    X(GATHERV,   "ftc_gatherv",   ftc_gatherv_module)         \
    X(SCATTERV,  "ftc_scatterv",  ftc_scatterv_module)         \
    X(SCATTER,   "ftc_scatter",   ftc_scatter_module)           \
    X(REDUCE,    "ftc_reduce",    ftc_reduce_module)            \
    X(ALLTOALL,  "ftc_alltoall",  ftc_alltoall_module)          \
    X(ALLTOALLV, "ftc_alltoallv", ftc_alltoallv_module)          \
    X(REDUCE_SCATTER, "ftc_reduce_scatter", ftc_reduce_scatter_module) \
    X(REDUCE_SCATTER_BLOCK, "ftc_reduce_scatter_block", ftc_reduce_scatter_block_module) \
    X(SCAN,      "ftc_scan",      ftc_scan_module)             \
    X(EXSCAN,    "ftc_exscan",    ftc_exscan_module)

#endif
