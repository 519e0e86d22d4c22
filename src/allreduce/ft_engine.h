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
 * type) valid: the caller checked.
 */
int ftc_ft_allreduce_run(ftc_comm_t comm, const void *input, void *value, int count,
                         MPI_Datatype type, MPI_Op op, size_t bytes, int type_size);

/*
 * Calls of the engine's numbering (ftc_ft_begin_call) whose failure-free
 * attempt runs outside it (ftc_bcast): the engine reports them, keeps their
 * value for late ranks and, after a failure, finishes them with its own
 * recovery, so that they end alike on every survivor.
 */

/* Holdings for such a call's value, over words the communicator keeps (a
 * call allocates nothing): valid until the call returns. */
ftc_holdings *ftc_allreduce_call_holdings(ftc_comm_t comm);

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
 * theirs by the predefined part->op.
 */
typedef struct {
    MPI_Op op;
    size_t block_width;
    /* a block only the root needs (ftc_root_blocks): the part is this rank's
     * own block, packed (block_width bytes, held = this rank), served
     * straight to rank `root`; op is then MPI_OP_NULL */
    bool for_root;
    int root;
} ftc_kept_part;

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

/*
 * A call whose blocks only its root needs (ftc_gatherv): each rank's
 * block goes to the root alone, and only the root knows how large every
 * block is, so no vector of them can be laid out alike on every rank.
 * Its recovery round sends each block of S that the root lacks straight
 * to it, typed at both ends, from the lowest survivor holding it (its
 * owner, inside the call or from the copy it kept), instead of reducing
 * packed vectors; a root dead or past the call needs nothing.
 */
typedef struct {
    int root;                      /* a rank of the communicator */
    /* the root's: rank r's block lands as recv_counts[r] x recv_type at
     * recv + displs[r] x recv_extent */
    char *recv;
    const int *recv_counts;
    const int *displs;
    MPI_Datatype recv_type;
    MPI_Aint recv_extent;
    int recv_type_size;
    /* this rank's own block */
    const void *send;
    int send_count;
    MPI_Datatype send_type;
} ftc_root_blocks;

/* As ftc_allreduce_resume, for such a call: `held` are the ranks whose
 * blocks are in place at the root (its own), or this rank alone (anyone
 * else's, while the root lives). */
int ftc_allreduce_resume_for_root(ftc_comm_t comm, long number, const ftc_root_blocks *blocks,
                                  const ftc_holdings *held);

/* Whether the last completed call's result includes `rank`'s input. */
bool ftc_allreduce_result_includes(ftc_comm_t comm, int rank);

#endif
