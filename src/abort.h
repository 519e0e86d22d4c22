/*
 * The brutal stop, for a rank that no longer answers (a clean stop needs
 * every rank to take part): print the diagnosis, end every
 * process of the job with MPI_Abort, and make sure nothing runs
 * MPI_Finalize afterwards (an exit handler doing so would wait forever for
 * ranks that are gone).
 */
#ifndef FTCOLL_ABORT_H
#define FTCOLL_ABORT_H

/* Exit status of a job ftcoll aborted (EX_SOFTWARE). */
enum { FTC_ABORT_EXIT_CODE = 70 };

/* Prints `diagnosis` (NULL: nothing) on stderr, then MPI_Abort on
 * MPI_COMM_WORLD; if MPI_Abort returns, _Exit. Never returns. */
_Noreturn void ftc_abort_job(const char *diagnosis);

/*
 * Several ranks often decide to abort at once (every rank waiting on a hung
 * one). Open MPI 5's launcher in fault-tolerant mode can hang when several
 * ranks call MPI_Abort together, so a rank prints its diagnosis at once
 * and calls MPI_Abort only after `grace` seconds plus 0.1 s per rank
 * (modulo 32): the first abort normally ends the others before.
 */
_Noreturn void ftc_abort_job_staggered(int rank, double grace, const char *diagnosis);

/*
 * Makes this process die with its launcher's process (Linux, when started
 * by mpirun/mpiexec): Open MPI's runtime in fault-tolerant mode does not
 * kill a rank that sleeps through MPI_Abort, and such a rank would outlive
 * the job. Once per process; elsewhere a no-op.
 */
void ftc_die_with_launcher(void);

#endif
