/*
 * Guarded collectives over MPI (see report.h for the records,
 * checkin_tree.h for the tree and its timing, checkin.c for the messages).
 *
 *   ftc_allreduce / ftc_allgather / ftc_guard_check
 *     -> ftc_guard_enter: every `every`-th call, a check-in:
 *          GO    the collective runs (under the watchdog, if set)
 *          STOP  the stop handler runs, the call returns FTC_ERR_STOPPED
 *          ABORT rank 0 printed the diagnosis; MPI_Abort (never returns)
 *     -> the collective
 *     -> ftc_guard_leave
 */
#ifndef FTCOLL_GUARD_GUARD_H
#define FTCOLL_GUARD_GUARD_H

#include <stdbool.h>

#include "report.h"
#include "settings.h"
#include "checkin_tree.h"
#include "watchdog.h"

struct ftc_comm;

typedef struct {
    ftc_guard_settings settings;
    double settings_at;                 /* MPI_Wtime when time_left was given */
    long collectives;                   /* guardable collectives started: every-N counts them */
    long calls[FTC_GUARDED_KINDS];      /* per kind: "ftc_allreduce call 7" */
    long checks;                        /* check-ins run */
    int errors;                         /* raised on this rank */
    char first_error[FTC_GUARD_MESSAGE_MAX];
    int warnings;                       /* emitted on this rank */
    bool stopped;                       /* a check-in decided to stop: every call stops */
    ftc_guard_record decided;           /* that check-in's record */
    ftc_guard_record *received;         /* the children's records (allocated on use) */
    ftc_guard_node node;                /* this rank's place in the tree of node_ranks */
    int node_ranks, node_position;      /* what `node` was computed for (0: not yet) */
    ftc_stop_handler handler;
    void *handler_arg;
    ftc_watch_slot watch;
    long *host_pid;                     /* per rank: host hash, pid (for the brutal stop) */
} ftc_guard_state;

/* After the communicator exists (collective): FTCOLL_GUARD already parsed
 * into c->guard.settings, FTCOLL_WATCHDOG into `watchdog` (NULL when the
 * settings were rejected). */
int ftc_guard_init(struct ftc_comm *c, const ftc_watchdog_settings *watchdog);
void ftc_guard_release(struct ftc_comm *c);

/*
 * At the start of a guardable call, after its arguments were checked
 * (`checked`: the result; an error on one rank stops every rank cleanly
 * when the call is guarded, instead of leaving the others waiting).
 * Returns MPI_SUCCESS (the collective may run), FTC_ERR_STOPPED, or
 * `checked` when the call is not guarded.
 */
int ftc_guard_enter(struct ftc_comm *c, ftc_guarded_kind kind, int checked);
void ftc_guard_leave(struct ftc_comm *c);

/* Sends SIGKILL to the ranks listed (positions of `live`) that run on this
 * host: a rank that sleeps or spins answers no message, and Open MPI's
 * runtime in fault-tolerant mode does not end it on MPI_Abort. */
void ftc_guard_kill_local(struct ftc_comm *c, const int *ranks, int count);

/* Rank 0 prints the warnings per rank (collective; at ftc_comm_free). */
void ftc_guard_tally(struct ftc_comm *c);

/* The check-in itself (checkin.c): `record` is this rank's on entry, the
 * decided one (GO or STOP) on success; an ABORT never returns. */
int ftc_guard_checkin(struct ftc_comm *c, ftc_guard_record *record);

#endif
