/*
 * Guarded collectives and the watchdog, with real processes.
 *
 *   test_guard raise RANKS BEFORE STOP [CALLS]
 *       The ranks in RANKS (comma list) raise an error before collective
 *       BEFORE (1-based); every rank must return FTC_ERR_STOPPED at
 *       collective STOP (the first guarded one from BEFORE on) and not
 *       before, with correct results until then; the stop handler ran once
 *       on every rank; the report names exactly those ranks and their
 *       messages; later calls stop too.
 *   test_guard badarg RANK STOP
 *       RANK passes a negative count to collective STOP: every rank stops
 *       there, and the report carries RANK's own error message.
 *   test_guard healthy CALLS
 *       CALLS collectives (allreduce, allgather, explicit check-ins, in
 *       turn) with every element checked: nothing may trip.
 *   test_guard warn
 *       Ranks 1 and 3 emit 2 and 1 warnings (of a p >= 4); the tally
 *       printed at ftc_comm_free names both (ctest checks the line).
 *   test_guard sleep RANK SECONDS
 *       RANK sleeps SECONDS before collective 2: the job must be aborted
 *       with a diagnosis naming it (tests/scripts/guard_abort.sh judges).
 *   test_guard mismatch RANK
 *       RANK calls ftc_allgather where the others call ftc_allreduce
 *       (collective 2): aborted, the diagnosis names RANK.
 *   test_guard differ RANK
 *       Each collective with a root, sizes, counts, a datatype or an op
 *       every rank must pass alike, on a communicator of its own: one call
 *       that all make alike must succeed; in the next, RANK (not 0, not
 *       p - 1) alone passes another root, 8 KiB blocks against 64 B
 *       (across the decision tables' cells; higher or lower than the
 *       others'), counts of the same total, MPI_FLOAT, or MPI_MAX. Every
 *       rank must stop there, and the report must name RANK alone, and
 *       what differs. First, garbage in arguments MPI ignores on a rank,
 *       in-place forms, a program's own op whose handle's number differs
 *       between ranks, and an allgatherv receiving into another datatype
 *       of the same signature on one rank must pass, results checked.
 *   test_guard spin
 *       Healthy calls; FTCOLL_INJECT="spin ..." makes a rank loop inside
 *       one, and FTCOLL_WATCHDOG must end the job with its report.
 *   test_guard api
 *       Bad arguments to the guard's and watchdog's calls.
 *
 * The guard is configured by FTCOLL_GUARD (and FTCOLL_WATCHDOG) from the
 * test's environment. Each rank writes its pid under $FTCOLL_TEST_PID_DIR
 * (when set) so the abort script can prove no process was left behind;
 * rank 0 prints "checkin-start <epoch seconds>" before the collective a
 * rank stalls in.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep, clock_gettime */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "ftcoll.h"
#include "harness.h"

static int rank, p;
static int failures;

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "FAIL rank %d: %s: %s\n", rank, what, detail);
    failures++;
}

static void note_pid(void)
{
    const char *dir = getenv("FTCOLL_TEST_PID_DIR");
    if (!dir || !*dir)
        return;
    char path[512];
    snprintf(path, sizeof(path), "%s/rank%d.pid", dir, rank);
    FILE *f = fopen(path, "w");
    if (!f)
        die("cannot write the pid file");
    fprintf(f, "%ld\n", (long)getpid());
    fclose(f);
}

static void say_checkin_start(void)
{
    if (rank != 0)
        return;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    printf("checkin-start %.3f\n", (double)now.tv_sec + 1e-9 * (double)now.tv_nsec);
    fflush(stdout);
}

/* ---- the collectives the scenarios run, each checked element by element --- */

enum { ELEMENTS = 5 };

/* Collective number `call` (from 1): allreduce, allgather, check-in in turn. */
static int run_collective(ftc_comm_t comm, long call, int count)
{
    int rc = MPI_SUCCESS;
    if (call % 3 == 1) {
        int in[ELEMENTS], out[ELEMENTS];
        for (int i = 0; i < ELEMENTS; i++)
            in[i] = rank * 10 + i + (int)call;
        rc = ftc_allreduce(in, out, count, MPI_INT, MPI_SUM, comm);
        for (int i = 0; rc == MPI_SUCCESS && i < count; i++)
            if (out[i] != 10 * p * (p - 1) / 2 + p * (i + (int)call))
                fail("ftc_allreduce", "MISMATCH in the sum");
    } else if (call % 3 == 2) {
        int mine[2] = { rank, (int)call };
        int *all = checked_malloc(sizeof(int) * 2 * (size_t)p);
        rc = ftc_allgather(mine, count < 0 ? count : 2, MPI_INT, all, 2, MPI_INT, comm);
        for (int r = 0; rc == MPI_SUCCESS && r < p; r++)
            if (all[2 * r] != r || all[2 * r + 1] != (int)call)
                fail("ftc_allgather", "MISMATCH in the blocks");
        free(all);
    } else {
        rc = count < 0 ? ftc_raise_error(comm, "rank %d: bad count %d", rank, count)
                       : ftc_guard_check(comm);
        if (count < 0 && rc == MPI_SUCCESS)
            rc = ftc_guard_check(comm);
    }
    return rc;
}

/* ---- raise / badarg ------------------------------------------------------- */

typedef struct {
    int runs;
    ftc_stop_report report;
} handler_log;

static void on_stop(ftc_comm_t comm, const ftc_stop_report *report, void *arg)
{
    (void)comm;
    handler_log *log = arg;
    log->runs++;
    log->report = *report;
}

static bool in_list(const char *list, int r)
{
    char copy[256];
    snprintf(copy, sizeof(copy), "%s", list);
    for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (atoi(t) == r)
            return true;
    return false;
}

/* The report names exactly the raisers, in ascending order, each with its
 * message (containing `word`; and "rank R" for the messages the test wrote). */
static void expect_report(const ftc_stop_report *r, const char *raisers, const char *word,
                          bool names_rank)
{
    int expected = 0;
    for (int q = 0; q < p; q++)
        expected += in_list(raisers, q);
    if (r->error_ranks != expected || r->listed != expected)
        fail("stop report", "wrong number of ranks in error");
    for (int i = 0; i < r->listed; i++) {
        char name[32];
        snprintf(name, sizeof(name), "rank %d", r->error_rank[i]);
        if (!in_list(raisers, r->error_rank[i]) || (names_rank && !strstr(r->message[i], name))
            || !strstr(r->message[i], word))
            fail("stop report", r->message[i]);
        if (i > 0 && r->error_rank[i] <= r->error_rank[i - 1])
            fail("stop report", "ranks not in ascending order");
    }
}

/* Every rank must have the same (stop call, handler runs, report check). */
static void expect_same_everywhere(long stopped_at, int runs, long check)
{
    long mine[3] = { stopped_at, runs, check }, low[3], high[3];
    mpi_or_die(MPI_Allreduce(mine, low, 3, MPI_LONG, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
    mpi_or_die(MPI_Allreduce(mine, high, 3, MPI_LONG, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    if (memcmp(low, high, sizeof(low)) != 0)
        fail("stop", "ranks stopped at different calls or saw different reports");
}

static void scenario_stop(const char *raisers, long before, long stop_at, long calls,
                          bool bad_argument)
{
    ftc_comm_t comm;
    mpi_or_die(ftc_comm_create(MPI_COMM_WORLD, &comm), "ftc_comm_create");
    handler_log log = { 0 };
    ftc_set_stop_handler(comm, on_stop, &log);
    long stopped_at = 0;
    for (long call = 1; call <= calls; call++) {
        const bool mine = in_list(raisers, rank) && call == before;
        if (mine && !bad_argument)
            ftc_raise_error(comm, "rank %d: disk full while saving step %ld", rank, call);
        const int rc = run_collective(comm, call, mine && bad_argument ? -1 : 2);
        if (rc == MPI_SUCCESS) {
            if (stopped_at)
                fail("after the stop", "a collective ran");
            continue;
        }
        if (rc != FTC_ERR_STOPPED)
            fail("collective", ftc_error_message());
        if (!stopped_at)
            stopped_at = call;
        if (!strstr(ftc_error_message(), "stopped"))
            fail("stop message", ftc_error_message());
    }
    if (stopped_at != stop_at)
        fail("stop", "not at the expected call");
    if (log.runs != 1)
        fail("stop handler", "did not run exactly once");
    ftc_stop_report again;
    if (ftc_guard_last_report(comm, &again) != MPI_SUCCESS
        || memcmp(&again, &log.report, sizeof(again)) != 0)
        fail("ftc_guard_last_report", "differs from the handler's");
    expect_report(&log.report, raisers, bad_argument ? "count" : "disk full", !bad_argument);
    ftc_guard_stats stats;
    if (ftc_guard_get_stats(comm, &stats) != MPI_SUCCESS || !stats.stopped || stats.checks < 1)
        fail("ftc_guard_get_stats", "the stop or its check-ins not counted");
    expect_same_everywhere(stopped_at, log.runs, log.report.check);
    mpi_or_die(ftc_comm_free(&comm), "ftc_comm_free");
}

/* ---- healthy, warn, sleep, mismatch, spin -------------------------------- */

static void scenario_healthy(long calls)
{
    ftc_comm_t comm;
    mpi_or_die(ftc_comm_create(MPI_COMM_WORLD, &comm), "ftc_comm_create");
    for (long call = 1; call <= calls; call++)
        if (run_collective(comm, call, 1 + (int)(call % ELEMENTS)) != MPI_SUCCESS)
            fail("healthy collective", ftc_error_message());
    mpi_or_die(ftc_comm_free(&comm), "ftc_comm_free");
}

static void scenario_warn(void)
{
    ftc_comm_t comm;
    mpi_or_die(ftc_comm_create(MPI_COMM_WORLD, &comm), "ftc_comm_create");
    if (rank == 1) {
        ftc_warn(comm, "rank 1: residual above tolerance");
        ftc_warn(comm, "rank 1: residual above tolerance again");
    }
    if (rank == 3)
        ftc_warn(comm, "rank 3: mesh cell distorted");
    for (long call = 1; call <= 4; call++)
        if (run_collective(comm, call, 2) != MPI_SUCCESS)
            fail("collective", ftc_error_message());
    mpi_or_die(ftc_comm_free(&comm), "ftc_comm_free");
}

static void scenario_stall(int stalled, double seconds, bool elsewhere)
{
    ftc_comm_t comm;
    mpi_or_die(ftc_comm_create(MPI_COMM_WORLD, &comm), "ftc_comm_create");
    ftc_finalize_at_exit();   /* the trap: it must not run after the abort */
    for (long call = 1; call <= 4; call++) {
        if (call == 2)
            say_checkin_start();
        if (call == 2 && rank == stalled && !elsewhere) {
            const struct timespec pause = { (time_t)seconds, 0 };
            nanosleep(&pause, NULL);
        }
        const long as = call == 2 && rank == stalled && elsewhere ? 2 : 1;
        const int rc = call == 2 ? run_collective(comm, as == 2 ? 2 : 1, 2)
                                 : run_collective(comm, call, 2);
        if (rc != MPI_SUCCESS)
            fail("collective", ftc_error_message());
    }
    fail("stall", "the job went on past the stalled collective");
    mpi_or_die(ftc_comm_free(&comm), "ftc_comm_free");
}

/* ---- bad arguments to the API --------------------------------------------- */

static void expect_class(int rc, int want, const char *what)
{
    if (class_of(rc) != want) {
        char detail[256];
        snprintf(detail, sizeof(detail), "%s instead of %s (%s)", class_name(class_of(rc)),
                 class_name(want), ftc_error_message());
        fail(what, detail);
    }
}

static void scenario_api(void)
{
    ftc_comm_t comm;
    mpi_or_die(ftc_comm_create(MPI_COMM_WORLD, &comm), "ftc_comm_create");
    ftc_stop_report report;
    expect_class(ftc_guard_set(NULL, 1, 1), MPI_ERR_COMM, "ftc_guard_set(NULL)");
    expect_class(ftc_guard_set(comm, -1, 1), MPI_ERR_ARG, "ftc_guard_set every -1");
    expect_class(ftc_guard_set(comm, 1, 0), MPI_ERR_ARG, "ftc_guard_set timeout 0");
    expect_class(ftc_guard_set(comm, 1, -5), MPI_ERR_ARG, "ftc_guard_set timeout -5");
    expect_class(ftc_guard_set_time_left(comm, -1), MPI_ERR_ARG, "time left -1");
    expect_class(ftc_guard_set_time_left(NULL, 10), MPI_ERR_COMM, "time left NULL");
    expect_class(ftc_guard_check(NULL), MPI_ERR_COMM, "ftc_guard_check(NULL)");
    expect_class(ftc_raise_error(NULL, "x"), MPI_ERR_COMM, "ftc_raise_error(NULL)");
    expect_class(ftc_warn(NULL, "x"), MPI_ERR_COMM, "ftc_warn(NULL)");
    expect_class(ftc_set_stop_handler(NULL, NULL, NULL), MPI_ERR_COMM, "stop handler NULL");
    expect_class(ftc_guard_last_report(comm, NULL), MPI_ERR_ARG, "last report NULL");
    expect_class(ftc_guard_last_report(comm, &report), MPI_ERR_OTHER, "last report, no stop");
    expect_class(ftc_watchdog_set(NULL, 1, FTC_WATCHDOG_ABORT), MPI_ERR_COMM, "watchdog NULL");
    expect_class(ftc_watchdog_set(comm, -1, FTC_WATCHDOG_ABORT), MPI_ERR_ARG, "watchdog -1");
    expect_class(ftc_watchdog_set(comm, 1, (ftc_watchdog_action)7), MPI_ERR_ARG,
                 "watchdog action 7");
    /* MPI_Init gives MPI_THREAD_SINGLE: revoking from the thread is refused */
    expect_class(ftc_watchdog_set(comm, 1, FTC_WATCHDOG_REVOKE), MPI_ERR_ARG, "revoke");
    /* a good setting, on and off again, and a check-in with the guard off */
    expect_class(ftc_watchdog_set(comm, 30, FTC_WATCHDOG_ABORT), MPI_SUCCESS, "watchdog 30");
    expect_class(ftc_guard_set(comm, 2, 30), MPI_SUCCESS, "ftc_guard_set 2, 30");
    for (long call = 1; call <= 6; call++)
        expect_class(run_collective(comm, call, 2), MPI_SUCCESS, "guarded collective");
    expect_class(ftc_watchdog_set(comm, 0, FTC_WATCHDOG_ABORT), MPI_SUCCESS, "watchdog off");
    expect_class(ftc_guard_set(comm, 0, 30), MPI_SUCCESS, "guard off");
    ftc_guard_stats before, after;
    expect_class(ftc_guard_get_stats(NULL, &before), MPI_ERR_COMM, "guard stats NULL");
    expect_class(ftc_guard_get_stats(comm, NULL), MPI_ERR_ARG, "guard stats, no output");
    expect_class(ftc_guard_get_stats(comm, &before), MPI_SUCCESS, "guard stats");
    expect_class(ftc_guard_check(comm), MPI_SUCCESS, "check-in with the guard off");
    expect_class(ftc_guard_get_stats(comm, &after), MPI_SUCCESS, "guard stats");
    if (before.checks < 3 || after.checks != before.checks + 1 || after.stopped
        || after.warnings != 0)
        fail("ftc_guard_get_stats", "check-ins, warnings or the stop miscounted");
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    if (MPI_Error_string(FTC_ERR_STOPPED, text, &length) != MPI_SUCCESS
        || !strstr(text, "FTC_ERR_STOPPED"))
        fail("MPI_Error_string(FTC_ERR_STOPPED)", text);
    mpi_or_die(ftc_comm_free(&comm), "ftc_comm_free");
}

/* ---- differ ----------------------------------------------------------------- */

enum { SAME = 16, OTHER = 2048 };   /* elements: 64 B, and 8 KiB */

typedef enum { ROOT, BYTES, COUNTS, TYPE, OP } differing_item;

typedef struct {
    const char *name;
    differing_item item;
} differing;

/* In run_differing's order. */
static const differing differ_cases[] = {
    { "ftc_bcast", ROOT },            { "ftc_bcast", BYTES },
    { "ftc_reduce", ROOT },           { "ftc_reduce", BYTES },
    { "ftc_gather", ROOT },           { "ftc_gather", BYTES },
    { "ftc_scatter", ROOT },          { "ftc_scatter", BYTES },
    { "ftc_allreduce", BYTES },       { "ftc_allgather", BYTES },
    { "ftc_alltoall", BYTES },        { "ftc_reduce_scatter_block", BYTES },
    { "ftc_reduce_scatter", BYTES },  { "ftc_scan", BYTES },
    { "ftc_exscan", BYTES },          { "ftc_allgatherv", BYTES },
    { "ftc_gatherv", ROOT },          { "ftc_scatterv", ROOT },
    { "ftc_reduce_scatter", COUNTS }, { "ftc_allgatherv", COUNTS },
    { "ftc_allreduce", TYPE },        { "ftc_allreduce", OP },
    { "ftc_reduce", TYPE },           { "ftc_reduce", OP },
    { "ftc_reduce_scatter_block", OP }, { "ftc_scan", TYPE },
    { "ftc_exscan", OP },             { "ftc_reduce_scatter", TYPE },
};

static const char *const item_word[] = { "root", "bytes", "counts", "datatype", "op" };

/* One rank's arguments to a case: a root, a count (per block, or per
 * rank's share of a reduction's vector), counts moved from rank 1 to rank
 * 0 (the same total), a datatype and an op. */
typedef struct {
    int root, n;
    bool skewed;
    MPI_Datatype type;
    MPI_Op op;
} call_args;

static const call_args alike = { 0, SAME, false, MPI_INT, MPI_SUM };

static call_args off_in(differing_item item)
{
    call_args a = alike;
    switch (item) {
    case ROOT: a.root = p - 1; break;
    case BYTES: a.n = OTHER; break;
    case COUNTS: a.skewed = true; break;
    case TYPE: a.type = MPI_FLOAT; break;
    case OP: a.op = MPI_MAX; break;
    }
    return a;
}

/* Case `which` with this rank's arguments; buffers hold OTHER elements
 * per rank. */
static int run_differing(int which, ftc_comm_t comm, const call_args *a, int *send, int *recv,
                         int *counts, int *displs)
{
    for (int r = 0; r < p; r++) {
        counts[r] = a->n + (a->skewed && r == 0) - (a->skewed && r == 1);
        displs[r] = r * OTHER;
    }
    const int n = a->n, root = a->root, mine = counts[rank];
    switch (which) {
    case 0: case 1: return ftc_bcast(recv, n, MPI_INT, root, comm);
    case 2: case 3: case 22: case 23:
        return ftc_reduce(send, recv, n, a->type, a->op, root, comm);
    case 4: case 5: return ftc_gather(send, n, MPI_INT, recv, n, MPI_INT, root, comm);
    case 6: case 7: return ftc_scatter(send, n, MPI_INT, recv, n, MPI_INT, root, comm);
    case 8: case 20: case 21: return ftc_allreduce(send, recv, n, a->type, a->op, comm);
    case 9: return ftc_allgather(send, n, MPI_INT, recv, n, MPI_INT, comm);
    case 10: return ftc_alltoall(send, n, MPI_INT, recv, n, MPI_INT, comm);
    case 11: case 24: return ftc_reduce_scatter_block(send, recv, n, a->type, a->op, comm);
    case 12: case 18: case 27:
        return ftc_reduce_scatter(send, recv, counts, a->type, a->op, comm);
    case 13: case 25: return ftc_scan(send, recv, n, a->type, a->op, comm);
    case 14: case 26: return ftc_exscan(send, recv, n, a->type, a->op, comm);
    case 15: case 19:
        return ftc_allgatherv(send, mine, MPI_INT, recv, counts, displs, MPI_INT, comm);
    case 16: return ftc_gatherv(send, n, MPI_INT, recv, counts, displs, MPI_INT, root, comm);
    default: return ftc_scatterv(send, counts, displs, MPI_INT, recv, n, MPI_INT, root, comm);
    }
}

static void check_differing(int which, int differs)
{
    const differing *d = &differ_cases[which];
    ftc_comm_t comm;
    mpi_or_die(ftc_comm_create(MPI_COMM_WORLD, &comm), d->name);
    const size_t elements = (size_t)OTHER * (size_t)p;
    int *send = checked_malloc(sizeof(int) * elements);
    int *recv = checked_malloc(sizeof(int) * elements);
    int *counts = checked_malloc(sizeof(int) * (size_t)p);
    int *displs = checked_malloc(sizeof(int) * (size_t)p);
    for (size_t i = 0; i < elements; i++)
        send[i] = recv[i] = rank + 1;
    char what[128];
    snprintf(what, sizeof(what), "%s, every rank alike", d->name);
    expect_class(run_differing(which, comm, &alike, send, recv, counts, displs), MPI_SUCCESS,
                 what);
    /* the odd rank out passes the higher value in even cases, the lower
     * in odd ones: the report must name it either way */
    const call_args off = off_in(d->item);
    const bool odd_low = which % 2 == 1 && d->item <= BYTES;
    const call_args *mine = (rank == differs) != odd_low ? &off : &alike;
    snprintf(what, sizeof(what), "%s, rank %d's %s differing", d->name, differs,
             item_word[d->item]);
    if (run_differing(which, comm, mine, send, recv, counts, displs) != FTC_ERR_STOPPED)
        fail(what, ftc_error_message());
    ftc_stop_report report = { 0 };
    if (ftc_guard_last_report(comm, &report) != MPI_SUCCESS || report.error_ranks != 1
        || report.listed != 1 || report.error_rank[0] != differs
        || !strstr(report.message[0], item_word[d->item]))
        fail(what, report.listed > 0 ? report.message[0] : "no report");
    if (run_differing(which, comm, &alike, send, recv, counts, displs) != FTC_ERR_STOPPED)
        fail("the next call, after the stop", ftc_error_message());
    free(send);
    free(recv);
    free(counts);
    free(displs);
    mpi_or_die(ftc_comm_free(&comm), "ftc_comm_free");
}

static void add_ints(void *in, void *inout, int *count, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *count; i++)
        ((int *)inout)[i] += ((const int *)in)[i];
}

/* A program's own op, made after another one on rank 1 only (its handle's
 * number differs there), must pass; so must an allgatherv whose rank 1
 * receives pairs of ints where the others receive ints. */
static void check_own_op_and_synonym_types(ftc_comm_t comm)
{
    MPI_Op extra = MPI_OP_NULL, sum;
    if (rank == 1)
        MPI_Op_create(add_ints, 1, &extra);
    MPI_Op_create(add_ints, 1, &sum);
    int mine = rank + 1, total = 0;
    expect_class(ftc_allreduce(&mine, &total, 1, MPI_INT, sum, comm), MPI_SUCCESS,
                 "ftc_allreduce, a program's own op");
    if (total != p * (p + 1) / 2)
        fail("ftc_allreduce, a program's own op", "a wrong sum");
    MPI_Op_free(&sum);
    if (extra != MPI_OP_NULL)
        MPI_Op_free(&extra);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    const bool pairs = rank == 1;
    int two[2] = { rank, -rank }, *all = checked_malloc(sizeof(int) * 2 * (size_t)p);
    int *counts = checked_malloc(sizeof(int) * (size_t)p);
    int *displs = checked_malloc(sizeof(int) * (size_t)p);
    for (int r = 0; r < p; r++) {
        counts[r] = pairs ? 1 : 2;
        displs[r] = r * counts[r];
    }
    expect_class(ftc_allgatherv(two, 2, MPI_INT, all, counts, displs, pairs ? pair : MPI_INT,
                                comm),
                 MPI_SUCCESS, "ftc_allgatherv, another recvtype of the same signature");
    for (int r = 0; r < p; r++)
        if (all[2 * r] != r || all[2 * r + 1] != -r)
            fail("ftc_allgatherv, another recvtype of the same signature", "a wrong block");
    MPI_Type_free(&pair);
    free(all);
    free(counts);
    free(displs);
}

/* Arguments MPI ignores on a rank (a non-root's receive side of a gather,
 * send side of a scatter, recvbuf of a reduce) hold garbage, and in-place
 * forms: nothing there may be compared. Every result checked. */
static void check_ignored_arguments(void)
{
    ftc_comm_t comm;
    mpi_or_die(ftc_comm_create(MPI_COMM_WORLD, &comm), "ftc_comm_create");
    const int root = p - 1, at_root = rank == root;
    int *all = checked_malloc(sizeof(int) * (size_t)p), mine = 10 + rank, got = -1;
    for (int r = 0; r < p; r++)
        all[r] = r == root ? 10 + r : -1;
    expect_class(ftc_gather(at_root ? MPI_IN_PLACE : &mine, 1, MPI_INT, at_root ? all : NULL,
                            at_root ? 1 : -1, at_root ? MPI_INT : MPI_DATATYPE_NULL, root, comm),
                 MPI_SUCCESS, "ftc_gather, garbage where ignored");
    for (int r = 0; at_root && r < p; r++)
        if (all[r] != 10 + r)
            fail("ftc_gather, garbage where ignored", "a wrong block at the root");
    expect_class(ftc_scatter(at_root ? all : NULL, at_root ? 1 : -1,
                             at_root ? MPI_INT : MPI_DATATYPE_NULL, at_root ? MPI_IN_PLACE : &got,
                             1, MPI_INT, root, comm),
                 MPI_SUCCESS, "ftc_scatter, garbage where ignored");
    if (!at_root && got != 10 + rank)
        fail("ftc_scatter, garbage where ignored", "a wrong block");
    expect_class(ftc_reduce(at_root ? MPI_IN_PLACE : &mine, at_root ? &mine : NULL, 1, MPI_INT,
                            MPI_SUM, root, comm),
                 MPI_SUCCESS, "ftc_reduce, garbage where ignored");
    if (at_root && mine != 10 * p + p * (p - 1) / 2)   /* the sum, in place */
        fail("ftc_reduce, garbage where ignored", "a wrong sum at the root");
    for (int r = 0; r < p; r++)
        all[r] = r == rank ? 10 + r : -1;
    expect_class(ftc_allgather(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, all, 1, MPI_INT, comm),
                 MPI_SUCCESS, "ftc_allgather in place");
    for (int r = 0; r < p; r++)
        if (all[r] != 10 + r)
            fail("ftc_allgather in place", "a wrong block");
    free(all);
    check_own_op_and_synonym_types(comm);
    mpi_or_die(ftc_comm_free(&comm), "ftc_comm_free");
}

static void scenario_differ(int differs)
{
    if (differs <= 0 || differs >= p - 1) {
        fail("differ", "RANK must be neither 0 nor p - 1");
        return;
    }
    check_ignored_arguments();
    for (int which = 0; which < (int)(sizeof(differ_cases) / sizeof(differ_cases[0])); which++)
        check_differing(which, differs);
}

static void usage(void)
{
    if (rank == 0)
        fprintf(stderr, "usage: test_guard raise|badarg|healthy|warn|sleep|mismatch|differ|spin|"
                        "api [arguments] (see the source)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    note_pid();
    const char *what = argc > 1 ? argv[1] : "";
    if (strcmp(what, "raise") == 0 && argc >= 5)
        scenario_stop(argv[2], atol(argv[3]), atol(argv[4]), argc > 5 ? atol(argv[5]) : 6,
                      false);
    else if (strcmp(what, "badarg") == 0 && argc == 4)
        scenario_stop(argv[2], atol(argv[3]), atol(argv[3]), 6, true);
    else if (strcmp(what, "healthy") == 0 && argc == 3)
        scenario_healthy(atol(argv[2]));
    else if (strcmp(what, "warn") == 0 && p >= 4)
        scenario_warn();
    else if (strcmp(what, "sleep") == 0 && argc == 4)
        scenario_stall(atoi(argv[2]), atof(argv[3]), false);
    else if (strcmp(what, "mismatch") == 0 && argc == 3)
        scenario_stall(atoi(argv[2]), 0, true);
    else if (strcmp(what, "differ") == 0 && argc == 3)
        scenario_differ(atoi(argv[2]));
    else if (strcmp(what, "spin") == 0)
        scenario_healthy(6);
    else if (strcmp(what, "api") == 0)
        scenario_api();
    else
        usage();
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("guard %s p=%d: as expected on every rank\n", what, p);
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
