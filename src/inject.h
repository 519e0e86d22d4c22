/*
 * Fault injection: real process deaths at chosen points, for tests and for
 * users who want to see recovery happen.
 *
 *   FTCOLL_INJECT="kill rank=3 call=2 step=1 at=before-send; kill rank=5 at=recovery"
 *
 * Directives are separated by ';'. Each is `kill` (the rank sends itself
 * SIGKILL) or `spin` (the rank loops forever there, busy: a hang for the
 * watchdog to catch) followed by key=value fields:
 *   rank=R     the rank (in the communicator the collective runs on).
 *              Required.
 *   call=C     the C-th fault-tolerant call on that communicator, from 1
 *              (default 1).
 *   round=K    the round of that call: 0 is the failure-free attempt, 1.. are
 *              recoveries (default 0; at=recovery defaults to 1).
 *   step=S     a step number of the round's recursive doubling (from 0), or
 *              fold-in, fold-out, handout, confirm (a large allreduce's
 *              confirmation, its first exchange) (default 0).
 *   at=A       before-send (default), after-send: around the rank's sends of
 *              that step; recovery: while the survivors agree on the failed
 *              ranks at the start of the round (step is then ignored).
 *
 * The parser is pure; the engine asks ftc_inject_matches() at each point and
 * the caller does the killing.
 */
#ifndef FTCOLL_INJECT_H
#define FTCOLL_INJECT_H

#include <stdbool.h>
#include <stddef.h>

enum {
    FTC_INJECT_STEP_FOLD_IN = -1,
    FTC_INJECT_STEP_FOLD_OUT = -2,
    FTC_INJECT_STEP_HANDOUT = -3,
    FTC_INJECT_STEP_CONFIRM = -4,   /* an allreduce's confirmation (its first exchange) */
};

typedef enum { FTC_INJECT_BEFORE_SEND, FTC_INJECT_AFTER_SEND, FTC_INJECT_RECOVERY } ftc_inject_when;

typedef enum { FTC_INJECT_KILL, FTC_INJECT_SPIN } ftc_inject_action;

typedef struct {
    ftc_inject_action action;
    int rank;
    long call;
    int round;
    int step;              /* >= 0, or one of FTC_INJECT_STEP_* */
    ftc_inject_when when;
} ftc_injection;

#define FTC_INJECT_MAX 32

typedef struct {
    int count;
    ftc_injection kills[FTC_INJECT_MAX];
} ftc_inject_plan;

/*
 * Parses `text` (NULL or empty: no injections). On error returns false and
 * writes the directive number, the text at fault and the reason to `why`.
 */
bool ftc_inject_parse(const char *text, ftc_inject_plan *plan, char *why, size_t why_size);

/* The directive for `rank` at this point, or NULL. */
const ftc_injection *ftc_inject_matches(const ftc_inject_plan *plan, int rank, long call,
                                        int round, int step, ftc_inject_when when);

#endif
