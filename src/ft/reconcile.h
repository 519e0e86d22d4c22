/*
 * Reconciling where the survivors are when they meet. Pure C, no MPI.
 *
 * A meeting gathers, from every survivor, where it is: inside a call of
 * the fault-tolerant engine (which one), between calls (settling before
 * ftc_comm_survivors), or leaving (ftc_comm_free).
 * Calls present differ by at most FTC_FT_WINDOW: a call that every rank
 * must enter before any rank completes it (an allreduce or an allgather
 * needs every input; a broadcast with its tokens) comes at least
 * every FTC_FT_WINDOW calls, and a rank keeps the result of every call it
 * completed since the last such call (its kept window), so that it can
 * serve any rank still inside one of them.
 *
 *   one call v, all inside        recover v: everyone takes part
 *   one call v, none inside       nothing to do: return
 *   one call v, some inside       those inside wait for the others, who
 *                                 return and meet again at their next
 *                                 entry (a collective interrupted on them
 *                                 but not on the others)
 *   calls lo < hi                 finish lo: ranks inside lo are late,
 *                                 every rank past lo completed it and
 *                                 serves the result it kept; then those
 *                                 inside a call past lo wait for the late
 *                                 ones (who come back into lo + 1, and so
 *                                 on up to hi), and so do ranks leaving
 *                                 while someone is inside a call before
 *                                 theirs; servers that were settling (all
 *                                 in one operation k) with nobody left
 *                                 inside a call leave, and the late ranks
 *                                 skip their own settling in operation k;
 *                                 but ranks outside any call before lo
 *                                 (a collective interrupted on them, not
 *                                 on the others) return first, and the
 *                                 others wait for them to come into lo
 *   anything else                 an error on every survivor alike (the
 *                                 ranks made different calls)
 *
 * Every survivor computes the same decisions from the same records, so
 * what one rank does next, the others know.
 */
#ifndef FTCOLL_FT_RECONCILE_H
#define FTCOLL_FT_RECONCILE_H

#include <stdbool.h>

/* Calls present at a meeting differ by at most this many (see above). */
enum { FTC_FT_WINDOW = 64 };

typedef enum {
    FTC_AT_CALL = 0,       /* inside call `call` */
    FTC_BETWEEN_CALLS = 1, /* outside any call; `call` is the next it will make */
    FTC_LEAVING = 2,       /* ftc_comm_free: no call will follow */
} ftc_ft_place;

typedef struct {
    int place;             /* ftc_ft_place */
    long call;
    long kept_first;       /* the calls it completed and kept the results of: */
    long kept_last;        /* kept_first .. kept_last (0, 0: none) */
    long op;               /* its operation: every operation on the communicator that
                            * may meet (a call, ftc_comm_survivors,
                            * ftc_comm_free) has the same number on every rank */
} ftc_ft_presence;

/* Whether the kept window first .. last (0, 0: none) holds call `call`. */
static inline bool ftc_ft_window_holds(long first, long last, long call)
{
    return first > 0 && first <= call && call <= last;
}

typedef enum {
    FTC_ROLE_NONE = 0,     /* no round for this rank */
    FTC_ROLE_RECOVER,      /* finish `call` with everyone's holdings */
    FTC_ROLE_SERVE,        /* give the kept result of `call` to the late ranks */
    FTC_ROLE_LATE,         /* receive `call`'s result from those who completed it */
} ftc_ft_role;

typedef enum {
    FTC_NEXT_RETURN = 0,   /* leave the meeting (the call or the settling is over) */
    FTC_NEXT_MEET_AGAIN,   /* wait for ranks that return first and come back */
    FTC_NEXT_ERROR,        /* the ranks made different calls: every rank alike */
} ftc_ft_next;

typedef struct {
    ftc_ft_role role;
    bool round;            /* some rank has a round (all take part in it) */
    long call;             /* the call the round finishes */
    ftc_ft_next next;      /* once every survivor finished the round */
    bool owes_meeting;     /* RETURN: others wait in a meeting for this rank */
    long settled_op;       /* RETURN, > 0: every other rank settled in operation
                            * `settled_op` and left, so this rank's own settling in
                            * that operation must not meet (0: none) */
    const char *why;       /* ERROR: what is inconsistent */
} ftc_ft_decision;

/* The decision of participant `me` among n. */
void ftc_ft_reconcile(int n, const ftc_ft_presence *where, int me, ftc_ft_decision *out);

#endif
