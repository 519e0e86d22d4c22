/*
 * Real process deaths during ftc_allreduce (ULFM only). ctest sets
 * FTCOLL_INJECT to kill one rank (never rank 0, which reports) at a chosen
 * call, step and phase; every rank then makes CALLS allreduce calls.
 *
 * What must hold today, before recovery exists: no survivor waits forever
 * (ctest's timeout), and every call on every survivor either succeeds with
 * the exact sum of all ranks' inputs — its value already held the dead
 * rank's contribution — or returns MPIX_ERR_PROC_FAILED with a message;
 * after a failure, later calls report it at once.
 */
#define _POSIX_C_SOURCE 200809L /* _exit */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>
#include <mpi-ext.h>

#include "ftcoll.h"

enum { CALLS = 4 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    ftc_comm_t comm;
    if (ftc_comm_create(MPI_COMM_WORLD, &comm) != MPI_SUCCESS) {
        fprintf(stderr, "FAIL rank %d: ftc_comm_create: %s\n", rank, ftc_error_message());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const long expected = (long)p * (p + 1) / 2;
    int wrong = 0, failed_calls = 0;
    for (int call = 1; call <= CALLS; call++) {
        long value = rank + 1;
        const int rc = ftc_allreduce(MPI_IN_PLACE, &value, 1, MPI_LONG, MPI_SUM, comm);
        int error_class = rc;
        if (rc != MPI_SUCCESS)
            MPI_Error_class(rc, &error_class);
        if (rc == MPI_SUCCESS && value != expected) {
            fprintf(stderr, "MISMATCH rank %d call %d: %ld, expected %ld\n", rank, call, value,
                    expected);
            wrong++;
        } else if (rc != MPI_SUCCESS && (error_class != MPIX_ERR_PROC_FAILED
                                         || !ftc_error_message()[0])) {
            fprintf(stderr, "FAIL rank %d call %d: error %d: %s\n", rank, call, rc,
                    ftc_error_message());
            wrong++;
        }
        failed_calls += rc != MPI_SUCCESS;
    }
    /* The survivors report to rank 0 over plain MPI: they are all alive. */
    if (rank == 0) {
        int total_wrong = wrong;
        for (int from = 1; from < p; from++) {
            int theirs[2];
            MPI_Status status;
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
            if (MPI_Recv(theirs, 2, MPI_INT, from, 99, MPI_COMM_WORLD, &status) == MPI_SUCCESS)
                total_wrong += theirs[0];
        }
        printf("allreduce-kill p=%d: %s (%d calls failed on rank 0)\n", p,
               total_wrong ? "WRONG RESULTS" : "every survivor returned, each result exact "
                                               "or a process-failure error",
               failed_calls);
    } else {
        const int mine[2] = { wrong, failed_calls };
        MPI_Send(mine, 2, MPI_INT, 0, 99, MPI_COMM_WORLD);
    }
    ftc_comm_free(&comm);
    /* Open MPI 5.0.7's MPI_Finalize waits in a PMIx fence that, after a
     * rank died, now and then never completes (seen in about one run in
     * ten, all survivors in ompi_mpi_finalize). Everything this test checks
     * is done and reported: leave without it. */
    fflush(stdout);
    fflush(stderr);
    _exit(wrong ? 1 : 0);
}
