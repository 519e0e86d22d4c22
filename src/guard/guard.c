/*
 * Guarded collectives: settings, raising errors and warnings, the stop,
 * the warnings tally, and the public calls (ftcoll.h).
 */
#define _POSIX_C_SOURCE 200809L /* getpid, kill */
#include "guard.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../args.h"
#include "../comm.h"
#include "../error.h"
#include "../ft/ft.h"
#include "../hash.h"
#include "../abort.h"
#include "state.h"
#include "watchdog.h"

/* ---- the error class ------------------------------------------------------ */

static int stopped_class = MPI_ERR_UNKNOWN;
static int stopped_class_added;

/* Every rank adds the class at its first ftc_comm_create, before any other
 * class ftcoll adds: the same number on every rank. */
static void add_stopped_class(void)
{
    if (stopped_class_added)
        return;
    int added = 0;
    if (MPI_Add_error_class(&added) != MPI_SUCCESS)
        return;
    char text[] = "FTC_ERR_STOPPED: a rank raised an error; every rank stopped at the same "
                  "guarded call (see ftc_guard_last_report)";
    MPI_Add_error_string(added, text);
    stopped_class = added;
    stopped_class_added = 1;
}

int ftc_err_stopped(void)
{
    return stopped_class;
}

/* ---- life cycle ------------------------------------------------------------ */

/* Revoking happens on the watchdog's thread: MPI must allow calls from any
 * thread, and the MPI must have ULFM. */
static int check_watchdog_action(ftc_watchdog_action action, const char *who)
{
    if (action != FTC_WATCHDOG_ABORT && action != FTC_WATCHDOG_REVOKE)
        return ftc_fail(MPI_ERR_ARG, "%s: action must be FTC_WATCHDOG_ABORT or "
                                     "FTC_WATCHDOG_REVOKE (got %d)", who, (int)action);
    if (action == FTC_WATCHDOG_ABORT)
        return MPI_SUCCESS;
#ifndef FTCOLL_HAVE_ULFM
    return ftc_fail(MPI_ERR_ARG, "%s: revoking needs an MPI with ULFM (MPIX_Comm_revoke)", who);
#else
    int provided = MPI_THREAD_SINGLE;
    MPI_Query_thread(&provided);
    if (provided < MPI_THREAD_MULTIPLE)
        return ftc_fail(MPI_ERR_ARG, "%s: revoking happens on the watchdog's thread and needs "
                                     "MPI_Init_thread with MPI_THREAD_MULTIPLE", who);
    return MPI_SUCCESS;
#endif
}

/* Collective: g->host_pid is allocated at the creation, whose agreement
 * fails every rank alike when one has no memory. */
static int learn_hosts_and_pids(ftc_comm_t c)
{
    ftc_guard_state *g = c->guard;
    const long mine[2] = { (long)(ftc_hash_host() >> 1), (long)getpid() };
    const int rc = PMPI_Allgather(mine, 2, MPI_LONG, g->host_pid, 2, MPI_LONG, c->comm);
    return rc == MPI_SUCCESS ? MPI_SUCCESS
                             : ftc_fail_mpi(rc, "ftc_comm_create: exchanging process ids failed");
}

void ftc_guard_kill_local(ftc_comm_t c, const int *ranks, int count)
{
    const long *hp = c->guard->host_pid;
    if (!hp)
        return;
    for (int i = 0; i < count; i++) {
        const int r = ranks[i];
        if (r != c->rank && hp[2 * r] == hp[2 * c->rank] && hp[2 * r + 1] > 1)
            kill((pid_t)hp[2 * r + 1], SIGKILL);
    }
}

static void tally_warnings(ftc_comm_t c);

static int guard_create(ftc_comm_t c)
{
    add_stopped_class();
    ftc_die_with_launcher();
    c->guard = calloc(1, sizeof(*c->guard));
    if (c->guard) {
        c->guard->host_pid = malloc(sizeof(long) * 2 * (size_t)c->size);
        c->guard->tally = c->rank == 0 ? malloc(sizeof(int) * (size_t)c->size) : NULL;
    }
    if (!c->guard || !c->guard->host_pid || (c->rank == 0 && !c->guard->tally))
        return ftc_fail(MPI_ERR_NO_MEM, "ftc_comm_create: out of memory");
    c->guard->settings_at = MPI_Wtime();
    return MPI_SUCCESS;
}

/* FTCOLL_GUARD and FTCOLL_WATCHDOG. */
static int guard_read_settings(ftc_comm_t c)
{
    ftc_guard_state *g = c->guard;
    char why[256];
    if (!ftc_guard_settings_parse(getenv("FTCOLL_GUARD"), &g->settings, why, sizeof(why)))
        return ftc_fail(MPI_ERR_ARG, "FTCOLL_GUARD: %s", why);
    if (!ftc_watchdog_settings_parse(getenv("FTCOLL_WATCHDOG"), &g->watchdog, why, sizeof(why)))
        return ftc_fail(MPI_ERR_ARG, "FTCOLL_WATCHDOG: %s", why);
    return g->watchdog.deadline > 0 ? check_watchdog_action(g->watchdog.action, "FTCOLL_WATCHDOG")
                                    : MPI_SUCCESS;
}

/* `every` and the timeout decide which calls check in, and how long. */
static int guard_agreed(ftc_comm_t c, ftc_equal_value *values)
{
    const double timeout = c->guard->settings.timeout;
    const int timeout_ms = timeout > 2e6 ? 2000000000 : (int)(timeout * 1000 + 0.5);
    values[0] = (ftc_equal_value){ "FTCOLL_GUARD's every", c->guard->settings.every, NULL };
    values[1] = (ftc_equal_value){ "FTCOLL_GUARD's timeout (ms)", timeout_ms, NULL };
    return 2;
}

static int guard_start(ftc_comm_t c)
{
    const int rc = learn_hosts_and_pids(c);
    const ftc_watchdog_settings *w = &c->guard->watchdog;
    if (rc != MPI_SUCCESS || w->deadline <= 0)
        return rc;
    return ftc_watch_configure(&c->watch, w->deadline, w->action);
}

static int guard_quiesce(ftc_comm_t c)
{
    tally_warnings(c);
    return MPI_SUCCESS;
}

static void guard_release(ftc_comm_t c)
{
    ftc_watch_release(&c->watch);
    if (!c->guard)
        return;
    free(c->guard->received);
    free(c->guard->host_pid);
    free(c->guard->tally);
    free(c->guard);
    c->guard = NULL;
}

const ftc_module ftc_guard_module = {
    .name = "guard",
    .create = guard_create,
    .read_settings = guard_read_settings,
    .agreed = guard_agreed,
    .start = guard_start,
    .quiesce = guard_quiesce,
    .release = guard_release,
};

/* ---- entering and leaving a collective ------------------------------------ */

static int stopped_error(ftc_comm_t c, ftc_guarded_kind kind)
{
    const ftc_guard_record *r = &c->guard->decided;
    const ftc_guard_entry *first = NULL;
    for (int i = 0; i < r->nentries && !first; i++)
        if (r->entry[i].kind == FTC_GUARD_ERROR)
            first = &r->entry[i];
    return ftc_fail(FTC_ERR_STOPPED, "%s: stopped at check-in %lld: %d rank(s) raised an error; "
                    "rank %d: %s", ftc_guarded_name(kind), (long long)r->check, r->error_ranks,
                    first ? first->rank : -1, first ? first->message : "");
}

static bool due(const ftc_guard_state *g, ftc_guarded_kind kind)
{
    return kind == FTC_GUARDED_CHECK
        || (g->settings.every > 0 && g->collectives % g->settings.every == 0);
}

static void keep_error(ftc_guard_state *g, const char *message)
{
    if (g->errors++ == 0)
        snprintf(g->first_error, sizeof(g->first_error), "%s", message);
}

static void announce_stop(ftc_comm_t c, ftc_guarded_kind kind, long call)
{
    const ftc_guard_record *r = &c->guard->decided;
    if (c->rank != 0)
        return;
    fprintf(stderr, "ftcoll guard: stopping every rank before %s call %ld (check-in %lld): "
            "%d rank(s) raised %d error(s)\n", ftc_guarded_name(kind), call, (long long)r->check,
            r->error_ranks, r->errors);
    for (int i = 0; i < r->nentries; i++)
        if (r->entry[i].kind == FTC_GUARD_ERROR)
            fprintf(stderr, "  rank %d: %s\n", r->entry[i].rank, r->entry[i].message);
    fflush(stderr);
}

static int stop(ftc_comm_t c, ftc_guarded_kind kind, long call)
{
    ftc_guard_state *g = c->guard;
    g->stopped = true;
    announce_stop(c, kind, call);
    if (g->handler) {
        ftc_stop_report report;
        ftc_guard_stop_report(&g->decided, &report);
        g->handler(c, &report, g->handler_arg);
    }
    return stopped_error(c, kind);
}

/* A handle's number, the same on every rank for a predefined one. */
static int64_t number_of(MPI_Fint handle)
{
    return (int64_t)(uint32_t)handle;
}

static void observe(ftc_comm_t c, ftc_guard_record *record, const ftc_guard_args *a)
{
    if (!a)
        return;
    ftc_guard_matching m = { .value = { [FTC_MATCH_ROOT] = a->root, [FTC_MATCH_BYTES] = a->bytes,
                                        [FTC_MATCH_COUNTS] = -1, [FTC_MATCH_TYPE] = -1,
                                        [FTC_MATCH_OP] = -1 } };
    if (a->counts) {
        uint64_t h = FTC_HASH_START;
        for (int r = 0; r < c->size; r++) {
            const int64_t bytes = (int64_t)a->counts[r] * a->count_bytes;
            h = ftc_hash_bytes(h, &bytes, sizeof(bytes));
        }
        m.value[FTC_MATCH_COUNTS] = (int64_t)(h >> 1);
    }
    if (a->type != MPI_DATATYPE_NULL)
        m.value[FTC_MATCH_TYPE] = number_of(MPI_Type_c2f(a->type));
    if (a->op != MPI_OP_NULL)
        m.value[FTC_MATCH_OP] = number_of(MPI_Op_c2f(a->op));
    ftc_guard_record_observe(record, c->rank, &m);
}

int ftc_guard_enter(ftc_comm_t c, ftc_guarded_kind kind, int checked, const ftc_guard_args *args)
{
    ftc_guard_state *g = c->guard;
    const long call = ++g->calls[kind];
    if (kind != FTC_GUARDED_CHECK)
        g->collectives++;
    g->left_alone = false;
    if (g->stopped)
        return stopped_error(c, kind);
    if (!due(g, kind)) {
        if (checked == MPI_SUCCESS)
            ftc_watch_arm(&c->watch, ftc_guarded_name(kind), call);
        else if (kind != FTC_GUARDED_CHECK) {
            g->left_alone = true;
            ftc_ft_skip_call(c->ft);   /* the others may run it: the numbers stay in step */
        }
        return checked;
    }
    if (checked != MPI_SUCCESS)
        keep_error(g, ftc_error_message());
    ftc_guard_record record;
    ftc_guard_record_init(&record, kind, call, ++g->checks);
    ftc_guard_record_add_errors(&record, c->rank, g->errors, g->first_error);
    if (checked == MPI_SUCCESS)
        observe(c, &record, args);
    record.warnings = g->warnings;
    const int rc = ftc_guard_checkin(c, &record);
    if (rc != MPI_SUCCESS)
        return rc;
    if (record.decision == FTC_GUARD_STOP) {
        g->decided = record;
        return stop(c, kind, call);
    }
    ftc_watch_arm(&c->watch, ftc_guarded_name(kind), call);
    return MPI_SUCCESS;
}

bool ftc_guard_left_alone(ftc_comm_t c)
{
    return c->guard->left_alone;
}

void ftc_guard_leave(ftc_comm_t c)
{
    ftc_watch_disarm(&c->watch);
}

/* ---- the warnings tally ---------------------------------------------------- */

/* One write: stderr is unbuffered, and the launcher may put another rank's
 * output between the pieces of a line written in several calls. */
static void print_tally(const int *counts, int size)
{
    int total = 0, ranks = 0;
    for (int r = 0; r < size; r++) {
        total += counts[r];
        ranks += counts[r] > 0;
    }
    if (total == 0)
        return;
    char line[4096] = "";
    ftc_append(line, sizeof(line), "ftcoll: %d warning(s) emitted:", total);
    for (int r = 0, listed = 0; r < size; r++)
        if (counts[r] > 0)
            ftc_append(line, sizeof(line), "%s rank %d: %d", listed++ ? "," : "", r, counts[r]);
    if (ranks < size)
        ftc_append(line, sizeof(line), "; none on the other %d rank(s)", size - ranks);
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
}

static void tally_warnings(ftc_comm_t c)
{
    if (ftc_ft_live_count(c->ft) != c->size)
        return;   /* a gather would need the dead ranks */
    /* rank 0's room was taken at the creation: a collective allocates
     * nothing that could fail on one rank */
    int *counts = c->guard->tally;
    const int mine = c->guard->warnings;
    if (MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, c->comm) == MPI_SUCCESS && counts)
        print_tally(counts, c->size);
}

/* ---- public calls ---------------------------------------------------------- */

int ftc_guard_set(ftc_comm_t comm, int every, double timeout)
{
    ftc_clear_error();
    if (!comm)
        return ftc_fail(MPI_ERR_COMM, "ftc_guard_set: the communicator is NULL");
    if (every < 0)
        return ftc_fail(MPI_ERR_ARG, "ftc_guard_set: every is negative (%d)", every);
    if (!(timeout > 0 && timeout <= 1e9))
        return ftc_fail(MPI_ERR_ARG, "ftc_guard_set: timeout must be more than 0 seconds "
                                     "(got %g)", timeout);
    comm->guard->settings.every = every;
    comm->guard->settings.timeout = timeout;
    return MPI_SUCCESS;
}

int ftc_guard_set_time_left(ftc_comm_t comm, double seconds)
{
    ftc_clear_error();
    if (!comm)
        return ftc_fail(MPI_ERR_COMM, "ftc_guard_set_time_left: the communicator is NULL");
    if (!(seconds >= 0 && seconds <= 1e9))
        return ftc_fail(MPI_ERR_ARG, "ftc_guard_set_time_left: seconds must be 0 or more "
                                     "(got %g)", seconds);
    comm->guard->settings.time_left = seconds;
    comm->guard->settings_at = MPI_Wtime();
    return MPI_SUCCESS;
}

int ftc_guard_check(ftc_comm_t comm)
{
    ftc_clear_error();
    if (!comm)
        return ftc_fail(MPI_ERR_COMM, "ftc_guard_check: the communicator is NULL");
    const int rc = ftc_guard_enter(comm, FTC_GUARDED_CHECK, MPI_SUCCESS, NULL);
    ftc_guard_leave(comm);
    return rc;
}

/* The caller's printf-style message; a NULL format gives "". */
static void format_message(char *out, size_t size, const char *format, va_list args)
{
    out[0] = '\0';
    if (format)
        vsnprintf(out, size, format, args);
}

int ftc_raise_error(ftc_comm_t comm, const char *format, ...)
{
    ftc_clear_error();
    if (!comm)
        return ftc_fail(MPI_ERR_COMM, "ftc_raise_error: the communicator is NULL");
    char message[FTC_GUARD_MESSAGE_MAX];
    va_list args;
    va_start(args, format);
    format_message(message, sizeof(message), format, args);
    va_end(args);
    keep_error(comm->guard, message);
    return MPI_SUCCESS;
}

int ftc_warn(ftc_comm_t comm, const char *format, ...)
{
    ftc_clear_error();
    if (!comm)
        return ftc_fail(MPI_ERR_COMM, "ftc_warn: the communicator is NULL");
    char message[FTC_GUARD_MESSAGE_MAX];
    va_list args;
    va_start(args, format);
    format_message(message, sizeof(message), format, args);
    va_end(args);
    comm->guard->warnings++;
    fprintf(stderr, "ftcoll warning (rank %d): %s\n", comm->rank, message);
    return MPI_SUCCESS;
}

int ftc_set_stop_handler(ftc_comm_t comm, ftc_stop_handler handler, void *arg)
{
    ftc_clear_error();
    if (!comm)
        return ftc_fail(MPI_ERR_COMM, "ftc_set_stop_handler: the communicator is NULL");
    comm->guard->handler = handler;
    comm->guard->handler_arg = arg;
    return MPI_SUCCESS;
}

int ftc_guard_last_report(ftc_comm_t comm, ftc_stop_report *report)
{
    ftc_clear_error();
    const int rc = ftc_check_query("ftc_guard_last_report", comm, report, "the report");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!comm->guard->stopped)
        return ftc_fail(MPI_ERR_OTHER, "ftc_guard_last_report: the communicator has not stopped");
    ftc_guard_stop_report(&comm->guard->decided, report);
    return MPI_SUCCESS;
}

int ftc_guard_get_stats(ftc_comm_t comm, ftc_guard_stats *stats)
{
    ftc_clear_error();
    const int rc = ftc_check_query("ftc_guard_get_stats", comm, stats, "stats");
    if (rc != MPI_SUCCESS)
        return rc;
    stats->checks = comm->guard->checks;
    stats->warnings = comm->guard->warnings;
    stats->stopped = comm->guard->stopped ? 1 : 0;
    return MPI_SUCCESS;
}

int ftc_watchdog_set(ftc_comm_t comm, double deadline, ftc_watchdog_action action)
{
    ftc_clear_error();
    if (!comm)
        return ftc_fail(MPI_ERR_COMM, "ftc_watchdog_set: the communicator is NULL");
    if (!(deadline >= 0 && deadline <= 1e9))
        return ftc_fail(MPI_ERR_ARG, "ftc_watchdog_set: deadline must be 0 (off) or more "
                                     "seconds (got %g)", deadline);
    const int rc = check_watchdog_action(action, "ftc_watchdog_set");
    if (rc != MPI_SUCCESS)
        return rc;
    return ftc_watch_configure(&comm->watch, deadline, action);
}
