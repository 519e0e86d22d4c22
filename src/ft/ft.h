/*
 * The fault-tolerance layer every collective stands on: which ranks are
 * alive, the failure sentinel, watched waits, call numbers, and the
 * survivors' meetings that end each failure epoch. Collectives, the guard
 * and the PMPI layer reach it through this header only. With ULFM a
 * failure is survived; without it (MPICH) the layer only counts calls and
 * waits plainly. Design and correctness argument: docs/ft-allreduce.md.
 *
 *   epoch 0      the ftcoll communicator itself, every rank alive
 *   failure      the sentinel (a wildcard receive on a twin communicator
 *                of the same group, nobody sends to it) fails on every
 *                survivor: each wait that includes it stops, cancels its
 *                receives and releases its sends, and its caller meets
 *   meeting      MPIX_Comm_shrink: epoch e + 1 is a new communicator of
 *                the survivors, so nothing sent in epoch e can ever be
 *                matched again; the survivors exchange where they are
 *                (which call, what their value holds), reconcile
 *                (reconcile.h), run the round the collective registered,
 *                and agree that everyone finished it, or meet again
 */
#ifndef FTCOLL_FT_FT_H
#define FTCOLL_FT_FT_H

#include <stdbool.h>

#include <mpi.h>

#include "../comm.h"
#include "../module.h"
#include "holdings.h"
#include "reconcile.h"

/* Internal result: a process failure was detected; the caller meets. */
enum { FTC_DETECTED = -1 };

/* Waits are over at most this many requests besides the sentinel. */
enum { FTC_FT_MAX_WAIT = 32 };

/* Calls of the tag window: the default, and the bounds of FTCOLL_TAG_WINDOW
 * (at least twice the calls a meeting may see apart, reconcile.h, so
 * that calls in progress together never share a tag). */
enum { FTC_FT_TAG_WINDOW = 8192, FTC_FT_TAG_WINDOW_MIN = 2 * FTC_FT_WINDOW,
       FTC_FT_TAG_WINDOW_MAX = 16384 };

typedef struct ftc_ft ftc_ft;

/* ---- the layer's life ---------------------------------------------------- */

/* comm->ft: made first and released last by communicator.c (FTCOLL_TAG_WINDOW;
 * at ftc_comm_free it settles, as ftc_ft_leave). */
extern const ftc_module ftc_ft_module;

/* ---- who is alive (as the survivors last agreed) ------------------------- */

int ftc_ft_live_count(const ftc_ft *ft);
const int *ftc_ft_live_ranks(const ftc_ft *ft);   /* ascending */
int ftc_ft_live_index(const ftc_ft *ft);          /* this rank's place in them */
const ftc_holdings *ftc_ft_live_set(const ftc_ft *ft);
bool ftc_ft_is_alive(const ftc_ft *ft, int rank);

/* ---- the current epoch ----------------------------------------------------- */

/* Its communicator (the survivors, in rank order) and a rank's place in it. */
MPI_Comm ftc_ft_epoch_comm(const ftc_ft *ft);
int ftc_ft_epoch_rank(const ftc_ft *ft, int rank);
long ftc_ft_epoch(const ftc_ft *ft);

/* The tag of call `number`'s failure-free attempt. */
int ftc_ft_call_tag(const ftc_ft *ft, long number);

/*
 * The watch for runs of the caller's own (ftc_schedule_run): it stops them
 * once a rank of the epoch is known dead (ftc_ft_failure_noticed). NULL
 * without ULFM, or when no sentinel could be posted (the death is known
 * already: ftc_ft_failure_known).
 */
const struct ftc_exec_watch *ftc_ft_exec_watch(ftc_ft *ft);

/* A rank of the epoch is known dead although no sentinel could say so
 * (ULFM refused to post it): callers with waits of their own stop. */
bool ftc_ft_failure_known(const ftc_ft *ft);
/* Whether a death in the epoch is known here now, for loops that poll
 * transfers of their own (the network trees' measurements): the sentinel
 * tested; a death of a rank outside the epoch only re-arms it (ft.c);
 * false without ULFM. */
bool ftc_ft_failure_noticed(ftc_ft *ft);
/* A death in the epoch seen by other means (a transfer of the caller's
 * own failed with it): every wait of the epoch stops at once, and a
 * broadcast goes straight to its recovery (ft_bcast.c). */
void ftc_ft_note_failure(ftc_ft *ft);

/*
 * Waits for up to FTC_FT_MAX_WAIT requests (null ones allowed) and the
 * sentinel. A process failure (of a peer, or the sentinel's) cancels the
 * receives, releases the sends and returns FTC_DETECTED; other errors come
 * back as MPI error codes. A receive is checked to have brought exactly
 * expected[i] bytes (expected: NULL, or -1 for sends): MPI_ERR_TRUNCATE.
 */
int ftc_ft_wait(ftc_ft *ft, MPI_Request *requests, const int *expected, int n);

/* ftc_ft_wait inside a collective's flow: the watchdog is told what this
 * rank waits for (`doing` rank `peer`, at `step`); a process failure,
 * detected or returned, gives FTC_DETECTED; any other error fails here,
 * "CALL: DOING rank PEER failed". */
int ftc_ft_wait_in_flow(ftc_comm_t comm, MPI_Request *requests, const int *expected, int n,
                        int step, const char *call, const char *doing, int peer);

/* Cancels the receives (expected[i] >= 0) and releases the sends of a
 * transfer stopped before its wait, as ftc_ft_wait does on a failure. */
void ftc_ft_abandon(MPI_Request *requests, const int *expected, int n);

/*
 * A flow's empty messages (a root's word, an acknowledgement), on the
 * epoch's communicator with the call's `tag`: sent to, or received from,
 * the epoch ranks peer(context, i) names for i = 0 .. count - 1 (-1: none
 * for that i), waited together in batches of FTC_FT_MAX_WAIT by
 * ftc_ft_wait_in_flow, which names `call`, `doing` and the batch's first
 * peer to the watchdog and in errors. A message received must be empty.
 */
typedef struct {
    ftc_comm_t comm;
    int tag;
    int step;              /* FTCOLL_INJECT's, for the watchdog */
    const char *call;      /* "ftc_gather" */
    const char *doing;     /* "passing the word to" */
} ftc_ft_empties;

int ftc_ft_empty_messages(const ftc_ft_empties *e, bool receive, int count,
                          int (*peer)(const void *context, int i), const void *context);

/* One such message, with epoch rank `index`. */
int ftc_ft_empty_message(const ftc_ft_empties *e, bool receive, int index);

/*
 * The dissemination barrier's empty messages over the epoch's live ranks,
 * on e->tag: ceil(log2 n) exchanges, at distance d from live index i + d
 * and to i - d. A rank completes it only after hearing, through its chain
 * of receives, from every live rank after that rank entered it.
 * `first_sent`, if not NULL, is called once the first send is posted (a
 * fault injection point). Messages of the same call sent before it on the
 * same tag come first (MPI keeps the order between two ranks).
 */
int ftc_ft_dissemination(const ftc_ft_empties *e,
                         void (*first_sent)(const void *context, MPI_Request *send),
                         const void *context);

/* Whether a collective can go on over the survivors of a death (ULFM). */
#ifdef FTCOLL_HAVE_ULFM
enum { FTC_FT_SURVIVES = 1 };
#else
enum { FTC_FT_SURVIVES = 0 };
#endif

/* MPIX_ERR_PROC_FAILED with ULFM, MPI_ERR_OTHER without. */
int ftc_ft_failed_class(void);
bool ftc_ft_is_process_failure(int rc);

/* Whether a flow stopped by `rc` ends over the survivors: a death was
 * detected (FTC_DETECTED, or MPI's own process-failure class) and ULFM
 * lets the survivors go on. */
static inline bool ftc_ft_survivable(int rc)
{
    return FTC_FT_SURVIVES && (rc == FTC_DETECTED || ftc_ft_is_process_failure(rc));
}

/*
 * Ends one collective step of making a communicator alike on every live
 * rank of `comm`: MPI_SUCCESS where every live rank's `rc` was
 * MPI_SUCCESS and none of them died; else an error on every one of them:
 * MPIX_ERR_PROC_FAILED where a rank died (every survivor alike), else `rc`
 * where it was this rank's own. With ULFM an agreement (MPIX_Comm_agree)
 * decides, whose flag and failure error every survivor gets alike: a step
 * that failed on one rank alone (a death seen by some ranks, not by
 * others) can no longer leave the others waiting for it in the next step.
 * A rank whose step a death stopped first revokes `step_comm` (unless
 * MPI_COMM_NULL), the communicator of the step's own collectives, so that
 * the ranks still inside one of them leave it for the agreement. Without
 * ULFM an allreduce of the flags decides (a death ends the job).
 */
int ftc_ft_agree_step(MPI_Comm comm, MPI_Comm step_comm, int rc, const char *who,
                      const char *step);

/* As ftc_ft_agree_step, for a step that ended in ftc_agree_equal, whose
 * allreduce already gave every rank the same verdict unless a rank died
 * inside it: with ULFM the agreement; without ULFM (a death ends the job)
 * `rc` as it is, with no second allreduce. */
int ftc_ft_settle_agreed_step(MPI_Comm comm, MPI_Comm step_comm, int rc, const char *who,
                              const char *step);

/* ---- calls ------------------------------------------------------------------ */

/* Starts the next call of the communicator's fault-tolerant engine; its
 * number. Every collective that runs takes exactly one, on every path
 * (even one whose messages carry none, as MPI_Bcast's without ULFM), so
 * that every rank can tell the others' number of a call it left
 * (ftc_ft_skip_call). A recovery that starts a call again takes another,
 * on every survivor alike. */
long ftc_ft_begin_call(ftc_ft *ft);

/* A collective this rank left at its own argument checks, which the other
 * ranks may have run: it takes its number all the same. The number gives
 * a call its tag, so without it this rank's next calls would carry the
 * numbers the others gave their previous ones, and receive what the
 * others sent for the call left here. (What they sent for it stays in
 * MPI's queue, as with MPI's own collectives; FTCOLL_TAG_WINDOW calls
 * later the same tag comes round again. Nor can this rank advance the
 * per-size counts of the others' call, whose size it does not know. The
 * guard makes such an error every rank's, guard.h.) */
void ftc_ft_skip_call(ftc_ft *ft);

/*
 * Whether a call completed now must keep its result for late ranks. A
 * survivor serves a late rank only in a meeting, which needs a death; with
 * at most two ranks in the epoch that leaves one survivor, nobody to serve
 * or to be served. So only with ULFM and three or more live ranks is the
 * result kept (and copied by the collective).
 */
bool ftc_ft_keeps_results(const ftc_ft *ft);

/*
 * The call completed here with result holdings S (`held`): kept for late
 * ranks when ftc_ft_keeps_results, else the kept window is emptied (a
 * meeting that wanted a result would fail alike everywhere, never serve
 * stale data). `everyone_entered`: no rank can complete this call before
 * every live rank entered it (an allreduce, a broadcast with its tokens, a
 * call finished in a meeting), so no rank can be late in an older one and
 * the kept window starts afresh here; else the call joins the window,
 * which the collectives keep within FTC_FT_WINDOW calls (reconcile.h).
 * `held` NULL: no rank could complete the call before every live rank held
 * its result, so a late rank brings the result itself and this one serves
 * with empty holdings (it keeps no copy).
 */
void ftc_ft_end_call(ftc_ft *ft, long number, const ftc_holdings *held, bool everyone_entered);

/* The result just ended could not be stored after all (no memory, a
 * packing error): nothing is kept, so that a meeting that wants a result
 * of this rank fails alike everywhere instead of serving what the slot
 * held before. */
void ftc_ft_drop_kept(ftc_ft *ft);

/* Whether call `number`'s result is in the kept window; whether the window starts at it. */
bool ftc_ft_window_keeps(const ftc_ft *ft, long number);
bool ftc_ft_window_starts_at(const ftc_ft *ft, long number);

/*
 * True when survivors wait in a meeting for this rank (it returned from a
 * meeting that let it go first): its next entry must meet before anything.
 */
bool ftc_ft_owes_meeting(const ftc_ft *ft);

/* ---- meetings --------------------------------------------------------------- */

/* What every survivor learned in a meeting. */
typedef struct {
    long epoch;
    int n;                      /* participants: the epoch's ranks */
    const int *ranks;           /* participant -> rank */
    const ftc_ft_presence *where;   /* per participant */
    const ftc_holdings *held;   /* per rank: what its value of its call holds */
    const ftc_holdings *kept;   /* per rank past the round's call: that call's S, from
                                 * its kept window (empty for the others) */
    ftc_ft_decision decision;   /* this rank's part */
} ftc_ft_meeting;

/*
 * The round a collective runs in a meeting whose decision has one
 * (decision.role != FTC_ROLE_NONE). `call` is the caller's state passed to
 * ftc_ft_meet (NULL when settling outside any call). Returns MPI_SUCCESS,
 * FTC_DETECTED, or an error.
 */
typedef int (*ftc_ft_round)(ftc_comm_t comm, void *call, const ftc_ft_meeting *meeting);

void ftc_ft_set_round(ftc_ft *ft, ftc_ft_round round);

/*
 * Meets the survivors until a meeting every one of them finished: on
 * return *decision says what this rank does next (return, or an error
 * every survivor got alike). `held` is what this rank's value of its call
 * holds (FTC_AT_CALL). Collective over the survivors.
 */
int ftc_ft_meet(ftc_comm_t comm, ftc_ft_place place, const ftc_holdings *held, void *call,
                ftc_ft_decision *decision);

/*
 * Outside any call, within the current operation (ftc_comm_survivors,
 * ftc_comm_free): meets the survivors, serving ranks still
 * in an earlier call, so nobody is left waiting. `leaving`: no further
 * call will follow on this communicator. A no-op without ULFM. Skipped in
 * the one operation whose settling the others finished while this rank
 * was late (they will not come to it again).
 */
int ftc_ft_settle(ftc_comm_t comm, bool leaving, const char *who);

/* ftc_comm_free's operation: settles, leaving. */
int ftc_ft_leave(ftc_comm_t comm);

/* ftc_comm_survivors' operation: MPIX_Comm_shrink of the current epoch
 * (after settling), or a duplicate without ULFM. */
int ftc_ft_survivors(ftc_comm_t comm, MPI_Comm *survivors);

/* After a communicator constructor over `parent` failed on a process
 * failure (on every survivor alike): clears what the cut-short context-id
 * allocation left in Open MPI, which would keep every later shrink
 * waiting (meeting.c says how). Collective over parent's survivors,
 * whose error handler must return errors; without ULFM, nothing. */
int ftc_ft_release_context_ids(MPI_Comm parent);

#endif
