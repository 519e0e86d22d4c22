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

#include "../comm.h"
#include "../module.h"
#include "report.h"

struct ftc_comm;

/* comm->guard's life (state.h): FTCOLL_GUARD and FTCOLL_WATCHDOG; the
 * ranks' hosts and process ids and the watchdog at creation; the warnings
 * tally at ftc_comm_free. */
extern const ftc_module ftc_guard_module;

/*
 * What a call's ranks must pass alike (report.h says why), as the
 * collective holds it: read only at a check-in, so a call that does not
 * check in pays nothing for the counts' hash. ftc_guard_args_of makes one;
 * a call sets the rest where it has them.
 */
typedef struct {
    int root;                   /* -1: none */
    long long bytes;            /* count x the datatype's size; -1: none */
    const int *counts;          /* one count per rank of the communicator, passed
                                 * whole by every rank, or NULL */
    int count_bytes;            /* bytes per count there (the datatype's size) */
    MPI_Datatype type;          /* a reduction's, or MPI_DATATYPE_NULL */
    MPI_Op op;                  /* a reduction's predefined op, or MPI_OP_NULL (a
                                 * program's own op has no number alike everywhere) */
} ftc_guard_args;

/* Inline: every collective makes one on every call. */
static inline ftc_guard_args ftc_guard_args_of(int root, long long bytes)
{
    return (ftc_guard_args){ .root = root, .bytes = bytes, .type = MPI_DATATYPE_NULL,
                             .op = MPI_OP_NULL };
}

/* A reduction's: also its datatype and predefined op, the pair its checks
 * accepted and left in c->checked (read only when they passed). */
static inline ftc_guard_args ftc_guard_reduction_args(const struct ftc_comm *c, int root,
                                                      long long bytes)
{
    ftc_guard_args a = ftc_guard_args_of(root, bytes);
    a.type = c->checked.known.type;
    a.op = c->checked.op_predefined ? c->checked.op : MPI_OP_NULL;
    return a;
}

/*
 * At the start of a guardable call, after its arguments were checked
 * (`checked`: the result; an error on one rank stops every rank cleanly
 * when the call is guarded, instead of leaving the others waiting).
 * `args`: what every rank must pass alike, read only when `checked` is
 * MPI_SUCCESS; NULL when the call has nothing of the kind. Ranks whose
 * values differ stop the call as an error would.
 * Returns MPI_SUCCESS (the collective may run), FTC_ERR_STOPPED, or
 * `checked` when the call is not guarded.
 */
int ftc_guard_enter(struct ftc_comm *c, ftc_guarded_kind kind, int checked,
                    const ftc_guard_args *args);

/*
 * Whether this rank left the call ftc_guard_enter just returned from at its
 * own checks, unguarded: the others may run it without this rank. Every
 * collective takes one call number (ft.h), and ftc_guard_enter took this
 * one's; a collective that counts its calls in a counter of its own (the
 * network tree's broadcast) advances that counter too, so that this rank's
 * next calls are counted as the others count them.
 */
bool ftc_guard_left_alone(struct ftc_comm *c);

void ftc_guard_leave(struct ftc_comm *c);

/* Sends SIGKILL to the ranks listed (positions of `live`) that run on this
 * host: a rank that sleeps or spins answers no message, and Open MPI's
 * runtime in fault-tolerant mode does not end it on MPI_Abort. */
void ftc_guard_kill_local(struct ftc_comm *c, const int *ranks, int count);


/* The check-in itself (checkin.c): `record` is this rank's on entry, the
 * decided one (GO or STOP) on success; an ABORT never returns. */
int ftc_guard_checkin(struct ftc_comm *c, ftc_guard_record *record);

#endif
