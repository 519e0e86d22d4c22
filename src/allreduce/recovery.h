/*
 * Recovery planning for the fault-tolerant allreduce. Pure C, no MPI.
 *
 * Input: which original ranks are alive, and what each survivor's partial
 * value holds (holdings.h). Output: who continues, who waits, and what the
 * result will cover.
 *
 *   masters    the survivors whose holdings are maximal: no other survivor
 *              holds a strict superset. Recursive doubling only ever unites
 *              disjoint sets, so holdings are nested or disjoint, and the
 *              maximal ones are disjoint and cover every contribution that
 *              still exists. Among equal holdings, the lowest rank is master.
 *              The masters reduce their values (one more recursive doubling,
 *              recursive_doubling.h), then hand the result out.
 *   master_of  for every survivor, the master whose holdings contain its own:
 *              where it gets the result. A survivor whose value was left
 *              behind by a failed exchange ("corrupted") and a spare that
 *              handed its value over are both simply non-masters.
 *   result     S: the union of all survivors' holdings.
 *   lost       every rank not in S: dead ranks whose contribution no survivor
 *              holds. Never a live rank.
 *
 * Epoch 0 of every call is the same plan with everyone alive holding only
 * itself: all ranks are masters. A failure at any point — before the first
 * step, inside the recursive doubling, during the hand-out, during an
 * earlier recovery — is followed by the same planning over the holdings the
 * survivors have then, so recovery needs no case analysis.
 */
#ifndef FTCOLL_ALLREDUCE_RECOVERY_H
#define FTCOLL_ALLREDUCE_RECOVERY_H

#include <stdbool.h>

#include "../ft/holdings.h"

typedef enum {
    FTC_PLAN_OK = 0,
    FTC_PLAN_NO_MEMORY,
    FTC_PLAN_NO_SURVIVOR,      /* nobody is alive: nothing to plan */
    FTC_PLAN_NOT_LAMINAR,      /* two holdings overlap without nesting: refused,
                                * since combining them would count twice */
} ftc_plan_status;

typedef struct {
    int size;              /* original ranks */
    int nmasters;
    int *masters;          /* in rank order */
    int *master_of;        /* per rank: its master, itself for a master, -1 if dead */
    ftc_holdings result;   /* S */
    ftc_holdings lost;     /* complement of S */
    bool complete;         /* a single master: it already holds S */
} ftc_recovery_plan;

/* held[r] is read only where alive[r]. Free the plan with
 * ftc_recovery_plan_destroy whatever the status. */
ftc_plan_status ftc_recovery_plan_build(ftc_recovery_plan *plan, int size, const bool *alive,
                                        const ftc_holdings *held);
void ftc_recovery_plan_destroy(ftc_recovery_plan *plan);

/*
 * The round for blocks routed each to one rank (a gatherv's to the root,
 * a scatterv's to their owners): holdings are blocks, not partial values,
 * and nothing is reduced. Block `owner`, which `destination` needs, goes
 * straight to it from the lowest participant other than the destination
 * that holds it: ftc_recovery_block_sender says who (-1: the destination
 * holds it, or nobody does). held[r] is read only where participant[r].
 */
int ftc_recovery_block_sender(int size, const bool *participant, const ftc_holdings *held,
                              int destination, int owner);

/*
 * The same for an alltoall, whose blocks are pairs: held[d] is the senders
 * whose blocks for d are at d, and only a block's sender holds it besides
 * (its row: inside the call its send buffer, past it the copy it kept,
 * every block it kept none of having been acknowledged, so held at its
 * destination). The block from `sender` that `destination` needs comes
 * from `sender` itself: returns it, or -1 when the destination holds it
 * or the sender takes no part (dead: the block is lost).
 */
int ftc_recovery_pair_sender(int size, const bool *participant, const ftc_holdings *held,
                             int destination, int sender);

#endif
