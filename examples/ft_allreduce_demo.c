/*
 * ftcoll-demo: ftc_allreduce surviving real process deaths (ULFM Open MPI).
 *
 *   mpirun --with-ft ulfm -n 8 ftcoll-demo [CALLS]
 *
 * Every rank reduces a vector whose sums are exact (rank r contributes
 * (r + 1) x (element + call)), CALLS times. Unless FTCOLL_INJECT says
 * otherwise, two ranks die in call 2: rank 4 before it sends at the first
 * step (its contribution dies with it), rank 6 during the recovery, as a
 * master about to hand the result out (its contribution survives: the
 * other masters already combined it). The library's log (FTCOLL_VERBOSE=1)
 * shows each recovery round: masters and what they hold, the hand-out, S.
 * At the end the survivors compare notes and the lowest prints, per call:
 * S, who died, recovery rounds, whether every survivor's result was exact
 * for S, and times.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, _exit */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "ftcoll.h"

/* 512 doubles: 4 KiB, recursive doubling's size at p = 8 (larger vectors
 * run Rabenseifner's schedule, where a failure restarts every unfinished
 * rank from its input and no recovery round hands anything out) */
enum { COUNT = 512, MAX_CALLS = 32, MAX_RANKS = 64 };
static const char default_injection[] =
    "kill rank=4 call=2 step=0; kill rank=6 call=2 round=1 step=handout";

/* What one rank saw of one call; reduced over the survivors at the end. */
typedef struct {
    uint64_t in_result, failed;   /* bit r: rank r */
    int rounds, late, exact;
    double seconds, recovery_seconds;
} call_record;

static double input(int rank, int call, int element)
{
    return (double)(rank + 1) * (element + call);
}

static void fail(const char *what, int rank)
{
    fprintf(stderr, "ftcoll-demo: rank %d: %s: %s\n", rank, what, ftc_error_message());
    _exit(1);
}

static uint64_t mask_of(const int *flags, int p)
{
    uint64_t mask = 0;
    for (int r = 0; r < p; r++)
        mask |= (uint64_t)(flags[r] != 0) << r;
    return mask;
}

static call_record one_call(ftc_comm_t comm, int rank, int p, int call, double *v)
{
    for (int e = 0; e < COUNT; e++)
        v[e] = input(rank, call, e);
    const double start = MPI_Wtime();
    const int rc = ftc_allreduce(MPI_IN_PLACE, v, COUNT, MPI_DOUBLE, MPI_SUM, comm);
    call_record out = { .seconds = MPI_Wtime() - start };
    if (rc != MPI_SUCCESS)
        fail("ftc_allreduce", rank);
    ftc_allreduce_report report;
    int in_result[MAX_RANKS], failed[MAX_RANKS];
    if (ftc_allreduce_last_report(comm, &report, in_result, failed) != MPI_SUCCESS)
        fail("ftc_allreduce_last_report", rank);
    out.in_result = mask_of(in_result, p);
    out.failed = mask_of(failed, p);
    out.rounds = report.recovery_rounds;
    out.late = report.finished_late;
    out.recovery_seconds = report.recovery_seconds;
    out.exact = 1;
    for (int e = 0; e < COUNT; e++) {
        double expected = 0;
        for (int r = 0; r < p; r++)
            expected += in_result[r] ? input(r, call, e) : 0;
        out.exact &= v[e] == expected;
    }
    return out;
}

static void format_ranks(uint64_t mask, int p, char *out, size_t room)
{
    size_t used = 0;
    out[0] = '\0';
    for (int r = 0; r < p && used + 8 < room; r++)
        if (mask >> r & 1)
            used += (size_t)snprintf(out + used, room - used, used ? ",%d" : "%d", r);
    if (!used)
        snprintf(out, room, "-");
}

/* The survivors' view of every call, printed by the lowest of them. */
static int report_calls(const call_record *mine, int calls, int p, MPI_Comm survivors)
{
    int n, me, problems = 0;
    uint64_t known_dead = 0;   /* a death reaches some ranks in a later call: shown once */
    MPI_Comm_size(survivors, &n);
    MPI_Comm_rank(survivors, &me);
    if (me == 0)
        printf("\n%-5s %-22s %-9s %-7s %-12s %-10s  %s\n", "call", "S (ranks in the result)",
               "died", "rounds", "result", "time", "after detection");
    for (int c = 0; c < calls; c++) {
        uint64_t s_low, s_high, failed;
        int exact, rounds, late;
        double seconds, recovery;
        MPI_Allreduce(&mine[c].in_result, &s_low, 1, MPI_UINT64_T, MPI_MIN, survivors);
        MPI_Allreduce(&mine[c].in_result, &s_high, 1, MPI_UINT64_T, MPI_MAX, survivors);
        MPI_Allreduce(&mine[c].failed, &failed, 1, MPI_UINT64_T, MPI_BOR, survivors);
        MPI_Allreduce(&mine[c].exact, &exact, 1, MPI_INT, MPI_SUM, survivors);
        MPI_Allreduce(&mine[c].rounds, &rounds, 1, MPI_INT, MPI_MAX, survivors);
        MPI_Allreduce(&mine[c].late, &late, 1, MPI_INT, MPI_SUM, survivors);
        MPI_Allreduce(&mine[c].seconds, &seconds, 1, MPI_DOUBLE, MPI_MAX, survivors);
        MPI_Allreduce(&mine[c].recovery_seconds, &recovery, 1, MPI_DOUBLE, MPI_MAX, survivors);
        problems += (s_low != s_high) + (exact != n);
        if (me != 0)
            continue;
        char s[160], died[160], result[40], recovery_text[64] = "-";
        format_ranks(s_low, p, s, sizeof(s));
        format_ranks(failed & ~known_dead, p, died, sizeof(died));
        known_dead |= failed;
        snprintf(result, sizeof(result), "%s %d/%d", exact == n ? "exact" : "WRONG", exact, n);
        if (rounds)
            snprintf(recovery_text, sizeof(recovery_text), "%.2f ms%s", recovery * 1e3,
                     late ? " (a rank finished when the others next entered ftcoll)" : "");
        printf("%-5d %-22s %-9s %-7d %-12s %7.2f ms  %s\n", c + 1, s_low == s_high ? s : "DIFFERS",
               died, rounds, result, seconds * 1e3, recovery_text);
    }
    if (me == 0)
        printf("\n%d of %d ranks survived; %s\n", n, p,
               problems ? "SOME RESULTS WRONG OR S DIFFERENT BETWEEN SURVIVORS"
                        : "every call returned on every survivor the exact sum over its S, "
                          "and S was the same on every survivor");
    return problems;
}

int main(int argc, char **argv)
{
    if (!getenv("FTCOLL_VERBOSE"))
        setenv("FTCOLL_VERBOSE", "1", 1);   /* the library's log of each recovery round */
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    const int calls = argc > 1 ? atoi(argv[1]) : 5;
    if (calls < 1 || calls > MAX_CALLS || p > MAX_RANKS) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -n P ftcoll-demo [CALLS 1..%d], P <= %d\n", MAX_CALLS,
                    MAX_RANKS);
        MPI_Finalize();
        return 2;
    }
    ftc_comm_t comm;
    if (ftc_comm_create(MPI_COMM_WORLD, &comm) != MPI_SUCCESS)
        fail("ftc_comm_create", rank);
    const char *injection = getenv("FTCOLL_INJECT");
    if (!injection || !*injection) {
        injection = p == 8 ? default_injection : "";
        if (ftc_inject(comm, injection) != MPI_SUCCESS)
            fail("ftc_inject", rank);
    }
    if (rank == 0) {
        printf("ftcoll demo: ftc_allreduce on %d ranks, %d doubles per rank, MPI_SUM with exact "
               "sums, %d calls\n", p, COUNT, calls);
        printf("failures injected (real SIGKILLs): %s\n\n", *injection ? injection : "none");
        fflush(stdout);
    }
    double *v = malloc(sizeof(double) * COUNT);
    call_record records[MAX_CALLS];
    if (!v)
        fail("out of memory", rank);
    for (int c = 0; c < calls; c++)
        records[c] = one_call(comm, rank, p, c + 1, v);
    MPI_Comm survivors;
    if (ftc_comm_survivors(comm, &survivors) != MPI_SUCCESS)
        fail("ftc_comm_survivors", rank);
    fflush(stderr);
    const int problems = report_calls(records, calls, p, survivors);
    MPI_Comm_free(&survivors);
    ftc_comm_free(&comm);
    free(v);
    fflush(stdout);
    /* Open MPI 5.0.7's MPI_Finalize can wait forever after a rank died (a
     * PMIx fence): the demo is done, leave without it. */
    _exit(problems ? 1 : 0);
}
