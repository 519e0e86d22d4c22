/*
 * Communicators made while a rank dies, then a recovery (ULFM).
 *
 *   every rank   W = ftc_comm_create over a duplicate of MPI_COMM_WORLD
 *                (a higher context id), one allreduce on it
 *   rank p - 1   makes and frees ftcoll communicators over MPI_COMM_WORLD,
 *                and SIGKILLs itself after `victim_rounds` of them (argv[1];
 *                by default its pid's last digits, so that the death lands
 *                at a different instant from run to run)
 *   the others   make and free ftcoll communicators over MPI_COMM_WORLD
 *                until one fails: it must fail with MPIX_ERR_PROC_FAILED
 *   then         an allreduce of rank + 1 on W, which meets the survivors:
 *                its result must be the sum over S exactly, every survivor
 *                the same S, and the rank that died outside it
 *
 * Why: a death that lands inside the allocation of a duplicate's context
 * id leaves Open MPI 5.0 waiting, in every later MPIX_Comm_shrink over a
 * communicator of a higher id (W's recovery), for an allocation that will
 * never end. ftc_comm_create clears that on every survivor when a step of
 * it fails on a death (ftc_ft_release_context_ids); without it the
 * allreduce hangs here in most runs.
 *
 * The lowest survivor prints "create-churn-kill p=P survivors=N calls=1
 * wrong=W S=[HEX]: PASS" (or FAIL), and rank 0 "create-churn p=P made=M:
 * PASS" (or FAIL).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <mpi.h>
#include <mpi-ext.h>

#include "ftcoll.h"
#include "harness.h"

enum { MAX_ROUNDS = 100000 };

/* Makes and frees ftcoll communicators over MPI_COMM_WORLD until one
 * fails or `rounds` of them were made; returns the last return code. */
static int make_and_free(int rounds, int *made)
{
    for (*made = 0; *made < rounds; (*made)++) {
        ftc_comm_t c = NULL;
        int rc = ftc_comm_create(MPI_COMM_WORLD, &c);
        if (rc != MPI_SUCCESS)
            return rc;
        rc = ftc_comm_free(&c);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

static int victim_rounds(int argc, char **argv)
{
    if (argc > 1)
        return atoi(argv[1]);
    return 1 + (int)(getpid() % 16);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, p = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (p < 3 || p > 64)
        die("test_create_churn runs on 3 to 64 processes");
    MPI_Comm world_copy = MPI_COMM_NULL;
    mpi_or_die(MPI_Comm_dup(MPI_COMM_WORLD, &world_copy), "MPI_Comm_dup");
    ftc_comm_t w = NULL;
    mpi_or_die(ftc_comm_create(world_copy, &w), "ftc_comm_create of W");
    long one = 1, all = 0;
    mpi_or_die(ftc_allreduce(&one, &all, 1, MPI_LONG, MPI_SUM, w), "W's first allreduce");

    int made = 0, wrong = 0;
    if (rank == p - 1) {
        (void)make_and_free(victim_rounds(argc, argv), &made);
        raise(SIGKILL);
    }
    const int rc = make_and_free(MAX_ROUNDS, &made);
    if (class_of(rc) != MPIX_ERR_PROC_FAILED) {
        printf("FAIL rank %d: making communicators ended with %s after %d\n", rank,
               class_name(class_of(rc)), made);
        wrong++;
    }

    long value = rank + 1, sum = -1;
    const int arc = ftc_allreduce(&value, &sum, 1, MPI_LONG, MPI_SUM, w);
    long before = 0;
    uint64_t set = 0;
    if (arc != MPI_SUCCESS) {
        printf("FAIL rank %d: the allreduce after the death returned %s\n", rank,
               class_name(class_of(arc)));
        wrong++;
    } else if (reported_set(w, &before, rank, p, 1, &set) != 0) {
        wrong++;
    } else {
        long expected = 0;
        for (int r = 0; r < p; r++)
            expected += (set >> r & 1) ? r + 1 : 0;
        if (sum != expected || (set >> (p - 1) & 1) || !(set >> rank & 1)) {
            printf("FAIL rank %d: sum %ld over S=%llx, expected %ld\n", rank, sum,
                   (unsigned long long)set, expected);
            wrong++;
        }
    }

    MPI_Comm survivors = MPI_COMM_NULL;
    mpi_or_die(ftc_comm_survivors(w, &survivors), "ftc_comm_survivors");
    uint64_t sets[1] = { set };
    const int failed = report_same_sets("create-churn", survivors, p, sets, 1, wrong);
    if (rank == 0)
        printf("create-churn p=%d made=%d: %s\n", p, made, failed ? "FAIL" : "PASS");
    MPI_Comm_free(&survivors);
    ftc_comm_free(&w);
    leave_without_finalize(failed ? 1 : 0);
}
