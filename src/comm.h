/*
 * The ftcoll communicator (the internal view of ftc_comm_t): what every
 * module shares (the MPI communicator, scratch space, the progress slot
 * the watchdog reads) and one opaque pointer per module to the state it
 * owns. communicator.c creates and frees it; module.h says how a module
 * takes part. This header includes only the runtime below it, so that
 * every layer above may include it without a cycle.
 */
#ifndef FTCOLL_COMM_H
#define FTCOLL_COMM_H

#include <stdbool.h>
#include <stddef.h>

#include "args.h"
#include "ftcoll.h"
#include "schedule_exec.h"
#include "watch.h"

/* Room every communicator holds from its creation, for a small call's
 * incoming value and the first kept result: a first small allreduce or
 * barrier then allocates nothing, so that a rank out of memory fails the
 * creation on every rank alike, not that call on one rank (under the layer
 * without ULFM, the first collective makes the communicator). */
enum { FTC_SMALL_SCRATCH_BYTES = 256 };

struct ftc_comm {
    MPI_Comm comm;              /* private duplicate, MPI_ERRORS_RETURN */
    int rank;
    int size;
    bool verbose;               /* FTCOLL_VERBOSE */
    MPI_Comm self;              /* MPI_COMM_SELF's duplicate, MPI_ERRORS_RETURN: for
                                 * checks whose errors MPI would raise fatally */

    ftc_exec_scratch exec;      /* requests and statuses for the schedule engine */
    ftc_watch_slot watch;       /* what this rank's call is doing, for the watchdog */
    char *scratch;              /* bytes for local rotations, allreduce partner values
                                 * (FTC_SMALL_SCRATCH_BYTES from the creation on) */
    size_t scratch_size;
    char *packed;               /* a second scratch buffer: ftc_bcast packs its data
                                 * there while the engine works in `scratch` */
    size_t packed_size;
    struct {                    /* the last (op, type) pair an allreduce accepted */
        MPI_Op op;
        bool op_predefined;     /* a predefined op is never freed: commutative for good */
        ftc_known_type known;   /* the type (predefined) and its shape (args.h) */
    } checked;
    ftc_known_type bcast_type;  /* the broadcast's last predefined type (args.h) */
    int bcast_plan;             /* FTCOLL_BCAST_PLAN: an ftc_bcast_algorithm (bcast/select.h) */
    int bcast_confirmation;     /* FTCOLL_BCAST_CONFIRM: an ftc_bcast_confirmation */
    bool bcast_processors_shared;   /* for FTCOLL_BCAST_CONFIRM=auto (processors.h) */
    long bcast_class_calls[8];  /* fault-tolerant broadcasts so far per size class, every
                                 * rank alike: when tokens go (ft/tokens.h) */

    /* the modules' states, each private to its module (communicator.c's table) */
    struct ftc_ft *ft;                          /* ft/ft.h */
    struct ftc_allreduce_state *allreduce;      /* allreduce/ft_call.h */
    struct ftc_allgather_state *allgather;      /* allgather/state.h */
    struct ftc_allgatherv_state *allgatherv;    /* allgather/state.h */
    struct ftc_gather_state *gather;            /* gather/state.h */
    struct ftc_gatherv_state *gatherv;          /* gather/state.h */
    struct ftc_scatterv_state *scatterv;        /* scatter/state.h */
    struct ftc_scatter_state *scatter;          /* scatter/state.h */
    struct ftc_alltoall_state *alltoall;        /* alltoall/state.h, alltoallv's too */
    struct ftc_reduce_scatter_state *reduce_scatter;   /* reduce_scatter/state.h, the
                                                        * _block's too */
    struct ftc_reduce_state *reduce;            /* reduce/state.h */
    struct ftc_scan_state *scan;                /* scan/state.h, the exscan's too */
    struct ftc_tree_comm *tree;                 /* bcast/adaptive_state.h; NULL if unused */
    struct ftc_guard *guard;                    /* guard/state.h */
};

#endif
