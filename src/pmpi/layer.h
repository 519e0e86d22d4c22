/*
 * The PMPI layer (libftcoll-pmpi.so): MPI_Init, MPI_Allreduce, ... defined
 * here route an unmodified program's collectives to ftcoll; everything else
 * reaches MPI untouched.
 *
 *   init.c         MPI_Init(_thread), MPI_Finalize, MPI_Comm_free; settings
 *   comms.c        one layer_comm per communicator the program made or used
 *                  in a collective: its ftcoll communicator
 *   constructors.c MPI_Comm_dup, MPI_Comm_split, MPI_Cart_create, ...: the
 *                  ftcoll communicator made with the communicator
 *   collectives.c  MPI_Allreduce, MPI_Reduce, MPI_Reduce_scatter(_block),
 *                  MPI_Scan, MPI_Exscan, MPI_Allgather(v), MPI_Gather(v), MPI_Scatter(v),
 *                  MPI_Alltoall(v), MPI_Bcast, MPI_Barrier
 *   summary.c      what the layer did, per process, for ftcrun's summary
 *
 * ftcoll itself calls MPI: while a thread is inside ftcoll (layer_depth > 0)
 * every wrapper goes straight to the PMPI_ call.
 */
#ifndef FTCOLL_PMPI_LAYER_H
#define FTCOLL_PMPI_LAYER_H

#include <stdbool.h>

#include <mpi.h>

#include "ftcoll.h"

typedef enum {
    LAYER_ALLREDUCE = 0,
    LAYER_ALLGATHER = 1,
    LAYER_BCAST = 2,
    LAYER_BARRIER = 3,
    LAYER_ALLGATHERV = 4,
    LAYER_GATHER = 5,
    LAYER_GATHERV = 6,
    LAYER_SCATTERV = 7,
    LAYER_SCATTER = 8,
    LAYER_REDUCE = 9,
    LAYER_ALLTOALL = 10,
    LAYER_ALLTOALLV = 11,
    LAYER_REDUCE_SCATTER = 12,
    LAYER_REDUCE_SCATTER_BLOCK = 13,
    LAYER_SCAN = 14,
    LAYER_EXSCAN = 15,
    LAYER_KINDS = 16
} layer_kind;

const char *layer_kind_name(layer_kind kind);   /* "allreduce", ... */

/* What the layer did on one communicator (summed into the process's at free). */
typedef struct {
    long routed[LAYER_KINDS];          /* calls run by ftcoll */
    long allgather_runs[FTC_ALLGATHER_ALGORITHM_COUNT];   /* by executed algorithm */
    long allgatherv_runs[FTC_ALLGATHERV_ALGORITHM_COUNT];
    long gather_runs[FTC_GATHER_ALGORITHM_COUNT];
    long scatter_runs[FTC_SCATTER_ALGORITHM_COUNT];
    long alltoall_runs[FTC_ALLTOALL_ALGORITHM_COUNT];   /* alltoalls and alltoallvs */
    long reduce_scatter_runs[FTC_REDUCE_SCATTER_ALGORITHM_COUNT];   /* and _blocks */
    long recovery_rounds;              /* of the fault-tolerant engine */
    long checkins, stops, warnings;    /* guard */
    long tree_calls;                   /* broadcasts over a tree (FTCOLL_BCAST, FTCOLL_TOPOLOGY) */
    long tree_rounds, tree_changes;    /* adaptations that found changes; channels changed */
    char tree_last[16];                /* the tree the last one used */
} layer_stats;

typedef struct layer_comm {
    MPI_Comm user;           /* the program's communicator */
    ftc_comm_t ftc;          /* NULL: every collective goes to MPI (intercommunicator,
                              * or ftcoll could not be set up on it) */
    layer_stats stats;
    long recovered_calls;    /* ftc_comm_recovered_calls at the last routed call */
    bool detaching;          /* the layer drops the attribute itself: its callback
                              * must leave `lc` alone */
    struct layer_comm *next; /* the list of live layer_comms, newest first */
} layer_comm;

/* The layer's settings (FTCOLL_NATIVE, FTCOLL_REPORT) and state. */
typedef struct {
    bool active;                  /* between our MPI_Init and MPI_Finalize */
    bool native[LAYER_KINDS];     /* FTCOLL_NATIVE: left to MPI */
    const char *report_dir;       /* FTCOLL_REPORT, or NULL */
    int world_rank, world_size;
    layer_comm *world;
} layer_state;

extern layer_state layer;
extern _Thread_local int layer_depth;

/* A wrapper goes straight to MPI: outside our MPI_Init..MPI_Finalize, or
 * called from inside ftcoll. */
static inline bool layer_bypass(void)
{
    return !layer.active || layer_depth > 0;
}

/* Whether an error on `comm` ends the job (its handler is
 * MPI_ERRORS_ARE_FATAL or MPI_ERRORS_ABORT): only then does the layer
 * print ftcoll's own message, the one thing MPI's abort cannot say. A
 * program that takes errors back decides itself what to print. */
static inline bool layer_errors_are_fatal(MPI_Comm comm)
{
    MPI_Errhandler handler;
    if (PMPI_Comm_get_errhandler(comm, &handler) != MPI_SUCCESS)
        return true;
    bool fatal = handler == MPI_ERRORS_ARE_FATAL;
#ifdef MPI_ERRORS_ABORT
    fatal = fatal || handler == MPI_ERRORS_ABORT;   /* MPI-4's: the job ends too */
#endif
    PMPI_Errhandler_free(&handler);
    return fatal;
}

/* Parses FTCOLL_NATIVE ("bcast,barrier"; "" or unset: none). */
bool layer_parse_native(const char *text, bool native[LAYER_KINDS], char *why, size_t why_size);

/* comms.c */
int layer_comms_start(void);                 /* keyval; the world's layer_comm */
void layer_comms_finish(void);               /* frees them all, world last (collective) */
layer_comm *layer_comm_of(MPI_Comm comm);    /* made on first use (collective) */
int layer_comm_made(MPI_Comm *comm);         /* made with the communicator (collective);
                                              * failing, *comm is freed: MPI_COMM_NULL */
const char *layer_comm_failure(void);        /* why the last making failed */
void layer_comm_free(MPI_Comm comm);         /* before MPI_Comm_free (collective) */
void layer_note_ft_call(layer_comm *lc);     /* failures and recoveries of the last call */
void layer_note_failed(MPI_Comm comm, const int *ranks, int count);

/* summary.c */
void layer_summary_add(const layer_stats *stats);
void layer_summary_forwarded(layer_kind kind);   /* a call passed to MPI (any thread) */
void layer_summary_failed_world_rank(int world_rank);
void layer_summary_finalized(void);
int layer_summary_start(void);               /* writes the report at exit */
void layer_summary_write(int status);        /* now (a process leaving by _exit) */
bool layer_summary_saw_failure(void);        /* a rank was found dead here */

#endif
