/*
 * ftc_bcast: the root's buffer to every rank.
 *
 * With ULFM, ft_bcast.c: a broadcast that survives the same failures as
 * the allreduce and ends the same way on every survivor: every survivor
 * gets the data, or, if the root died before any survivor held it, every
 * survivor returns MPIX_ERR_PROC_FAILED and leaves its buffer alone.
 *
 * Without ULFM (no rank outlives a failure): MPI_Bcast on ftcoll's private
 * communicator. On request (ftc_bcast_configure), a tree that follows the
 * network (adaptive.c).
 *
 * Its module: the fault-tolerant broadcast's plan and confirmation
 * (FTCOLL_BCAST_PLAN, FTCOLL_BCAST_CONFIRM, select.h) and the trees'
 * settings and state (adaptive_config.c).
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "../args.h"
#include "../buffer.h"
#include "../comm.h"
#include "../error.h"
#include "../ft/ft.h"
#include "../guard/guard.h"
#include "../processors.h"
#include "adaptive.h"
#include "ft_bcast.h"
#include "select.h"

static int check_arguments(const void *buf, int count, MPI_Datatype type, int root,
                           ftc_comm_t comm, ftc_type_shape *shape)
{
    static const ftc_buffer_names names = { "ftc_bcast", "buffer", "count", "datatype" };
    int rc = ftc_check_comm("ftc_bcast", comm);
    if (rc == MPI_SUCCESS)
        rc = ftc_check_buffer_shape(&names, buf, count, type, comm->comm, &comm->bcast_type,
                                    shape);
    if (rc == MPI_SUCCESS && (root < 0 || root >= comm->size))
        rc = ftc_fail(MPI_ERR_ROOT, "ftc_bcast: root %d is not a rank of the communicator "
                                    "(0..%d)", root, comm->size - 1);
    return rc;
}

/* ---- the module: the plan's setting, then the trees' ---------------------------------------- */

static int bcast_create(ftc_comm_t comm)
{
    comm->bcast_plan = FTC_BCAST_AUTO;
    comm->bcast_confirmation = FTC_BCAST_CONFIRM_AUTO;
    comm->bcast_processors_shared = false;
    return MPI_SUCCESS;
}

/* FTCOLL_BCAST_PLAN: auto (unset), binomial or scatter_ring. */
static int read_plan(ftc_comm_t comm)
{
    const char *name = getenv("FTCOLL_BCAST_PLAN");
    ftc_bcast_algorithm plan = FTC_BCAST_AUTO;
    if (name && *name && !ftc_bcast_algorithm_parse(name, &plan))
        return ftc_fail(MPI_ERR_ARG, "FTCOLL_BCAST_PLAN=\"%s\": expected auto, binomial or "
                                     "scatter_ring", name);
    comm->bcast_plan = plan;
    return MPI_SUCCESS;
}

/* FTCOLL_BCAST_CONFIRM: auto (unset), on or off. */
static int read_confirmation(ftc_comm_t comm)
{
    const char *name = getenv("FTCOLL_BCAST_CONFIRM");
    ftc_bcast_confirmation setting = FTC_BCAST_CONFIRM_AUTO;
    if (name && *name && !ftc_bcast_confirmation_parse(name, &setting))
        return ftc_fail(MPI_ERR_ARG, "FTCOLL_BCAST_CONFIRM=\"%s\": expected auto, on or off",
                        name);
    comm->bcast_confirmation = setting;
    return MPI_SUCCESS;
}

static int bcast_read_settings(ftc_comm_t comm)
{
    int rc = read_plan(comm);
    const int confirmation = read_confirmation(comm);
    const int trees = ftc_bcast_tree_module.read_settings(comm);
    if (rc == MPI_SUCCESS)
        rc = confirmation;
    return rc != MPI_SUCCESS ? rc : trees;
}

/* Ranks running different plans would wait for each other forever. */
static int bcast_agreed(ftc_comm_t comm, ftc_equal_value *values)
{
    values[0] = (ftc_equal_value){ "FTCOLL_BCAST_PLAN", comm->bcast_plan, NULL };
    values[1] = (ftc_equal_value){ "FTCOLL_BCAST_CONFIRM", comm->bcast_confirmation, NULL };
    return 2 + ftc_bcast_tree_module.agreed(comm, values + 2);
}

#ifdef FTCOLL_HAVE_ULFM
/* FTCOLL_VERBOSE: which large broadcasts confirm, and why. */
static void say_which_confirm(ftc_comm_t comm)
{
    const ftc_bcast_confirmation setting = (ftc_bcast_confirmation)comm->bcast_confirmation;
    const char *which =
        setting == FTC_BCAST_CONFIRM_ON ? "every call confirms (FTCOLL_BCAST_CONFIRM)"
        : setting == FTC_BCAST_CONFIRM_OFF ? "every call keeps a copy (FTCOLL_BCAST_CONFIRM)"
        : comm->bcast_processors_shared ? "every call confirms (ranks share processors)"
        : "the scatter and ring confirms, the binomial flow keeps a copy "
          "(a processor per rank)";
    fprintf(stderr, "ftcoll: bcast on %d ranks: from %d KiB on three live ranks or more, %s\n",
            comm->size, FTC_BCAST_CONFIRM_BYTES >> 10, which);
}

/* "auto" needs to know whether ranks share processors (every node's
 * count of ranks and processors); only the fault-tolerant broadcast asks. */
static int count_processors(ftc_comm_t comm)
{
    comm->bcast_processors_shared = false;
    int rc = MPI_SUCCESS;
    if (comm->bcast_confirmation == FTC_BCAST_CONFIRM_AUTO)
        rc = ftc_ranks_share_processors(comm->comm, &comm->bcast_processors_shared);
    if (comm->verbose && comm->rank == 0 && rc == MPI_SUCCESS)
        say_which_confirm(comm);
    return rc;
}
#else
static int count_processors(ftc_comm_t comm)
{
    (void)comm;   /* MPI's own broadcast: nothing confirms, nothing is kept */
    return MPI_SUCCESS;
}
#endif

static int bcast_start(ftc_comm_t comm)
{
    const int rc = count_processors(comm);
    const int trees = ftc_bcast_tree_module.start(comm);
    return rc != MPI_SUCCESS ? rc : trees;
}
static int bcast_quiesce(ftc_comm_t comm) { return ftc_bcast_tree_module.quiesce(comm); }
static void bcast_release(ftc_comm_t comm) { ftc_bcast_tree_module.release(comm); }

const ftc_module ftc_bcast_module = {
    .name = "bcast",
    .create = bcast_create,
    .read_settings = bcast_read_settings,
    .agreed = bcast_agreed,
    .start = bcast_start,
    .quiesce = bcast_quiesce,
    .release = bcast_release,
};

/* ---- the call -------------------------------------------------------------------------------- */

int ftc_bcast(void *buf, int count, MPI_Datatype type, int root, ftc_comm_t comm)
{
    ftc_clear_error();
    ftc_type_shape shape = { 0 };
    int rc = check_arguments(buf, count, type, root, comm, &shape);
    if (comm) {   /* guarded: bad arguments here stop every rank cleanly */
        const ftc_guard_args same = ftc_guard_args_of(root, (long long)count * shape.size);
        rc = ftc_guard_enter(comm, FTC_GUARDED_BCAST, rc, &same);
    }
    if (rc != MPI_SUCCESS) {
        if (comm && ftc_guard_left_alone(comm))
            ftc_tree_bcast_skip(comm);
        return rc;
    }
#ifndef FTCOLL_HAVE_ULFM
    /* no message carries it here, but every collective takes one (ft.h) */
    (void)ftc_ft_begin_call(comm->ft);
#endif
    if (ftc_tree_bcast_wanted(comm)) {
        rc = ftc_tree_bcast(buf, count, type, &shape, root, comm);
        ftc_guard_leave(comm);
        return rc;
    }
#ifdef FTCOLL_HAVE_ULFM
    rc = ftc_bcast_fault_tolerant(buf, count, type, &shape, root, comm, NULL);
#else
    rc = PMPI_Bcast(buf, count, type, root, comm->comm);   /* never through the PMPI layer */
    if (rc != MPI_SUCCESS)
        rc = ftc_fail_mpi(rc, "ftc_bcast: MPI_Bcast failed");
#endif
    ftc_guard_leave(comm);
    return rc;
}
