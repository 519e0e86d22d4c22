/*
 * ftc_barrier: no rank leaves before every live rank has entered.
 *
 * With ULFM it is the fault-tolerant engine's allreduce of no element:
 * every rank's result depends on a message (empty) from every live rank,
 * so the allreduce is a barrier, and it survives the same failures.
 *
 *     step k:  rank r  <-- exchange -->  rank r xor 2^k       (k = 0 .. log2 p - 1)
 *
 * Without ULFM: MPI_Barrier on ftcoll's private communicator.
 */
#include "../args.h"
#include "../comm.h"
#include "../error.h"
#include "../ft/ft.h"
#include "../guard/guard.h"
#include "../allreduce/ft_engine.h"
#include "../module.h"

/* The barrier keeps no state of its own. */
const ftc_module ftc_barrier_module = { .name = "barrier" };

int ftc_barrier(ftc_comm_t comm)
{
    ftc_clear_error();
    int rc = ftc_check_comm("ftc_barrier", comm);
    if (comm)
        rc = ftc_guard_enter(comm, FTC_GUARDED_BARRIER, rc, NULL);
    if (rc != MPI_SUCCESS)
        return rc;
#ifdef FTCOLL_HAVE_ULFM
    int nothing = 0;
    rc = ftc_ft_allreduce_run(comm, NULL, &nothing, 0, MPI_INT, MPI_BOR, 0, (int)sizeof(int),
                              "ftc_barrier");
#else
    (void)ftc_ft_begin_call(comm->ft);   /* no message carries it, but every collective takes one */
    rc = PMPI_Barrier(comm->comm);   /* PMPI_: never through the PMPI layer */
    if (rc != MPI_SUCCESS)
        rc = ftc_fail_mpi(rc, "ftc_barrier: MPI_Barrier failed");
#endif
    ftc_guard_leave(comm);
    return rc;
}
