#define _POSIX_C_SOURCE 200809L /* getppid, nanosleep */
#include "abort.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef __linux__
#include <sys/prctl.h>
#include <unistd.h>
#endif

#include <mpi.h>

#include "error.h"
#include "ftcoll.h"

static atomic_int aborted;
static atomic_int finalize_deferred;   /* a layer finalizes MPI itself, at exit */

int ftc_aborted(void)
{
    return atomic_load(&aborted);
}

/* Before MPI_Abort: MPICH's launcher, under load, was seen to drop the
 * whole job's output (the diagnosis included) when a rank aborted at once;
 * a short pause lets it forward what the ranks printed. */
static void let_the_launcher_forward_output(void)
{
    fflush(stdout);
    fflush(stderr);
    const struct timespec pause = { 0, 100 * 1000 * 1000 };
    nanosleep(&pause, NULL);
}

_Noreturn void ftc_abort_job(const char *diagnosis)
{
    /* Set first: MPI_Abort may run exit handlers on this process. */
    atomic_store(&aborted, 1);
    if (diagnosis)
        fprintf(stderr, "%s\n", diagnosis);
    let_the_launcher_forward_output();
    MPI_Abort(MPI_COMM_WORLD, FTC_ABORT_EXIT_CODE);
    /* Some MPI libraries return from MPI_Abort: leave without exit
     * handlers, so that none of them calls MPI_Finalize. */
    _Exit(FTC_ABORT_EXIT_CODE);
}

_Noreturn void ftc_abort_job_staggered(int rank, double grace, const char *diagnosis)
{
    if (diagnosis) {
        fprintf(stderr, "%s\n", diagnosis);
        fflush(stderr);
    }
    const double wait = grace + 0.1 * (rank % 32);
    const struct timespec pause = { (time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9) };
    nanosleep(&pause, NULL);
    ftc_abort_job(NULL);
}

/* PMPI_Finalized: MPI's own answer, whichever layer sits above it; the
 * layer that deferred MPI_Finalize said so with ftc_finalize_deferred. */
static void finalize_unless_aborted(void)
{
    int finalized = 0;
    if (atomic_load(&aborted) || atomic_load(&finalize_deferred)
        || PMPI_Finalized(&finalized) != MPI_SUCCESS || finalized)
        return;
    PMPI_Finalize();
}

void ftc_finalize_deferred(void)
{
    atomic_store(&finalize_deferred, 1);
}

int ftc_finalize_at_exit(void)
{
    ftc_clear_error();
    static atomic_int registered;
    if (atomic_exchange(&registered, 1))
        return MPI_SUCCESS;
    if (atexit(finalize_unless_aborted) != 0)
        return ftc_fail(MPI_ERR_OTHER, "ftc_finalize_at_exit: atexit refused the handler");
    return MPI_SUCCESS;
}

/* Launchers set one of these in their ranks' environment; a program run
 * on its own (a singleton) keeps its ordinary life. */
static int started_by_a_launcher(void)
{
    static const char *const markers[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK" };
    for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++)
        if (getenv(markers[i]))
            return 1;
    return 0;
}

void ftc_die_with_launcher(void)
{
#ifdef __linux__
    static atomic_int done;
    if (atomic_exchange(&done, 1) || !started_by_a_launcher())
        return;
    const pid_t launcher = getppid();
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == 0 && getppid() != launcher)
        _Exit(FTC_ABORT_EXIT_CODE);   /* the launcher was already gone */
#endif
}
