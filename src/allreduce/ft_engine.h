/* The fault-tolerant allreduce's execution over MPI (see docs/ft-allreduce.md). */
#ifndef FTCOLL_ALLREDUCE_FT_ENGINE_H
#define FTCOLL_ALLREDUCE_FT_ENGINE_H

#include <stdbool.h>
#include <stddef.h>

#include <mpi.h>

#include "../comm.h"
#include "../ft/holdings.h"
#include "../inject.h"

/*
 * Reduces `count` elements of `type` (`bytes` in all) with `op` across the
 * live ranks; `value` holds this rank's input on entry and the result on
 * return. `input`, if not NULL, is the same input, left unchanged during
 * the call (the caller's send buffer): a failure can restart from it
 * without a copy. `type` is predefined (of `type_size` bytes) and (op,
 * type) valid: the caller checked. `call`: the public call's name, which
 * strict mode's error gives (ftc_allreduce_check_strict).
 */
int ftc_ft_allreduce_run(ftc_comm_t comm, const void *input, void *value, int count,
                         MPI_Datatype type, MPI_Op op, size_t bytes, int type_size,
                         const char *call);

/*
 * Calls of the engine's numbering (ftc_ft_begin_call) whose failure-free
 * attempt runs outside it (ftc_bcast): the engine reports them, keeps their
 * value for late ranks and, after a failure, finishes them with its own
 * recovery, so that they end alike on every survivor.
 */

/* Holdings for such a call's value, over words the communicator keeps (a
 * call allocates nothing): valid until the call returns. */
ftc_holdings *ftc_allreduce_call_holdings(ftc_comm_t comm);

/* The same words, holding this rank alone: a block that is its own. */
ftc_holdings *ftc_allreduce_own_holdings(ftc_comm_t comm);

/* FTCOLL_INJECT at step `step` of such an attempt (round 0); `send`, if not
 * NULL, completes first at FTC_INJECT_AFTER_SEND. */
void ftc_allreduce_injection_point(ftc_comm_t comm, long number, int step, ftc_inject_when when,
                                   MPI_Request *send);

/* What a rank knows of the others when its attempt completes a call. */
typedef enum {
    FTC_OTHERS_MAY_LAG,    /* some may not have entered it yet (a broadcast without tokens) */
    FTC_EVERYONE_ENTERED,  /* none completes it before every live rank entered it */
    FTC_EVERYONE_HOLDS,    /* none completes it before every live rank holds its value:
                            * a rank still inside it needs nothing served */
} ftc_completed_as;

/*
 * The attempt of call `number` completed here, its value (`count` x `type`,
 * `bytes` in all) holding `held`: reports it (S = held) and returns in
 * *keep_into where the caller writes the value for ranks that may finish
 * the call late, NULL when none ever could need it (no late rank can
 * exist, or `how` is FTC_EVERYONE_HOLDS: then a late rank brings the value
 * itself, and this rank serves it with empty holdings, receiving the value
 * into room it makes then). A call
 * FTC_OTHERS_MAY_LAG must come within FTC_FT_WINDOW calls of one that is
 * not (ftc_ft_end_call), and is small: its value is kept beside the
 * window's first.
 *
 * `part`: NULL when the value is the call's whole result (a late rank holds
 * a part of it at most). Else the value is a part (an ftc_gather's blocks
 * passed on): p blocks of part->block_width bytes, zeros but those of the
 * ranks in `held`, which alone are kept, in rank order, in *keep_into
 * (|held| x block_width bytes); served to late ranks, it is combined with
 * theirs by the predefined part->op. Or, part->whole, the value itself is
 * the part: the inputs of `held` combined by part->op (an ftc_reduce
 * rank's own input), kept whole. Or the part holds blocks routed to where
 * they belong (ftc_routed_blocks), kept as part->route says.
 */
typedef enum {
    FTC_ROUTE_NONE = 0,      /* a value combined with op */
    /* this rank's own block for rank `root` (an ftc_gatherv's), packed:
     * block_width bytes, held = this rank */
    FTC_ROUTE_TO_ROOT,
    /* the blocks of `held` for their owners (an ftc_scatterv's root), laid
     * out as ftc_route_table_bytes says: block_width bytes in all; a rank
     * that keeps none (any other) keeps 0 bytes */
    FTC_ROUTE_TO_OWNERS,
    /* this rank's blocks for the others (an ftc_alltoall(v)'s row), laid
     * out as FTC_ROUTE_TO_OWNERS's: block_width bytes in all, 0 when
     * every block was acknowledged */
    FTC_ROUTE_ALL_TO_ALL,
} ftc_route;

typedef struct {
    MPI_Op op;               /* MPI_OP_NULL on a route */
    bool whole;              /* the value is the part, not p blocks */
    size_t block_width;
    ftc_route route;
    int root;
} ftc_kept_part;

/* The kept blocks of FTC_ROUTE_TO_OWNERS on a communicator of `size`
 * ranks: `size` ints, each block's packed bytes (0: not kept), then `size`
 * ints, each one's displacement in bytes from the table's end, then the
 * packed blocks; this is the table's size, before the blocks. */
static inline size_t ftc_route_table_bytes(int size)
{
    return 2 * (size_t)size * sizeof(int);
}

int ftc_allreduce_attempt_completed(ftc_comm_t comm, long number, const ftc_holdings *held,
                                    int count, MPI_Datatype type, size_t bytes,
                                    ftc_completed_as how, const ftc_kept_part *part,
                                    char **keep_into);

/*
 * A failure stopped the attempt of call `number`, this rank's `value` (as
 * for ftc_ft_allreduce_run) holding `held`: the survivors finish the call
 * with the engine's recovery (a meeting, the round over everyone's
 * holdings), `value` gets the result of `op` over S, S is reported and the
 * result kept. Strict mode is the caller's to apply.
 */
int ftc_allreduce_resume(ftc_comm_t comm, long number, void *value, int count, MPI_Datatype type,
                         MPI_Op op, size_t bytes, const ftc_holdings *held);

/* Where a rank's blocks for (or from) every rank lie: block r is
 * counts[r] x type at base + displs[r] x extent (displs NULL: at base +
 * r x stride x extent). */
typedef struct {
    char *base;
    const int *counts;
    const int *displs;
    MPI_Aint stride;
    MPI_Datatype type;
    MPI_Aint extent;
    int type_size;
} ftc_block_places;

/* Where block `rank` of `p` starts. */
static inline char *ftc_block_place(const ftc_block_places *p, int rank)
{
    const MPI_Aint at = p->displs ? (MPI_Aint)p->displs[rank] : (MPI_Aint)rank * p->stride;
    return p->base + at * p->extent;
}

/*
 * A call whose blocks go each to one rank: to the root (ftc_gatherv,
 * FTC_ROUTE_TO_ROOT), from the root to their owners (ftc_scatterv,
 * FTC_ROUTE_TO_OWNERS), or from every rank to every rank (ftc_alltoall(v),
 * FTC_ROUTE_ALL_TO_ALL). Only the root knows how large every block is (or
 * each rank its own row and column), so no vector of them can be laid out
 * alike on every rank. The recovery
 * round sends each block of S that its destination, still inside the
 * call, lacks straight to it, typed at both ends, from the lowest other
 * survivor holding it (inside the call, or from the copy it kept),
 * instead of reducing packed vectors; a destination dead or past the call
 * needs nothing.
 */
typedef struct {
    ftc_route route;               /* FTC_ROUTE_TO_ROOT, _TO_OWNERS or _ALL_TO_ALL */
    int root;                      /* a rank of the communicator */
    /* the root's: rank r's block is counts[r] x type at
     * blocks + displs[r] x extent (its recvbuf for a gatherv, its sendbuf
     * for a scatterv); on the way to the owners any other participant
     * that holds blocks for others describes them so too (counts[r] = -1:
     * rank r's is not here) */
    char *blocks;
    const int *counts;
    const int *displs;             /* or NULL: block r at r x stride x extent */
    MPI_Aint stride;
    MPI_Datatype type;
    MPI_Aint extent;
    int type_size;
    /* this rank's own block: the one it sends to the root (gatherv), or
     * where the root's for it lands (scatterv) */
    const void *send;
    void *recv;
    int own_count;
    MPI_Datatype own_type;
    /* FTC_ROUTE_ALL_TO_ALL: `blocks` .. `type_size` are this rank's blocks
     * for the others (its sendbuf), and here the others' land (recvbuf) */
    ftc_block_places column;
} ftc_routed_blocks;

/* As ftc_allreduce_resume, for such a call. `held`: the owners whose
 * blocks this rank holds: at a gatherv's root those in place (its own
 * among them), elsewhere this rank while the root lives; at a scatterv's
 * root every rank, elsewhere this rank once its block arrived (and the
 * others' it holds on their way, as `blocks` describes them); in an
 * alltoall the senders whose blocks for it arrived (itself among them: a
 * rank holds its own row whole while inside the call). The blocks
 * that reach this rank as their destination are added to what it holds
 * (ftc_allreduce_result_includes says which). */
int ftc_allreduce_resume_routed(ftc_comm_t comm, long number, const ftc_routed_blocks *blocks,
                                const ftc_holdings *held);

/* Whether the last completed call's result includes `rank`'s input. */
bool ftc_allreduce_result_includes(ftc_comm_t comm, int rank);

/* The last call's report names S = `s` instead of what the engine
 * reported: a scan's S, which its blocks' tags decide (src/scan/fold.c). */
void ftc_allreduce_report_set(ftc_comm_t comm, const ftc_holdings *s);

/* The last call's report names the ranks below `end` only: a scan's
 * result is defined by its S up to the caller, and a rank of its chain
 * completes knowing nothing of the ranks after it. */
void ftc_allreduce_report_below(ftc_comm_t comm, int end);

/* A call that restarts after its recovery (a reduce-scatter's halving, by
 * the allreduce) reports once: hold sets the first part's report aside,
 * join adds its rounds, deaths and time to the restart's, and counts the
 * call as recovered once. */
void ftc_allreduce_report_hold(ftc_comm_t comm);
void ftc_allreduce_report_join(ftc_comm_t comm);

/* Strict mode (ftc_allreduce_set_strict): MPIX_ERR_PROC_FAILED, "CALL
 * (strict): ...", when `s` lacks any rank; the same on every survivor. */
int ftc_allreduce_check_strict(ftc_comm_t comm, const ftc_holdings *s, const char *call);

#endif
