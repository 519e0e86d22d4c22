/*
 * Bad input to the public API: the right MPI error class, a message in words
 * (ftc_error_message), never a crash or a hang. Run at p = 1, 2, 4.
 *
 * Argument errors are found before any communication, so every rank checks
 * them on its own. The one communicating error — ranks passing different
 * counts — is checked for every algorithm: the call must return on every
 * rank (see check_cross_rank_count_mismatch).
 *
 * Exit status 0 when every check passed on every rank.
 */
#define _POSIX_C_SOURCE 200809L   /* setenv, unsetenv */

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "ftcoll.h"
#include "harness.h"

static int my_rank = 0;

/* ---- checks that report and count ------------------------------------------ */

static int failed(const char *what, const char *detail)
{
    fprintf(stderr, "FAIL rank %d: %s: %s\n", my_rank, what, detail);
    return 1;
}

/* class_of, class_name: harness.h */

/* rc must be of class `want`, with a non-empty message that contains
 * `mention` (NULL: anything). */
static int expect_error(const char *what, int rc, int want, const char *mention)
{
    const int got = class_of(rc);
    const char *message = ftc_error_message();
    char detail[768];
    if (got != want) {
        snprintf(detail, sizeof(detail), "returned %s (%d), expected %s; message \"%s\"",
                 class_name(got), got, class_name(want), message);
        return failed(what, detail);
    }
    if (!message || !message[0])
        return failed(what, "the error message is empty");
    if (mention && !strstr(message, mention)) {
        snprintf(detail, sizeof(detail), "message \"%s\" does not mention \"%s\"", message,
                 mention);
        return failed(what, detail);
    }
    return 0;
}

/* A successful call leaves no stale message behind. */
static int expect_success(const char *what, int rc)
{
    char detail[768];
    if (rc != MPI_SUCCESS) {
        snprintf(detail, sizeof(detail), "returned %s (%d): %s", class_name(class_of(rc)), rc,
                 ftc_error_message());
        return failed(what, detail);
    }
    if (ftc_error_message()[0]) {
        snprintf(detail, sizeof(detail), "succeeded but left the message \"%s\"",
                 ftc_error_message());
        return failed(what, detail);
    }
    return 0;
}

static int expect_true(const char *what, bool condition)
{
    return condition ? 0 : failed(what, "not true");
}

/* ---- ftc_allgather arguments -------------------------------------------------- */

static int check_counts(ftc_comm_t comm)
{
    int send[4] = { 0 }, recv[64] = { 0 };
    int f = 0;
    f += expect_error("negative sendcount",
                      ftc_allgather(send, -1, MPI_INT, recv, 1, MPI_INT, comm), MPI_ERR_COUNT,
                      "sendcount");
    f += expect_error("negative recvcount",
                      ftc_allgather(send, 1, MPI_INT, recv, -1, MPI_INT, comm), MPI_ERR_COUNT,
                      "recvcount");
    f += expect_error("negative recvcount with MPI_IN_PLACE",
                      ftc_allgather(MPI_IN_PLACE, 0, MPI_INT, recv, -3, MPI_INT, comm),
                      MPI_ERR_COUNT, "recvcount");
    return f;
}

/* recvcount x p beyond INT_MAX: rejected before a byte is touched (the
 * buffers are far too small on purpose). */
static int check_count_overflow(ftc_comm_t comm, int p)
{
    if (p < 2)
        return 0;
    int send[1] = { 0 }, recv[1] = { 0 };
    const int count = (int)(2147483647 / p) + 1;
    return expect_error("recvcount x p > INT_MAX",
                        ftc_allgather(send, count, MPI_BYTE, recv, count, MPI_BYTE, comm),
                        MPI_ERR_COUNT, NULL);
}

static int check_buffers(ftc_comm_t comm)
{
    int send[4] = { 0 }, recv[64] = { 0 };
    int f = 0;
    f += expect_error("NULL recvbuf, recvcount 1",
                      ftc_allgather(send, 1, MPI_INT, NULL, 1, MPI_INT, comm), MPI_ERR_BUFFER,
                      "recvbuf");
    f += expect_error("NULL sendbuf, sendcount 1",
                      ftc_allgather(NULL, 1, MPI_INT, recv, 1, MPI_INT, comm), MPI_ERR_BUFFER,
                      "sendbuf");
    f += expect_error("NULL recvbuf with MPI_IN_PLACE",
                      ftc_allgather(MPI_IN_PLACE, 0, MPI_INT, NULL, 2, MPI_INT, comm),
                      MPI_ERR_BUFFER, "recvbuf");
    /* Count 0 moves nothing: NULL buffers are legal (and collective: every
     * rank makes the same call). */
    f += expect_success("NULL buffers with count 0",
                        ftc_allgather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, comm));
    return f;
}

static int check_types(ftc_comm_t comm)
{
    int send[4] = { 0 }, recv[64] = { 0 };
    int f = 0;
    f += expect_error("sendtype MPI_DATATYPE_NULL",
                      ftc_allgather(send, 1, MPI_DATATYPE_NULL, recv, 1, MPI_INT, comm),
                      MPI_ERR_TYPE, "sendtype");
    f += expect_error("recvtype MPI_DATATYPE_NULL",
                      ftc_allgather(send, 1, MPI_INT, recv, 1, MPI_DATATYPE_NULL, comm),
                      MPI_ERR_TYPE, "recvtype");
    f += expect_error("recvtype MPI_DATATYPE_NULL with MPI_IN_PLACE",
                      ftc_allgather(MPI_IN_PLACE, 0, MPI_INT, recv, 1, MPI_DATATYPE_NULL, comm),
                      MPI_ERR_TYPE, "recvtype");
    return f;
}

/* Send and receive of one rank must carry the same number of bytes. */
static int check_local_size_mismatch(ftc_comm_t comm)
{
    double send[4] = { 0 };
    int recv[64] = { 0 };
    int f = 0;
    f += expect_error("sendcount 2 x int vs recvcount 3 x int",
                      ftc_allgather(send, 2, MPI_INT, recv, 3, MPI_INT, comm), MPI_ERR_ARG, NULL);
    f += expect_error("1 double vs 1 int",
                      ftc_allgather(send, 1, MPI_DOUBLE, recv, 1, MPI_INT, comm), MPI_ERR_ARG,
                      NULL);
    f += expect_error("sendcount 0 vs recvcount 1",
                      ftc_allgather(send, 0, MPI_INT, recv, 1, MPI_INT, comm), MPI_ERR_ARG, NULL);
    return f;
}

static int check_null_communicator(void)
{
    int send[1] = { 0 }, recv[1] = { 0 };
    ftc_allgather_choice choice;
    ftc_comm_t none = NULL;
    int f = 0;
    f += expect_error("ftc_allgather on a NULL ftc_comm_t",
                      ftc_allgather(send, 1, MPI_INT, recv, 1, MPI_INT, NULL), MPI_ERR_COMM, NULL);
    f += expect_error("ftc_allgather_set_algorithm on NULL",
                      ftc_allgather_set_algorithm(NULL, FTC_ALLGATHER_RING), MPI_ERR_COMM, NULL);
    f += expect_error("ftc_allgather_last_choice on NULL",
                      ftc_allgather_last_choice(NULL, &choice), MPI_ERR_COMM, NULL);
    f += expect_error("ftc_comm_free(NULL)", ftc_comm_free(NULL), MPI_ERR_COMM, NULL);
    f += expect_error("ftc_comm_free of a NULL handle", ftc_comm_free(&none), MPI_ERR_COMM, NULL);
    f += expect_true("ftc_comm_mpi(NULL) is MPI_COMM_NULL", ftc_comm_mpi(NULL) == MPI_COMM_NULL);
    f += expect_true("ftc_comm_rank(NULL) is -1", ftc_comm_rank(NULL) == -1);
    f += expect_true("ftc_comm_size(NULL) is -1", ftc_comm_size(NULL) == -1);
    int count = 0;
    f += expect_error("ftc_comm_live_ranks on NULL", ftc_comm_live_ranks(NULL, NULL, 0, &count),
                      MPI_ERR_COMM, NULL);
    return f;
}

/* MPI_IN_PLACE ignores sendcount and sendtype, however bad (MPI 4.0, 6.7). */
static int check_in_place_ignores_send_arguments(ftc_comm_t comm, int rank, int p)
{
    int recv[64];
    for (int i = 0; i < p; i++)
        recv[i] = i == rank ? 1000 + rank : -1;
    int f = expect_success("MPI_IN_PLACE with sendcount -5 and MPI_DATATYPE_NULL",
                           ftc_allgather(MPI_IN_PLACE, -5, MPI_DATATYPE_NULL, recv, 1, MPI_INT,
                                         comm));
    for (int i = 0; i < p; i++)
        if (recv[i] != 1000 + i)
            f += failed("MPI_IN_PLACE with ignored send arguments", "wrong data received");
    return f;
}

/* ---- communicators ------------------------------------------------------------- */

static int check_comm_create_rejects(void)
{
    ftc_comm_t comm = (ftc_comm_t)&my_rank;   /* must be overwritten with NULL */
    int f = expect_error("ftc_comm_create(MPI_COMM_NULL)", ftc_comm_create(MPI_COMM_NULL, &comm),
                         MPI_ERR_COMM, "MPI_COMM_NULL");
    f += expect_true("ftc_comm_create(MPI_COMM_NULL) sets the handle to NULL", comm == NULL);
    f += expect_error("ftc_comm_create with a NULL output",
                      ftc_comm_create(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, NULL);
    return f;
}

/* Even and odd ranks form two groups joined by an intercommunicator. */
static int check_comm_create_rejects_intercommunicator(int rank, int p)
{
    if (p < 2)
        return 0;
    MPI_Comm half, inter;
    const int color = rank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, color == 0 ? 1 : 0, 99, &inter);
    ftc_comm_t comm = NULL;
    int f = expect_error("ftc_comm_create(intercommunicator)", ftc_comm_create(inter, &comm),
                         MPI_ERR_COMM, "intercommunicator");
    f += expect_true("ftc_comm_create(intercommunicator) leaves the handle NULL", comm == NULL);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    return f;
}

static int check_private_communicator(ftc_comm_t comm)
{
    int relation = MPI_UNEQUAL;
    MPI_Comm_compare(ftc_comm_mpi(comm), MPI_COMM_WORLD, &relation);
    return expect_true("ftc_comm_mpi is a duplicate of MPI_COMM_WORLD (congruent)",
                       relation == MPI_CONGRUENT);
}

/* Rank, size and live ranks are MPI_COMM_WORLD's while nobody failed. */
static int check_queries(ftc_comm_t comm, int p)
{
    int f = expect_true("ftc_comm_rank", ftc_comm_rank(comm) == my_rank);
    f += expect_true("ftc_comm_size", ftc_comm_size(comm) == p);
    int live[64], count = -1;
    f += expect_success("ftc_comm_live_ranks", ftc_comm_live_ranks(comm, live, p, &count));
    f += expect_true("every rank alive", count == p);
    for (int i = 0; i < count && i < p; i++)
        f += expect_true("live ranks in order", live[i] == i);
    f += expect_success("ftc_comm_live_ranks, count only",
                        ftc_comm_live_ranks(comm, NULL, 0, &count));
    f += expect_error("ftc_comm_live_ranks without ranks",
                      ftc_comm_live_ranks(comm, NULL, 1, &count), MPI_ERR_ARG, NULL);
    return f;
}

/* ---- algorithm names and settings --------------------------------------------- */

static const char *const canonical_names[FTC_ALLGATHER_ALGORITHM_COUNT] = {
    "auto", "linear", "bruck", "recursive_doubling", "ring", "neighbor_exchange", "two_proc",
    "sparbit",
};

static int expect_parse(const char *text, ftc_allgather_algorithm want)
{
    ftc_allgather_algorithm got = (ftc_allgather_algorithm)-1;
    char what[96];
    snprintf(what, sizeof(what), "ftc_allgather_algorithm_parse(\"%s\")", text);
    /* Only the result: unlike the other calls, parse leaves an earlier
     * error message in place when it succeeds. */
    const int rc = ftc_allgather_algorithm_parse(text, &got);
    int f = rc == MPI_SUCCESS ? 0 : failed(what, ftc_error_message());
    if (got != want) {
        char detail[64];
        snprintf(detail, sizeof(detail), "gave %d, expected %d", (int)got, (int)want);
        f += failed(what, detail);
    }
    return f;
}

/* An unknown name fails and lists every valid one. */
static int expect_parse_rejects(const char *text)
{
    ftc_allgather_algorithm got;
    char what[96];
    snprintf(what, sizeof(what), "ftc_allgather_algorithm_parse(\"%s\")", text);
    int f = expect_error(what, ftc_allgather_algorithm_parse(text, &got), MPI_ERR_ARG, NULL);
    for (int id = 0; id < FTC_ALLGATHER_ALGORITHM_COUNT; id++)
        if (!strstr(ftc_error_message(), canonical_names[id]))
            f += failed(what, "the message does not list every valid name");
    return f;
}

static int check_names_and_parsing(void)
{
    int f = 0;
    for (int id = 0; id < FTC_ALLGATHER_ALGORITHM_COUNT; id++) {
        const char *name = ftc_allgather_algorithm_name((ftc_allgather_algorithm)id);
        if (!name || strcmp(name, canonical_names[id]) != 0)
            f += failed("ftc_allgather_algorithm_name", canonical_names[id]);
        f += expect_parse(canonical_names[id], (ftc_allgather_algorithm)id);
        char number[8];
        snprintf(number, sizeof(number), "%d", id);
        f += expect_parse(number, (ftc_allgather_algorithm)id);
    }
    f += expect_true("ftc_allgather_algorithm_name(8) is NULL",
                     ftc_allgather_algorithm_name((ftc_allgather_algorithm)8) == NULL);
    f += expect_true("ftc_allgather_algorithm_name(-1) is NULL",
                     ftc_allgather_algorithm_name((ftc_allgather_algorithm)-1) == NULL);
    /* Open MPI's spellings. */
    f += expect_parse("ignore", FTC_ALLGATHER_AUTO);
    f += expect_parse("neighbor", FTC_ALLGATHER_NEIGHBOR_EXCHANGE);
    f += expect_parse("two_procs", FTC_ALLGATHER_TWO_PROC);
    static const char *const bad[] = { "nope", "", "8", "-1", "99", "ring ", "4x" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        f += expect_parse_rejects(bad[i]);
    f += expect_error("parse(NULL text)", ftc_allgather_algorithm_parse(NULL, NULL), MPI_ERR_ARG,
                      NULL);
    ftc_allgather_algorithm out;
    f += expect_error("parse(\"ring\", NULL)", ftc_allgather_algorithm_parse("ring", NULL),
                      MPI_ERR_ARG, NULL);
    f += expect_error("parse(NULL, &out)", ftc_allgather_algorithm_parse(NULL, &out), MPI_ERR_ARG,
                      NULL);
    return f;
}

/* Rejected settings leave the previous one in force. */
static int check_set_algorithm(ftc_comm_t comm)
{
    int f = expect_success("ftc_allgather_set_algorithm(ring)",
                           ftc_allgather_set_algorithm(comm, FTC_ALLGATHER_RING));
    f += expect_error("ftc_allgather_set_algorithm(99)",
                      ftc_allgather_set_algorithm(comm, (ftc_allgather_algorithm)99), MPI_ERR_ARG,
                      NULL);
    f += expect_error("ftc_allgather_set_algorithm(8)",
                      ftc_allgather_set_algorithm(comm, (ftc_allgather_algorithm)8), MPI_ERR_ARG,
                      NULL);
    f += expect_error("ftc_allgather_set_algorithm(-1)",
                      ftc_allgather_set_algorithm(comm, (ftc_allgather_algorithm)-1), MPI_ERR_ARG,
                      NULL);
    int mine = 1, all[64];
    f += expect_success("allgather after rejected settings",
                        ftc_allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, comm));
    ftc_allgather_choice choice;
    f += expect_success("ftc_allgather_last_choice", ftc_allgather_last_choice(comm, &choice));
    f += expect_true("a rejected setting keeps ring in force",
                     choice.requested == FTC_ALLGATHER_RING && choice.executed == FTC_ALLGATHER_RING);
    f += expect_error("ftc_allgather_last_choice(comm, NULL)",
                      ftc_allgather_last_choice(comm, NULL), MPI_ERR_ARG, NULL);
    return f;
}

/* ---- ranks that disagree -------------------------------------------------------- */

/*
 * Rank 0 passes count n + 1, the others n, for every algorithm. Rank 0
 * receives only blocks of n elements where it expects n + 1, so it must
 * return MPI_ERR_TRUNCATE; which other ranks notice depends on the algorithm
 * (those that receive rank 0's longer block from it directly). What every
 * algorithm must do: return on every rank — the engine runs every step even
 * after a failed one, so no peer waits for a message that never comes — and
 * leave the communicator clean for the next, correct call.
 */
static int check_cross_rank_count_mismatch(ftc_comm_t comm, int rank, int p)
{
    if (p < 2)
        return 0;
#ifndef OPEN_MPI
    /* MPICH 4.0 raises a failed MPI_Wait through MPI_COMM_WORLD's handler,
     * not the request's communicator: without this, it aborts the job. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
#endif
    enum { N = 5 };
    int send[N + 1], recv[64 * (N + 1)];
    for (int i = 0; i < N + 1; i++)
        send[i] = rank * 100 + i;
    int f = 0;
    for (int alg = FTC_ALLGATHER_LINEAR; alg < FTC_ALLGATHER_ALGORITHM_COUNT; alg++)
    for (int zero = 0; zero <= 1; zero++) {
        /* Rank 0 passes n + 1, or an empty block (which must not return early). */
        const int count = rank != 0 ? N : zero ? 0 : N + 1;
        char what[96];
        ftc_allgather_set_algorithm(comm, (ftc_allgather_algorithm)alg);
        const int rc = ftc_allgather(send, count, MPI_INT, recv, count, MPI_INT, comm);
        snprintf(what, sizeof(what), "%s: count %s on rank 0, n elsewhere",
                 ftc_allgather_algorithm_name((ftc_allgather_algorithm)alg), zero ? "0" : "n+1");
        if (rank == 0)
            f += expect_error(what, rc, MPI_ERR_TRUNCATE, NULL);
        snprintf(what, sizeof(what), "%s: allgather after the mismatch",
                 ftc_allgather_algorithm_name((ftc_allgather_algorithm)alg));
        f += expect_success(what, ftc_allgather(send, N, MPI_INT, recv, N, MPI_INT, comm));
        for (int b = 0; b < p; b++)
            for (int i = 0; i < N; i++)
                if (recv[b * N + i] != b * 100 + i)
                    return f + failed(what, "wrong data");
    }
    return f;
}

/* A derived type that was never committed: MPI_ERR_TYPE, not a crash (Open
 * MPI's packing code crashes on one; MPICH's aborts through MPI_COMM_SELF). */
static int check_uncommitted_type(ftc_comm_t comm)
{
    MPI_Datatype pair;
    MPI_Type_vector(2, 1, 2, MPI_INT, &pair);
    int send[4] = { 7, -1, 8, -1 }, recv[64 * 4];
    const int rc = ftc_allgather(send, 1, pair, recv, 1, pair, comm);
    MPI_Type_free(&pair);
    return expect_error("an uncommitted derived type", rc, MPI_ERR_TYPE, "commit");
}

/* ---- the fault-tolerance API -------------------------------------------------------- */

static int check_fault_tolerance_api(ftc_comm_t comm, int p)
{
    ftc_allreduce_report report;
    MPI_Comm survivors;
    ftc_comm_t fresh;   /* the other checks ran collectives on `comm` */
    int f = ftc_comm_create(MPI_COMM_WORLD, &fresh) != MPI_SUCCESS;
    f += expect_error("ftc_allreduce_last_report before any call",
                      ftc_allreduce_last_report(fresh, &report, NULL, NULL), MPI_ERR_OTHER,
                      "no fault-tolerant call");
    f += ftc_comm_free(&fresh) != MPI_SUCCESS;
    f += expect_error("ftc_allreduce_last_report(NULL comm)",
                      ftc_allreduce_last_report(NULL, &report, NULL, NULL), MPI_ERR_COMM, NULL);
    f += expect_error("ftc_allreduce_last_report(NULL report)",
                      ftc_allreduce_last_report(comm, NULL, NULL, NULL), MPI_ERR_ARG, "report");
    f += expect_error("ftc_allreduce_set_strict(2)", ftc_allreduce_set_strict(comm, 2),
                      MPI_ERR_ARG, "0 or 1");
    f += expect_error("ftc_allreduce_set_strict(NULL comm)", ftc_allreduce_set_strict(NULL, 1),
                      MPI_ERR_COMM, NULL);
    f += expect_error("ftc_inject with a bad step", ftc_inject(comm, "kill rank=1 step=sideways"),
                      MPI_ERR_ARG, "step");
    f += expect_error("ftc_inject(NULL comm)", ftc_inject(NULL, ""), MPI_ERR_COMM, NULL);
    f += expect_success("ftc_inject of nothing", ftc_inject(comm, ""));
    f += expect_error("ftc_comm_survivors(NULL comm)", ftc_comm_survivors(NULL, &survivors),
                      MPI_ERR_COMM, NULL);
    f += expect_error("ftc_comm_survivors(NULL output)", ftc_comm_survivors(comm, NULL),
                      MPI_ERR_ARG, NULL);

    /* Healthy: every rank in S, nobody failed, a communicator of everyone. */
    long value = 1;
    f += expect_success("ftc_allreduce", ftc_allreduce(MPI_IN_PLACE, &value, 1, MPI_LONG,
                                                       MPI_SUM, comm));
    int in_result[64], dead[64];
    f += expect_success("ftc_allreduce_last_report",
                        ftc_allreduce_last_report(comm, &report, in_result, dead));
    f += expect_true("report: everyone in S, nobody dead, no recovery",
                     report.size == p && report.contributors == p && report.alive == p
                     && report.failed_in_call == 0 && report.recovery_rounds == 0);
    for (int r = 0; r < p; r++)
        f += expect_true("report: rank in S and alive", in_result[r] == 1 && dead[r] == 0);
    f += expect_true("ftc_comm_recovered_calls: none without a failure",
                     ftc_comm_recovered_calls(comm) == 0);
    f += expect_true("ftc_comm_recovered_calls(NULL comm) is -1",
                     ftc_comm_recovered_calls(NULL) == -1);
    f += expect_success("ftc_allreduce_set_strict(1)", ftc_allreduce_set_strict(comm, 1));
    f += expect_success("strict ftc_allreduce with every rank",
                        ftc_allreduce(MPI_IN_PLACE, &value, 1, MPI_LONG, MPI_SUM, comm));
    f += expect_success("ftc_allreduce_set_strict(0)", ftc_allreduce_set_strict(comm, 0));
    f += expect_true("the sum", value == (long)p * p);
    if (ftc_comm_survivors(comm, &survivors) != MPI_SUCCESS)
        return f + failed("ftc_comm_survivors", ftc_error_message());
    int n = 0;
    MPI_Comm_size(survivors, &n);
    f += expect_true("ftc_comm_survivors: everyone", n == p);
    MPI_Comm_free(&survivors);
    return f;
}

/* ---- main ------------------------------------------------------------------------ */

/* ---- ftc_allgatherv arguments ------------------------------------------------ */

/* Local errors every rank makes alike: each a clear class and message. */
static int check_allgatherv_arguments(ftc_comm_t comm, int rank, int p)
{
    int counts[64], displs[64], send[4] = { 0 }, recv[4 * 64];
    for (int r = 0; r < p; r++) {
        counts[r] = 2;
        displs[r] = 2 * r;
    }
    int f = expect_error("ftc_allgatherv with NULL recvcounts",
                         ftc_allgatherv(send, 2, MPI_INT, recv, NULL, displs, MPI_INT, comm),
                         MPI_ERR_ARG, "recvcounts");
    f += expect_error("ftc_allgatherv with NULL displs",
                      ftc_allgatherv(send, 2, MPI_INT, recv, counts, NULL, MPI_INT, comm),
                      MPI_ERR_ARG, "displs");
    counts[p - 1] = -1;
    f += expect_error("ftc_allgatherv with a negative count",
                      ftc_allgatherv(send, rank == p - 1 ? -1 : 2, MPI_INT, recv, counts, displs,
                                     MPI_INT, comm), MPI_ERR_COUNT, "recvcounts");
    counts[p - 1] = 2;
    f += expect_error("ftc_allgatherv, send bytes unlike this rank's count",
                      ftc_allgatherv(send, 3, MPI_INT, recv, counts, displs, MPI_INT, comm),
                      MPI_ERR_ARG, "recvcounts");
    f += expect_error("ftc_allgatherv with a NULL receive type",
                      ftc_allgatherv(send, 2, MPI_INT, recv, counts, displs, MPI_DATATYPE_NULL,
                                     comm), MPI_ERR_TYPE, NULL);
    f += expect_error("ftc_allgatherv into a NULL buffer",
                      ftc_allgatherv(send, 2, MPI_INT, NULL, counts, displs, MPI_INT, comm),
                      MPI_ERR_BUFFER, NULL);
    f += expect_error("ftc_allgatherv on a NULL ftc_comm_t",
                      ftc_allgatherv(send, 2, MPI_INT, recv, counts, displs, MPI_INT, NULL),
                      MPI_ERR_COMM, NULL);
    if (p > 1) {   /* counts that sum past INT_MAX, each one valid */
        int large[64];
        for (int r = 0; r < p; r++)
            large[r] = INT_MAX / 2 + 1;
        f += expect_error("ftc_allgatherv, counts past INT_MAX",
                          ftc_allgatherv(MPI_IN_PLACE, 0, MPI_INT, recv, large, displs, MPI_INT,
                                         comm), MPI_ERR_COUNT, "INT_MAX");
    }
    ftc_allgatherv_algorithm alg;
    f += expect_error("ftc_allgatherv_algorithm_parse(\"recursive_doubling\")",
                      ftc_allgatherv_algorithm_parse("recursive_doubling", &alg), MPI_ERR_ARG,
                      "sparbit (6)");
    f += expect_error("ftc_allgatherv_set_algorithm(7)",
                      ftc_allgatherv_set_algorithm(comm, (ftc_allgatherv_algorithm)7),
                      MPI_ERR_ARG, NULL);
    ftc_allgatherv_choice choice;
    f += expect_error("ftc_allgatherv_last_choice on NULL",
                      ftc_allgatherv_last_choice(NULL, &choice), MPI_ERR_COMM, NULL);
    /* and a good call still works after them all */
    for (int i = 0; i < 2; i++)
        send[i] = rank * 10 + i;
    f += expect_success("ftc_allgatherv after the errors",
                        ftc_allgatherv(send, 2, MPI_INT, recv, counts, displs, MPI_INT, comm));
    for (int r = 0; r < p; r++)
        for (int i = 0; i < 2; i++)
            f += expect_true("ftc_allgatherv's blocks", recv[2 * r + i] == r * 10 + i);
    return f;
}

/* Every check fails alike on every rank (each call's arguments are bad
 * everywhere), so no rank goes on into a gather the others left. */
static int check_gather_arguments(ftc_comm_t comm, int rank, int p)
{
    int send[4] = { 0 }, recv[4 * 64];
    int f = expect_error("ftc_gather to root p", ftc_gather(send, 2, MPI_INT, recv, 2, MPI_INT, p,
                                                            comm), MPI_ERR_ROOT, "root");
    f += expect_error("ftc_gather to root -1",
                      ftc_gather(send, 2, MPI_INT, recv, 2, MPI_INT, -1, comm), MPI_ERR_ROOT,
                      NULL);
    f += expect_error("ftc_gather with a negative sendcount",
                      ftc_gather(send, -1, MPI_INT, recv, 2, MPI_INT, 0, comm), MPI_ERR_COUNT,
                      "sendcount");
    f += expect_error("ftc_gather with a NULL send type",
                      ftc_gather(send, 2, MPI_DATATYPE_NULL, recv, 2, MPI_INT, 0, comm),
                      MPI_ERR_TYPE, NULL);
    f += expect_error("ftc_gather from a NULL buffer",
                      ftc_gather(NULL, 2, MPI_INT, recv, 2, MPI_INT, 0, comm), MPI_ERR_BUFFER,
                      NULL);
    if (p > 1)   /* each rank names another as root: none of them is */
        f += expect_error("ftc_gather, MPI_IN_PLACE off the root",
                          ftc_gather(MPI_IN_PLACE, 2, MPI_INT, recv, 2, MPI_INT, (rank + 1) % p,
                                     comm), MPI_ERR_BUFFER, "MPI_IN_PLACE");
    /* each rank names itself as root: the root's own checks, everywhere */
    f += expect_error("ftc_gather, the root's send bytes unlike its receive block",
                      ftc_gather(send, 3, MPI_INT, recv, 2, MPI_INT, rank, comm), MPI_ERR_ARG,
                      "recvcount");
    f += expect_error("ftc_gather into a NULL buffer at the root",
                      ftc_gather(send, 2, MPI_INT, NULL, 2, MPI_INT, rank, comm), MPI_ERR_BUFFER,
                      NULL);
    f += expect_error("ftc_gather with a negative recvcount at the root",
                      ftc_gather(MPI_IN_PLACE, 2, MPI_INT, recv, -2, MPI_INT, rank, comm),
                      MPI_ERR_COUNT, "recvcount");
    f += expect_error("ftc_gather on a NULL ftc_comm_t",
                      ftc_gather(send, 2, MPI_INT, recv, 2, MPI_INT, 0, NULL), MPI_ERR_COMM,
                      NULL);
    ftc_gather_algorithm alg;
    f += expect_error("ftc_gather_algorithm_parse(\"ring\")",
                      ftc_gather_algorithm_parse("ring", &alg), MPI_ERR_ARG, "linear_sync (3)");
    f += expect_error("ftc_gather_set_algorithm(4)",
                      ftc_gather_set_algorithm(comm, (ftc_gather_algorithm)4), MPI_ERR_ARG, NULL);
    ftc_gather_choice choice;
    f += expect_error("ftc_gather_last_choice on NULL", ftc_gather_last_choice(NULL, &choice),
                      MPI_ERR_COMM, NULL);
    /* and a good call still works after them all */
    for (int i = 0; i < 2; i++)
        send[i] = rank * 10 + i;
    f += expect_success("ftc_gather after the errors",
                        ftc_gather(send, 2, MPI_INT, recv, 2, MPI_INT, p - 1, comm));
    for (int r = 0; r < p && rank == p - 1; r++)
        for (int i = 0; i < 2; i++)
            f += expect_true("ftc_gather's blocks", recv[2 * r + i] == r * 10 + i);
    return f;
}

static void not_commutative(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in, (void)inout, (void)len, (void)type;
}

static int check_reduce_arguments(ftc_comm_t comm, int rank, int p)
{
    int send[4] = { 0 }, recv[4] = { 0 };
    int f = expect_error("ftc_reduce to root p",
                         ftc_reduce(send, recv, 2, MPI_INT, MPI_SUM, p, comm), MPI_ERR_ROOT,
                         "root");
    f += expect_error("ftc_reduce to root -1",
                      ftc_reduce(send, recv, 2, MPI_INT, MPI_SUM, -1, comm), MPI_ERR_ROOT, NULL);
    f += expect_error("ftc_reduce with a negative count",
                      ftc_reduce(send, recv, -1, MPI_INT, MPI_SUM, 0, comm), MPI_ERR_COUNT,
                      "count");
    f += expect_error("ftc_reduce with a NULL type",
                      ftc_reduce(send, recv, 2, MPI_DATATYPE_NULL, MPI_SUM, 0, comm),
                      MPI_ERR_TYPE, NULL);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    f += expect_error("ftc_reduce of a derived type",
                      ftc_reduce(send, recv, 2, pair, MPI_SUM, 0, comm), MPI_ERR_TYPE,
                      "predefined");
    MPI_Type_free(&pair);
    f += expect_error("ftc_reduce with MPI_OP_NULL",
                      ftc_reduce(send, recv, 2, MPI_INT, MPI_OP_NULL, 0, comm), MPI_ERR_OP, NULL);
    f += expect_error("ftc_reduce with an op not defined on the type",
                      ftc_reduce(send, recv, 2, MPI_FLOAT, MPI_BAND, 0, comm), MPI_ERR_OP,
                      "datatype");
    MPI_Op op;
    MPI_Op_create(not_commutative, 0, &op);
    f += expect_error("ftc_reduce with a non-commutative op",
                      ftc_reduce(send, recv, 2, MPI_INT, op, 0, comm), MPI_ERR_OP,
                      "commutative");
    MPI_Op_free(&op);
    f += expect_error("ftc_reduce from a NULL buffer",
                      ftc_reduce(NULL, recv, 2, MPI_INT, MPI_SUM, 0, comm), MPI_ERR_BUFFER,
                      "sendbuf");
    if (p > 1)   /* each rank names another as root: none of them is */
        f += expect_error("ftc_reduce, MPI_IN_PLACE off the root",
                          ftc_reduce(MPI_IN_PLACE, recv, 2, MPI_INT, MPI_SUM, (rank + 1) % p,
                                     comm), MPI_ERR_BUFFER, "MPI_IN_PLACE");
    /* each rank names itself as root: the root's own checks, everywhere */
    f += expect_error("ftc_reduce into a NULL buffer at the root",
                      ftc_reduce(send, NULL, 2, MPI_INT, MPI_SUM, rank, comm), MPI_ERR_BUFFER,
                      "recvbuf");
    f += expect_error("ftc_reduce on a NULL ftc_comm_t",
                      ftc_reduce(send, recv, 2, MPI_INT, MPI_SUM, 0, NULL), MPI_ERR_COMM, NULL);
    /* and a good call still works after them all, NULL recvbuf off the root */
    for (int i = 0; i < 2; i++)
        send[i] = rank * 10 + i;
    f += expect_success("ftc_reduce after the errors",
                        ftc_reduce(send, rank == p - 1 ? recv : NULL, 2, MPI_INT, MPI_SUM, p - 1,
                                   comm));
    for (int i = 0; i < 2 && rank == p - 1; i++)
        f += expect_true("ftc_reduce's result", recv[i] == 10 * p * (p - 1) / 2 + p * i);
    return f;
}

static int check_alltoall_arguments(ftc_comm_t comm, int rank, int p)
{
    enum { MAX = 64 };
    int send[2 * MAX] = { 0 }, recv[3 * MAX] = { 0 }, counts[MAX], displs[MAX], big[MAX];
    for (int r = 0; r < p; r++) {
        counts[r] = 2;
        big[r] = 3;
        displs[r] = 2 * (p - 1 - r);   /* reversed */
    }
    int f = expect_error("ftc_alltoall with a negative sendcount",
                         ftc_alltoall(send, -1, MPI_INT, recv, 2, MPI_INT, comm), MPI_ERR_COUNT,
                         "sendcount");
    f += expect_error("ftc_alltoall into a NULL buffer",
                      ftc_alltoall(send, 2, MPI_INT, NULL, 2, MPI_INT, comm), MPI_ERR_BUFFER,
                      "recvbuf");
    f += expect_error("ftc_alltoall into MPI_IN_PLACE",
                      ftc_alltoall(send, 2, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, comm),
                      MPI_ERR_BUFFER, "MPI_IN_PLACE");
    f += expect_error("ftc_alltoall with a NULL type",
                      ftc_alltoall(send, 2, MPI_DATATYPE_NULL, recv, 2, MPI_INT, comm),
                      MPI_ERR_TYPE, NULL);
    f += expect_error("ftc_alltoall, send and receive blocks differ",
                      ftc_alltoall(send, 2, MPI_INT, recv, 3, MPI_INT, comm), MPI_ERR_ARG,
                      "differs");
    f += expect_error("ftc_alltoall on a NULL ftc_comm_t",
                      ftc_alltoall(send, 2, MPI_INT, recv, 2, MPI_INT, NULL), MPI_ERR_COMM, NULL);
    f += expect_error("ftc_alltoallv with NULL sendcounts",
                      ftc_alltoallv(send, NULL, displs, MPI_INT, recv, counts, displs, MPI_INT,
                                    comm), MPI_ERR_ARG, "sendcounts");
    f += expect_error("ftc_alltoallv with NULL rdispls",
                      ftc_alltoallv(send, counts, displs, MPI_INT, recv, counts, NULL, MPI_INT,
                                    comm), MPI_ERR_ARG, "rdispls");
    counts[p - 1] = -1;
    f += expect_error("ftc_alltoallv with a negative recvcounts entry",
                      ftc_alltoallv(send, big, displs, MPI_INT, recv, counts, displs, MPI_INT,
                                    comm), MPI_ERR_COUNT, "recvcounts");
    counts[p - 1] = 2;
    f += expect_error("ftc_alltoallv, its own block differs",
                      ftc_alltoallv(send, big, displs, MPI_INT, recv, counts, displs, MPI_INT,
                                    comm), MPI_ERR_ARG, "own block");
    f += expect_error("ftc_alltoallv on a NULL ftc_comm_t",
                      ftc_alltoallv(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT,
                                    NULL), MPI_ERR_COMM, NULL);
    if (p > 1) {   /* rank 1 takes 3 ints from rank 0, which sends 2: its error alone */
        int takes[MAX], at[MAX];
        for (int r = 0; r < p; r++) {
            takes[r] = rank == 1 && r == 0 ? 3 : 2;
            at[r] = 3 * r;
        }
        const int rc = ftc_alltoallv(send, counts, displs, MPI_INT, recv, takes, at, MPI_INT,
                                     comm);
        f += rank == 1 ? expect_error("ftc_alltoallv, a block of the wrong size", rc,
                                      MPI_ERR_TRUNCATE, "rank 0's block")
                       : expect_success("ftc_alltoallv beside a block of the wrong size", rc);
    }
    /* and a good call still works after them all */
    for (int r = 0; r < p; r++)
        for (int i = 0; i < 2; i++)
            send[2 * r + i] = (rank * 100 + r) * 10 + i;
    f += expect_success("ftc_alltoall after the errors",
                        ftc_alltoall(send, 2, MPI_INT, recv, 2, MPI_INT, comm));
    for (int r = 0; r < p; r++)
        for (int i = 0; i < 2; i++)
            f += expect_true("ftc_alltoall's result", recv[2 * r + i] == (r * 100 + rank) * 10 + i);
    return f;
}

/* Ranks that disagree on recvcount (rank 1 passes one more) under
 * recursive halving, forced on a fresh communicator: no rank waits for
 * ever, rank 1 and any rank that got a message of the wrong size return
 * MPI_ERR_TRUNCATE, the others succeed; a good call follows. */
static int check_reduce_scatter_count_mismatch(int rank, int p)
{
    enum { MAX = 64 };
    if (p < 2 || p > MAX)
        return 0;
    ftc_comm_t fresh;
    setenv("FTCOLL_REDUCE_SCATTER_ALGORITHM", "recursive_halving", 1);
    const int created = ftc_comm_create(MPI_COMM_WORLD, &fresh);
    unsetenv("FTCOLL_REDUCE_SCATTER_ALGORITHM");
    if (created != MPI_SUCCESS)
        return failed("ftc_comm_create", ftc_error_message());
    int send[3 * MAX], recv[3];
    for (int i = 0; i < 3 * p; i++)
        send[i] = rank + i;
    const int rc = ftc_reduce_scatter_block(send, recv, rank == 1 ? 3 : 2, MPI_INT, MPI_SUM,
                                            fresh);
    int f = rank == 1 ? expect_error("ftc_reduce_scatter_block: rank 1's recvcount differs", rc,
                                     MPI_ERR_TRUNCATE, NULL)
                      : expect_true("ftc_reduce_scatter_block with a recvcount that differs: "
                                    "MPI_SUCCESS or MPI_ERR_TRUNCATE",
                                    rc == MPI_SUCCESS || class_of(rc) == MPI_ERR_TRUNCATE);
    f += expect_success("ftc_reduce_scatter_block after the mismatch",
                        ftc_reduce_scatter_block(send, recv, 2, MPI_INT, MPI_SUM, fresh));
    for (int i = 0; i < 2; i++)
        f += expect_true("ftc_reduce_scatter_block's result after the mismatch",
                         recv[i] == p * (p - 1) / 2 + p * (2 * rank + i));
    f += expect_success("ftc_comm_free", ftc_comm_free(&fresh));
    return f;
}

static int check_reduce_scatter_arguments(ftc_comm_t comm, int rank, int p)
{
    enum { MAX = 64 };
    int send[2 * MAX] = { 0 }, recv[2 * MAX] = { 0 }, counts[MAX];
    for (int r = 0; r < p; r++)
        counts[r] = 2;
    int f = expect_error("ftc_reduce_scatter_block with a negative recvcount",
                         ftc_reduce_scatter_block(send, recv, -1, MPI_INT, MPI_SUM, comm),
                         MPI_ERR_COUNT, "recvcount");
    f += expect_error("ftc_reduce_scatter_block from a NULL buffer",
                      ftc_reduce_scatter_block(NULL, recv, 2, MPI_INT, MPI_SUM, comm),
                      MPI_ERR_BUFFER, "sendbuf");
    f += expect_error("ftc_reduce_scatter_block into a NULL buffer",
                      ftc_reduce_scatter_block(send, NULL, 2, MPI_INT, MPI_SUM, comm),
                      MPI_ERR_BUFFER, "recvbuf");
    f += expect_error("ftc_reduce_scatter_block with MPI_OP_NULL",
                      ftc_reduce_scatter_block(send, recv, 2, MPI_INT, MPI_OP_NULL, comm),
                      MPI_ERR_OP, NULL);
    f += expect_error("ftc_reduce_scatter_block of a NULL type",
                      ftc_reduce_scatter_block(send, recv, 2, MPI_DATATYPE_NULL, MPI_SUM, comm),
                      MPI_ERR_TYPE, NULL);
    f += expect_error("ftc_reduce_scatter_block on a NULL ftc_comm_t",
                      ftc_reduce_scatter_block(send, recv, 2, MPI_INT, MPI_SUM, NULL),
                      MPI_ERR_COMM, NULL);
    f += expect_error("ftc_reduce_scatter with NULL recvcounts",
                      ftc_reduce_scatter(send, recv, NULL, MPI_INT, MPI_SUM, comm), MPI_ERR_ARG,
                      "recvcounts");
    counts[p - 1] = -3;
    f += expect_error("ftc_reduce_scatter with a negative recvcounts entry",
                      ftc_reduce_scatter(send, recv, counts, MPI_INT, MPI_SUM, comm),
                      MPI_ERR_COUNT, "recvcounts");
    counts[p - 1] = 2;
    f += expect_error("ftc_reduce_scatter with an op not defined on the type",
                      ftc_reduce_scatter(send, recv, counts, MPI_FLOAT, MPI_BAND, comm),
                      MPI_ERR_OP, "datatype");
    /* and a good call still works after them all */
    for (int i = 0; i < 2 * p; i++)
        send[i] = rank + i;
    f += expect_success("ftc_reduce_scatter_block after the errors",
                        ftc_reduce_scatter_block(send, recv, 2, MPI_INT, MPI_SUM, comm));
    for (int i = 0; i < 2; i++)
        f += expect_true("ftc_reduce_scatter_block's result",
                         recv[i] == p * (p - 1) / 2 + p * (2 * rank + i));
    return f + check_reduce_scatter_count_mismatch(rank, p);
}

/* A user's op that is not commutative: the left operand wins. */
static void first_wins(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    memcpy(inout, in, sizeof(int) * (size_t)*len);
}

/* Ranks that disagree on count (rank 1 passes one more) in the scan's
 * chain: rank 0 completes, and every rank after it returns
 * MPI_ERR_TRUNCATE instead of waiting; a good call follows. On a fresh
 * communicator, whose first call runs the chain. */
static int check_scan_count_mismatch(int rank, int p)
{
    if (p < 2)
        return 0;
    ftc_comm_t fresh;
    if (ftc_comm_create(MPI_COMM_WORLD, &fresh) != MPI_SUCCESS)
        return failed("ftc_comm_create", ftc_error_message());
    int send[3] = { rank, rank, rank }, recv[3] = { -1, -1, -1 };
    const int rc = ftc_scan(send, recv, rank == 1 ? 3 : 2, MPI_INT, MPI_SUM, fresh);
    int f = rank == 0 ? expect_success("ftc_scan: rank 0 before a count that differs", rc)
                      : expect_error("ftc_scan: rank 1's count differs", rc, MPI_ERR_TRUNCATE,
                                     NULL);
    f += expect_success("ftc_scan after the mismatch",
                        ftc_scan(send, recv, 2, MPI_INT, MPI_SUM, fresh));
    f += expect_true("ftc_scan's result after the mismatch",
                     recv[0] == rank * (rank + 1) / 2 && recv[1] == rank * (rank + 1) / 2);
    f += expect_success("ftc_comm_free", ftc_comm_free(&fresh));
    return f;
}

static int check_scan_arguments(ftc_comm_t comm, int rank, int p)
{
    int send[2] = { rank, 2 * rank }, recv[2] = { 0, 0 };
    int f = expect_error("ftc_scan with a negative count",
                         ftc_scan(send, recv, -1, MPI_INT, MPI_SUM, comm), MPI_ERR_COUNT,
                         "count");
    f += expect_error("ftc_exscan from a NULL buffer",
                      ftc_exscan(NULL, recv, 2, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER,
                      "sendbuf");
    f += expect_error("ftc_scan into a NULL buffer",
                      ftc_scan(send, NULL, 2, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER,
                      "recvbuf");
    f += expect_error("ftc_scan with MPI_OP_NULL",
                      ftc_scan(send, recv, 2, MPI_INT, MPI_OP_NULL, comm), MPI_ERR_OP, NULL);
    f += expect_error("ftc_exscan of a NULL type",
                      ftc_exscan(send, recv, 2, MPI_DATATYPE_NULL, MPI_SUM, comm), MPI_ERR_TYPE,
                      NULL);
    f += expect_error("ftc_scan on a NULL ftc_comm_t",
                      ftc_scan(send, recv, 2, MPI_INT, MPI_SUM, NULL), MPI_ERR_COMM, NULL);
    f += expect_error("ftc_exscan with an op not defined on the type",
                      ftc_exscan(send, recv, 2, MPI_FLOAT, MPI_BAND, comm), MPI_ERR_OP,
                      "datatype");
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    f += expect_error("ftc_scan of a derived type",
                      ftc_scan(send, recv, 1, pair, MPI_SUM, comm), MPI_ERR_TYPE, "predefined");
    MPI_Type_free(&pair);
    /* a good call still works after them all, with an op that is not
     * commutative, which an allreduce refuses */
    MPI_Op first;
    MPI_Op_create(first_wins, 0, &first);
    f += expect_success("ftc_scan with an op that is not commutative",
                        ftc_scan(send, recv, 2, MPI_INT, first, comm));
    f += expect_true("ftc_scan's result: rank 0's input", recv[0] == 0 && recv[1] == 0);
    f += expect_error("ftc_allreduce with the same op",
                      ftc_allreduce(send, recv, 2, MPI_INT, first, comm), MPI_ERR_OP,
                      "commutative");
    MPI_Op_free(&first);
    recv[0] = recv[1] = -1;
    f += expect_success("ftc_exscan after the errors",
                        ftc_exscan(send, recv, 2, MPI_INT, MPI_SUM, comm));
    f += expect_true("ftc_exscan's result", rank == 0 ? recv[0] == -1 && recv[1] == -1
                                                      : recv[0] == rank * (rank - 1) / 2
                                                            && recv[1] == rank * (rank - 1));
    return f + check_scan_count_mismatch(rank, p);
}

static int check_gatherv_arguments(ftc_comm_t comm, int rank, int p)
{
    int send[4] = { 0 }, recv[4 * 64], counts[64], displs[64];
    for (int r = 0; r < p; r++) {
        counts[r] = 2;
        displs[r] = 2 * (p - 1 - r);   /* reversed */
    }
    int f = expect_error("ftc_gatherv to root p",
                         ftc_gatherv(send, 2, MPI_INT, recv, counts, displs, MPI_INT, p, comm),
                         MPI_ERR_ROOT, "root");
    f += expect_error("ftc_gatherv with a negative sendcount",
                      ftc_gatherv(send, -1, MPI_INT, recv, counts, displs, MPI_INT, 0, comm),
                      MPI_ERR_COUNT, "sendcount");
    f += expect_error("ftc_gatherv with a NULL send type",
                      ftc_gatherv(send, 2, MPI_DATATYPE_NULL, recv, counts, displs, MPI_INT, 0,
                                  comm), MPI_ERR_TYPE, NULL);
    f += expect_error("ftc_gatherv from a NULL buffer",
                      ftc_gatherv(NULL, 2, MPI_INT, recv, counts, displs, MPI_INT, 0, comm),
                      MPI_ERR_BUFFER, NULL);
    if (p > 1)   /* each rank names another as root: none of them is */
        f += expect_error("ftc_gatherv, MPI_IN_PLACE off the root",
                          ftc_gatherv(MPI_IN_PLACE, 2, MPI_INT, recv, counts, displs, MPI_INT,
                                      (rank + 1) % p, comm), MPI_ERR_BUFFER, "MPI_IN_PLACE");
    /* each rank names itself as root: the root's own checks, everywhere */
    f += expect_error("ftc_gatherv without recvcounts at the root",
                      ftc_gatherv(send, 2, MPI_INT, recv, NULL, displs, MPI_INT, rank, comm),
                      MPI_ERR_ARG, "recvcounts");
    f += expect_error("ftc_gatherv without displs at the root",
                      ftc_gatherv(send, 2, MPI_INT, recv, counts, NULL, MPI_INT, rank, comm),
                      MPI_ERR_ARG, "displs");
    counts[p - 1] = -1;
    f += expect_error("ftc_gatherv with a negative recvcounts entry",
                      ftc_gatherv(MPI_IN_PLACE, 2, MPI_INT, recv, counts, displs, MPI_INT, rank,
                                  comm), MPI_ERR_COUNT, "negative");
    counts[p - 1] = 2;
    f += expect_error("ftc_gatherv, the root's send bytes unlike its recvcounts entry",
                      ftc_gatherv(send, 3, MPI_INT, recv, counts, displs, MPI_INT, rank, comm),
                      MPI_ERR_ARG, "recvcounts");
    f += expect_error("ftc_gatherv into a NULL buffer at the root",
                      ftc_gatherv(send, 2, MPI_INT, NULL, counts, displs, MPI_INT, rank, comm),
                      MPI_ERR_BUFFER, NULL);
    f += expect_error("ftc_gatherv with a NULL receive type at the root",
                      ftc_gatherv(send, 2, MPI_INT, recv, counts, displs, MPI_DATATYPE_NULL,
                                  rank, comm), MPI_ERR_TYPE, NULL);
    counts[0] = 1 << 30;   /* 4 GiB of ints */
    f += expect_error("ftc_gatherv with a block of 2 GiB or more",
                      ftc_gatherv(MPI_IN_PLACE, 2, MPI_INT, recv, counts, displs, MPI_INT, rank,
                                  comm), MPI_ERR_COUNT, "block");
    counts[0] = 2;
    f += expect_error("ftc_gatherv on a NULL ftc_comm_t",
                      ftc_gatherv(send, 2, MPI_INT, recv, counts, displs, MPI_INT, 0, NULL),
                      MPI_ERR_COMM, NULL);
    /* a rank sending more, then fewer, bytes than the root takes: an error
     * at the root alone, as in MPI; every other rank returns. A block over
     * 16 KiB waits for the root's word, which still comes, also where the
     * root expected a block under 16 KiB (4000 ints against 4200) */
    enum { BIG = 5000 };
    static const int cases[][2] = { { BIG, BIG + 1 }, { BIG, BIG - 1 }, { 4000, 4200 },
                                    { 4200, 4000 } };   /* the root's count, rank 0's */
    int *big = calloc((size_t)BIG * (size_t)p + 1, sizeof(int)), bigs[64], big_displs[64];
    for (int c = 0; p > 1 && big && c < (int)(sizeof(cases) / sizeof(cases[0])); c++) {
        for (int r = 0; r < p; r++) {
            bigs[r] = r == 0 ? cases[c][0] : BIG;
            big_displs[r] = BIG * r;
        }
        const int mine = rank == 0 ? cases[c][1] : BIG;
        const int rc = ftc_gatherv(big, rank == p - 1 ? BIG : mine, MPI_INT, big, bigs,
                                   big_displs, MPI_INT, p - 1, comm);
        f += rank == p - 1 ? expect_error(cases[c][1] > cases[c][0]
                                              ? "ftc_gatherv, a block too long"
                                              : "ftc_gatherv, a block too short",
                                          rc, MPI_ERR_TRUNCATE, "rank 0's block")
                           : expect_success("ftc_gatherv beside a wrong block", rc);
    }
    free(big);
    /* and a good call still works after them all, no stale block matched;
     * the others pass no receive arguments, which MPI reads at the root only */
    for (int i = 0; i < 2; i++)
        send[i] = rank * 10 + i;
    const bool root = rank == p - 1;
    f += expect_success("ftc_gatherv after the errors",
                        ftc_gatherv(send, 2, MPI_INT, root ? recv : NULL, root ? counts : NULL,
                                    root ? displs : NULL, root ? MPI_INT : MPI_DATATYPE_NULL,
                                    p - 1, comm));
    for (int r = 0; r < p && root; r++)
        for (int i = 0; i < 2; i++)
            f += expect_true("ftc_gatherv's blocks", recv[displs[r] + i] == r * 10 + i);
    return f;
}

static int check_scatterv_arguments(ftc_comm_t comm, int rank, int p)
{
    int send[2 * 64] = { 0 }, recv[4] = { 0 }, counts[64], displs[64];
    for (int r = 0; r < p; r++) {
        counts[r] = 2;
        displs[r] = 2 * (p - 1 - r);   /* reversed */
    }
    int f = expect_error("ftc_scatterv from root p",
                         ftc_scatterv(send, counts, displs, MPI_INT, recv, 2, MPI_INT, p, comm),
                         MPI_ERR_ROOT, "root");
    f += expect_error("ftc_scatterv with a negative recvcount",
                      ftc_scatterv(send, counts, displs, MPI_INT, recv, -1, MPI_INT, 0, comm),
                      MPI_ERR_COUNT, "recvcount");
    f += expect_error("ftc_scatterv with a NULL receive type",
                      ftc_scatterv(send, counts, displs, MPI_INT, recv, 2, MPI_DATATYPE_NULL, 0,
                                   comm), MPI_ERR_TYPE, NULL);
    f += expect_error("ftc_scatterv into a NULL buffer",
                      ftc_scatterv(send, counts, displs, MPI_INT, NULL, 2, MPI_INT, 0, comm),
                      MPI_ERR_BUFFER, NULL);
    if (p > 1)   /* each rank names another as root: none of them is */
        f += expect_error("ftc_scatterv, MPI_IN_PLACE off the root",
                          ftc_scatterv(send, counts, displs, MPI_INT, MPI_IN_PLACE, 2, MPI_INT,
                                       (rank + 1) % p, comm), MPI_ERR_BUFFER, "MPI_IN_PLACE");
    /* each rank names itself as root: the root's own checks, everywhere */
    f += expect_error("ftc_scatterv without sendcounts at the root",
                      ftc_scatterv(send, NULL, displs, MPI_INT, recv, 2, MPI_INT, rank, comm),
                      MPI_ERR_ARG, "sendcounts");
    f += expect_error("ftc_scatterv without displs at the root",
                      ftc_scatterv(send, counts, NULL, MPI_INT, recv, 2, MPI_INT, rank, comm),
                      MPI_ERR_ARG, "displs");
    counts[p - 1] = -1;
    f += expect_error("ftc_scatterv with a negative sendcounts entry",
                      ftc_scatterv(send, counts, displs, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, rank,
                                   comm), MPI_ERR_COUNT, "negative");
    counts[p - 1] = 2;
    f += expect_error("ftc_scatterv, the root's sendcounts entry unlike its recvcount",
                      ftc_scatterv(send, counts, displs, MPI_INT, recv, 3, MPI_INT, rank, comm),
                      MPI_ERR_ARG, "recvcount");
    f += expect_error("ftc_scatterv from MPI_IN_PLACE at the root",
                      ftc_scatterv(MPI_IN_PLACE, counts, displs, MPI_INT, recv, 2, MPI_INT, rank,
                                   comm), MPI_ERR_BUFFER, "MPI_IN_PLACE");
    f += expect_error("ftc_scatterv from a NULL buffer at the root",
                      ftc_scatterv(NULL, counts, displs, MPI_INT, recv, 2, MPI_INT, rank, comm),
                      MPI_ERR_BUFFER, NULL);
    f += expect_error("ftc_scatterv with a NULL send type at the root",
                      ftc_scatterv(send, counts, displs, MPI_DATATYPE_NULL, recv, 2, MPI_INT,
                                   rank, comm), MPI_ERR_TYPE, NULL);
    counts[0] = 1 << 30;   /* 4 GiB of ints */
    f += expect_error("ftc_scatterv with a block of 2 GiB or more",
                      ftc_scatterv(send, counts, displs, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, rank,
                                   comm), MPI_ERR_COUNT, "block");
    counts[0] = 2;
    f += expect_error("ftc_scatterv on a NULL ftc_comm_t",
                      ftc_scatterv(send, counts, displs, MPI_INT, recv, 2, MPI_INT, 0, NULL),
                      MPI_ERR_COMM, NULL);
    /* the root sending rank 0 more, then fewer, bytes than it takes: an
     * error at rank 0 alone, as in MPI; every other rank returns. A block
     * above its share of 16 KiB is acknowledged, which rank 0 still does
     * where only the root's size says so (`share` ints on either side) */
    const int share = p > 2 ? 16384 / (p - 1) / (int)sizeof(int) : 1000;
    const int cases[][2] = { { 5000, 4999 }, { 5000, 5001 }, { share - 50, share + 50 },
                             { share + 50, share - 50 } };   /* the root's count, rank 0's */
    int *big = calloc((size_t)5001 * (size_t)p + 1, sizeof(int)), bigs[64], big_displs[64];
    for (int c = 0; p > 1 && big && c < (int)(sizeof(cases) / sizeof(cases[0])); c++) {
        for (int r = 0; r < p; r++) {
            bigs[r] = r == 0 ? cases[c][0] : 5000;
            big_displs[r] = 5001 * r;
        }
        const int mine = rank == 0 ? cases[c][1] : 5000;
        int *into = rank == p - 1 ? big + 5001 * rank : calloc((size_t)5001, sizeof(int));
        const int rc = ftc_scatterv(big, bigs, big_displs, MPI_INT, rank == p - 1 ? MPI_IN_PLACE
                                                                               : into,
                                    mine, MPI_INT, p - 1, comm);
        f += rank == 0 ? expect_error(cases[c][0] > cases[c][1]
                                          ? "ftc_scatterv, a block too long"
                                          : "ftc_scatterv, a block too short",
                                      rc, MPI_ERR_TRUNCATE, "rank 0")
                       : expect_success("ftc_scatterv beside a wrong block", rc);
        if (rank != p - 1)
            free(into);
    }
    free(big);
    /* and a good call still works after them all, no stale block matched;
     * the others pass no send arguments, which MPI reads at the root only */
    const bool root = rank == p - 1;
    for (int r = 0; r < p; r++)
        for (int i = 0; i < 2; i++)
            send[displs[r] + i] = r * 10 + i;
    recv[0] = recv[1] = -1;
    f += expect_success("ftc_scatterv after the errors",
                        ftc_scatterv(root ? send : NULL, root ? counts : NULL,
                                     root ? displs : NULL, root ? MPI_INT : MPI_DATATYPE_NULL,
                                     recv, 2, MPI_INT, p - 1, comm));
    for (int i = 0; i < 2; i++)
        f += expect_true("ftc_scatterv's block", recv[i] == rank * 10 + i);
    return f;
}

/* Down the binomial tree from root p - 1, rank 1 (vrank 2) passes its
 * block on to rank 2 (vrank 3). Rank 1 taking more, then fewer, ints than
 * the root sends: MPI_ERR_TRUNCATE at rank 1 and at rank 2, whose block
 * it cannot pass on, and MPI_SUCCESS with their blocks everywhere else. */
static int check_scatter_wrong_block(ftc_comm_t comm, int rank, int p)
{
    if (p < 4)
        return 0;
    int f = expect_success("ftc_scatter_set_algorithm(binomial)",
                           ftc_scatter_set_algorithm(comm, FTC_SCATTER_BINOMIAL));
    int send[2 * 64], recv[4];
    for (int i = 0; i < 2 * p; i++)
        send[i] = 100 + i;
    for (int wrong = 1; wrong <= 3; wrong += 2) {
        recv[0] = recv[1] = -1;
        const int rc = ftc_scatter(send, 2, MPI_INT, recv, rank == 1 ? wrong : 2, MPI_INT, p - 1,
                                   comm);
        if (rank == 1)
            f += expect_error("ftc_scatter (binomial), a block of another size", rc,
                              MPI_ERR_TRUNCATE, "rank 1");
        else if (rank == 2)
            f += expect_error("ftc_scatter (binomial), below a block of another size", rc,
                              MPI_ERR_TRUNCATE, "binomial tree");
        else
            f += expect_success("ftc_scatter (binomial) beside a wrong block", rc)
                 + expect_true("ftc_scatter (binomial)'s block",
                               recv[0] == 100 + 2 * rank && recv[1] == 101 + 2 * rank);
    }
    return f + expect_success("ftc_scatter_set_algorithm(auto)",
                              ftc_scatter_set_algorithm(comm, FTC_SCATTER_AUTO));
}

static int check_scatter_arguments(ftc_comm_t comm, int rank, int p)
{
    int send[2 * 64] = { 0 }, recv[4] = { 0 };
    int f = expect_error("ftc_scatter from root p",
                         ftc_scatter(send, 2, MPI_INT, recv, 2, MPI_INT, p, comm), MPI_ERR_ROOT,
                         "root");
    f += expect_error("ftc_scatter with a negative recvcount",
                      ftc_scatter(send, 2, MPI_INT, recv, -1, MPI_INT, 0, comm), MPI_ERR_COUNT,
                      "recvcount");
    f += expect_error("ftc_scatter into a NULL buffer",
                      ftc_scatter(send, 2, MPI_INT, NULL, 2, MPI_INT, 0, comm), MPI_ERR_BUFFER,
                      NULL);
    if (p > 1)
        f += expect_error("ftc_scatter, MPI_IN_PLACE off the root",
                          ftc_scatter(send, 2, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, (rank + 1) % p,
                                      comm), MPI_ERR_BUFFER, "MPI_IN_PLACE");
    /* each rank names itself as root: the root's own checks, everywhere */
    f += expect_error("ftc_scatter with a negative sendcount at the root",
                      ftc_scatter(send, -1, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, rank, comm),
                      MPI_ERR_COUNT, "sendcount");
    f += expect_error("ftc_scatter, the root's sendcount unlike its recvcount",
                      ftc_scatter(send, 2, MPI_INT, recv, 3, MPI_INT, rank, comm), MPI_ERR_ARG,
                      "recvcount");
    f += expect_error("ftc_scatter with a NULL send type at the root",
                      ftc_scatter(send, 2, MPI_DATATYPE_NULL, recv, 2, MPI_INT, rank, comm),
                      MPI_ERR_TYPE, NULL);
    f += expect_error("ftc_scatter from MPI_IN_PLACE at the root",
                      ftc_scatter(MPI_IN_PLACE, 2, MPI_INT, recv, 2, MPI_INT, rank, comm),
                      MPI_ERR_BUFFER, "MPI_IN_PLACE");
    f += expect_error("ftc_scatter from a NULL buffer at the root",
                      ftc_scatter(NULL, 2, MPI_INT, recv, 2, MPI_INT, rank, comm),
                      MPI_ERR_BUFFER, NULL);
    f += expect_error("ftc_scatter on a NULL ftc_comm_t",
                      ftc_scatter(send, 2, MPI_INT, recv, 2, MPI_INT, 0, NULL), MPI_ERR_COMM,
                      NULL);
    ftc_scatter_algorithm alg;
    f += expect_error("ftc_scatter_algorithm_parse(\"ring\")",
                      ftc_scatter_algorithm_parse("ring", &alg), MPI_ERR_ARG, "binomial (2)");
    f += expect_error("ftc_scatter_set_algorithm(3)",
                      ftc_scatter_set_algorithm(comm, (ftc_scatter_algorithm)3), MPI_ERR_ARG,
                      NULL);
    f += expect_error("ftc_scatter_set_algorithm on NULL",
                      ftc_scatter_set_algorithm(NULL, FTC_SCATTER_BINOMIAL), MPI_ERR_COMM, NULL);
    ftc_scatter_choice choice;
    f += expect_error("ftc_scatter_last_choice on NULL", ftc_scatter_last_choice(NULL, &choice),
                      MPI_ERR_COMM, NULL);
    f += check_scatter_wrong_block(comm, rank, p);
    /* and a good call after them; the others pass no send arguments */
    const bool root = rank == p - 1;
    for (int i = 0; i < 2 * p; i++)
        send[i] = i;
    recv[0] = recv[1] = -1;
    f += expect_success("ftc_scatter after the errors",
                        ftc_scatter(root ? send : NULL, 2, root ? MPI_INT : MPI_DATATYPE_NULL,
                                    recv, 2, MPI_INT, p - 1, comm));
    for (int i = 0; i < 2; i++)
        f += expect_true("ftc_scatter's block", recv[i] == 2 * rank + i);
    return f;
}

/* MPI_IN_PLACE is the send buffer of an in-place form, never a buffer a
 * call reads or writes: every rank passes it where MPI forbids it (each
 * its own root), so every rank returns the error. The exscan's rank 0
 * writes nothing, so its recvbuf may be anything there, as in MPI. */
static int check_in_place_where_forbidden(ftc_comm_t comm, int rank, int p)
{
    int send[4] = { 1, 2, 3, 4 }, counts[64], displs[64];
    for (int r = 0; r < p; r++) {
        counts[r] = 1;
        displs[r] = r;
    }
    void *const IP = MPI_IN_PLACE;
    int f = expect_error("ftc_allreduce into MPI_IN_PLACE",
                         ftc_allreduce(send, IP, 1, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER,
                         "MPI_IN_PLACE");
    f += expect_error("ftc_allreduce, MPI_IN_PLACE twice",
                      ftc_allreduce(IP, IP, 1, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER,
                      "MPI_IN_PLACE");
    f += expect_error("ftc_bcast of MPI_IN_PLACE", ftc_bcast(IP, 1, MPI_INT, 0, comm),
                      MPI_ERR_BUFFER, "MPI_IN_PLACE");
    f += expect_error("ftc_allgather into MPI_IN_PLACE",
                      ftc_allgather(send, 1, MPI_INT, IP, 1, MPI_INT, comm), MPI_ERR_BUFFER,
                      "MPI_IN_PLACE");
    f += expect_error("ftc_allgatherv into MPI_IN_PLACE",
                      ftc_allgatherv(send, 1, MPI_INT, IP, counts, displs, MPI_INT, comm),
                      MPI_ERR_BUFFER, "MPI_IN_PLACE");
    f += expect_error("ftc_gather into MPI_IN_PLACE at the root",
                      ftc_gather(send, 1, MPI_INT, IP, 1, MPI_INT, rank, comm), MPI_ERR_BUFFER,
                      "MPI_IN_PLACE");
    f += expect_error("ftc_gatherv into MPI_IN_PLACE at the root",
                      ftc_gatherv(send, 1, MPI_INT, IP, counts, displs, MPI_INT, rank, comm),
                      MPI_ERR_BUFFER, "MPI_IN_PLACE");
    f += expect_error("ftc_reduce into MPI_IN_PLACE at the root",
                      ftc_reduce(send, IP, 1, MPI_INT, MPI_SUM, rank, comm), MPI_ERR_BUFFER,
                      "MPI_IN_PLACE");
    f += expect_error("ftc_reduce, MPI_IN_PLACE twice at the root",
                      ftc_reduce(IP, IP, 1, MPI_INT, MPI_SUM, rank, comm), MPI_ERR_BUFFER,
                      "MPI_IN_PLACE");
    f += expect_error("ftc_scan into MPI_IN_PLACE",
                      ftc_scan(send, IP, 1, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER,
                      "MPI_IN_PLACE");
    f += expect_error("ftc_exscan, MPI_IN_PLACE twice",
                      ftc_exscan(IP, IP, 1, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER,
                      "MPI_IN_PLACE");
    f += expect_error("ftc_reduce_scatter_block into MPI_IN_PLACE",
                      ftc_reduce_scatter_block(send, IP, 1, MPI_INT, MPI_SUM, comm),
                      MPI_ERR_BUFFER, "MPI_IN_PLACE");
    f += expect_error("ftc_reduce_scatter into MPI_IN_PLACE",
                      ftc_reduce_scatter(send, IP, counts, MPI_INT, MPI_SUM, comm),
                      MPI_ERR_BUFFER, "MPI_IN_PLACE");
    int before = -1;
    f += expect_success("ftc_exscan into MPI_IN_PLACE at rank 0",
                        ftc_exscan(&rank, rank == 0 ? IP : &before, 1, MPI_INT, MPI_SUM, comm));
    if (rank > 0 && before != rank * (rank - 1) / 2)
        f += failed("ftc_exscan after rank 0 passed MPI_IN_PLACE as its recvbuf",
                    "a wrong prefix");
    return f;
}

/* An argument only the root checks, wrong at the root alone: as with MPI,
 * the root returns the error and the others complete the gather. The
 * calls after it are every rank's again and must be exact: the root's
 * call still took its number, so it does not receive, in its next calls,
 * the blocks the others sent for the one it left. A communicator of its
 * own: the gather is its first call, which never waits for tokens. Fewer
 * calls than FTCOLL_TAG_WINDOW follow: after that many the gather's tag
 * comes round again (ft.h, ftc_ft_skip_call). */
static int check_error_at_the_root_alone(int rank, int p)
{
    ftc_comm_t comm = NULL;
    int f = expect_success("ftc_comm_create", ftc_comm_create(MPI_COMM_WORLD, &comm));
    if (f)
        return f;
    int mine = 1000 + rank, blocks[64];
    const int rc = ftc_gather(&mine, 1, MPI_INT, blocks, 1,
                              rank == 0 ? MPI_DATATYPE_NULL : MPI_INT, 0, comm);
    f += rank == 0 ? expect_error("ftc_gather, recvtype MPI_DATATYPE_NULL at the root alone",
                                  rc, MPI_ERR_TYPE, "recvtype")
                   : expect_success("ftc_gather past a root that rejected its recvtype", rc);
    int wrong = 0;   /* every rank makes every call, whatever it found */
    for (int call = 0; call < 100; call++) {
        long value = rank + call, sum = -1;
        const int status = ftc_allreduce(&value, &sum, 1, MPI_LONG, MPI_SUM, comm);
        const long expected = (long)p * (p - 1) / 2 + (long)p * call;
        if ((status != MPI_SUCCESS || sum != expected) && wrong++ == 0) {
            char detail[160];
            snprintf(detail, sizeof(detail), "call %d returned %s, sum %ld, expected %ld", call,
                     class_name(class_of(status)), sum, expected);
            f += failed("ftc_allreduce after an error at the root alone", detail);
        }
    }
    f += expect_success("ftc_comm_free", ftc_comm_free(&comm));
    return f;
}

/* 60 broadcasts from rank 0 and 60 sums, each checked (a broadcast's word
 * only where `words_in_step`); the first wrong one is reported, and every
 * rank makes every call, whatever it found. */
static int check_calls_in_step(ftc_comm_t comm, int rank, int p, bool words_in_step,
                               const char *after)
{
    int f = 0;
    for (int call = 0; call < 60; call++) {
        int word = rank == 0 ? 10 * call : -1;
        const int bcast_rc = ftc_bcast(&word, 1, MPI_INT, 0, comm);
        long value = rank + call, sum = -1;
        const int sum_rc = ftc_allreduce(&value, &sum, 1, MPI_LONG, MPI_SUM, comm);
        const long expected = (long)p * (p - 1) / 2 + (long)p * call;
        if (bcast_rc == MPI_SUCCESS && (word == 10 * call || !words_in_step)
            && sum_rc == MPI_SUCCESS && sum == expected)
            continue;
        if (f++ == 0) {
            char detail[200];
            snprintf(detail, sizeof(detail), "call %d: ftc_bcast %s, word %d (expected %d); "
                     "ftc_allreduce %s, sum %ld (expected %ld)", call,
                     class_name(class_of(bcast_rc)), word, 10 * call,
                     class_name(class_of(sum_rc)), sum, expected);
            failed(after, detail);
        }
    }
    return f ? 1 : 0;
}

/*
 * A broadcast that its last rank alone leaves at its own checks (a
 * negative count there) while the others run it: that rank is a leaf of
 * the tree, so the others complete it. Its next calls are numbered and
 * counted as the others': over MPI's broadcast too, and over a network
 * tree (`algorithm`) that measures the latencies again on every third
 * call. Without ULFM a broadcast's messages carry no call number (they are
 * MPI's, or the tree's fixed tags), so, as with MPI's own broadcast, that
 * rank's next broadcast receives the word of the one it left: there only
 * the sums are checked.
 */
static int check_error_at_a_leaf_alone(int rank, int p, const char *algorithm)
{
#ifdef FTCOLL_HAVE_ULFM
    const bool words_in_step = true;
#else
    const bool words_in_step = false;
#endif
    ftc_comm_t comm = NULL;
    int f = expect_success("ftc_comm_create", ftc_comm_create(MPI_COMM_WORLD, &comm));
    if (f)
        return f;
    if (algorithm)
        f += expect_success("ftc_bcast_configure",
                            ftc_bcast_configure(comm, algorithm, "check=3", ""));
    const bool alone = rank == p - 1;
    int word = rank == 0 ? 7 : -1;
    const int rc = ftc_bcast(&word, alone ? -1 : 1, MPI_INT, 0, comm);
    f += alone ? expect_error("ftc_bcast, a negative count at its last rank alone", rc,
                              MPI_ERR_COUNT, "count")
               : expect_success("ftc_bcast past a rank that rejected its count", rc);
    f += check_calls_in_step(comm, rank, p, words_in_step,
                             "calls after a broadcast one rank left");
    f += expect_success("ftc_comm_free", ftc_comm_free(&comm));
    return f;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p;
    MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (p > 64) {
        fprintf(stderr, "test_errors: at most 64 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }

    int f = check_comm_create_rejects();
    f += check_comm_create_rejects_intercommunicator(my_rank, p);
    f += check_names_and_parsing();
    f += check_null_communicator();

    ftc_comm_t comm = NULL;
    if (ftc_comm_create(MPI_COMM_WORLD, &comm) != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: ftc_comm_create failed: %s\n", my_rank, ftc_error_message());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    f += check_private_communicator(comm);
    f += check_queries(comm, p);
    f += check_counts(comm);
    f += check_count_overflow(comm, p);
    f += check_buffers(comm);
    f += check_types(comm);
    f += check_local_size_mismatch(comm);
    f += check_in_place_ignores_send_arguments(comm, my_rank, p);
    f += check_set_algorithm(comm);
    f += check_uncommitted_type(comm);
    f += check_cross_rank_count_mismatch(comm, my_rank, p);
    f += check_allgatherv_arguments(comm, my_rank, p);
    f += check_gather_arguments(comm, my_rank, p);
    f += check_gatherv_arguments(comm, my_rank, p);
    f += check_scatterv_arguments(comm, my_rank, p);
    f += check_scatter_arguments(comm, my_rank, p);
    f += check_reduce_arguments(comm, my_rank, p);
    f += check_alltoall_arguments(comm, my_rank, p);
    f += check_reduce_scatter_arguments(comm, my_rank, p);
    f += check_scan_arguments(comm, my_rank, p);
    f += check_fault_tolerance_api(comm, p);
    f += check_in_place_where_forbidden(comm, my_rank, p);
    f += expect_success("ftc_comm_free", ftc_comm_free(&comm));
    f += expect_true("ftc_comm_free sets the handle to NULL", comm == NULL);
    f += check_error_at_the_root_alone(my_rank, p);
    if (p > 1)
        f += check_error_at_a_leaf_alone(my_rank, p, NULL);
    if (p == 2)   /* the tree's only leaf is known: the root's partner */
        f += check_error_at_a_leaf_alone(my_rank, p, "mst");

    int failures = 0;
    MPI_Allreduce(&f, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (my_rank == 0)
        printf("errors p=%d: %s (%d failed checks over all ranks)\n", p,
               failures ? "FAILED" : "all checks passed", failures);
    MPI_Finalize();
    return failures ? 1 : 0;
}
