/*
 * The composition root: the one place that creates and frees an ftcoll
 * communicator. Every module takes part through its table (module.h), in
 * the order of `modules` below; nothing here knows a module's settings or
 * state.
 *
 *   ftc_comm_create   duplicate the communicator (and MPI_COMM_SELF)
 *                     create every module; read every module's settings
 *                     agree: one allreduce of every rank's verdict and of
 *                            every value that must be equal everywhere
 *                     start every module; agree that every start succeeded
 *                     (with ULFM each step ends in an agreement that every
 *                     rank succeeded and none died: the creation succeeds
 *                     on every live rank or fails on every one)
 *   ftc_comm_free     quiesce every module, then release them in reverse
 */
#include "comm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agree.h"
#include "args.h"
#include "collectives.h"
#include "error.h"
#include "ft/ft.h"
#include "guard/guard.h"
#include "module.h"

#define DECLARE_TABLE(kind, name, table) extern const ftc_module table;
FTC_COLLECTIVES(DECLARE_TABLE)
#undef DECLARE_TABLE

/* The fault-tolerance layer first: the collectives register their recovery
 * rounds with it, and it is released last. The guard last: its start
 * exchanges the ranks' process ids once every collective is ready. */
#define TABLE_OF(kind, name, table) &table,
static const ftc_module *const modules[] = {
    &ftc_ft_module,
    FTC_COLLECTIVES(TABLE_OF)
    &ftc_guard_module,
};
#undef TABLE_OF
enum { MODULES = sizeof(modules) / sizeof(modules[0]) };
_Static_assert(MODULES * FTC_MODULE_AGREED_MAX <= FTC_AGREE_MAX,
               "one agreement must hold every module's values");

/* ---- the communicator's own settings ---------------------------------------------- */

static int check_usable(MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL)
        return ftc_fail(MPI_ERR_COMM, "ftc_comm_create: the communicator is MPI_COMM_NULL");
    int inter = 0;
    int rc = MPI_Comm_test_inter(comm, &inter);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(MPI_ERR_COMM, "ftc_comm_create: not a valid communicator");
    if (inter)
        return ftc_fail(MPI_ERR_COMM, "ftc_comm_create: intercommunicators are not supported");
    return MPI_SUCCESS;
}

/* ---- life ------------------------------------------------------------------------- */

/* What c holds, but not c itself. */
static void release_parts(ftc_comm_t c)
{
    for (int m = MODULES - 1; m >= 0; m--)
        if (modules[m]->release)
            modules[m]->release(c);
    ftc_exec_scratch_free(&c->exec);
    free(c->scratch);
    free(c->packed);
    if (c->self != MPI_COMM_NULL)
        PMPI_Comm_free(&c->self);
    if (c->comm != MPI_COMM_NULL)
        PMPI_Comm_free(&c->comm);
}

static void release(ftc_comm_t c)
{
    release_parts(c);
    free(c);
}

/* The private duplicates every module builds on; errors come back as codes. */
static int duplicate(ftc_comm_t c, MPI_Comm comm)
{
    int rc = PMPI_Comm_dup(comm, &c->comm);
    if (rc != MPI_SUCCESS) {
        c->comm = MPI_COMM_NULL;
        return ftc_fail_mpi(rc, "ftc_comm_create: MPI_Comm_dup failed");
    }
    MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
    if (PMPI_Comm_dup(MPI_COMM_SELF, &c->self) == MPI_SUCCESS)
        MPI_Comm_set_errhandler(c->self, MPI_ERRORS_RETURN);
    else
        c->self = MPI_COMM_NULL;
    MPI_Comm_rank(c->comm, &c->rank);
    MPI_Comm_size(c->comm, &c->size);
    ftc_watch_slot_init(&c->watch, c->comm, c->rank, c->size);
    c->exec.watch = &c->watch;
    return MPI_SUCCESS;
}

static int create_modules(ftc_comm_t c)
{
    for (int m = 0; m < MODULES; m++) {
        const int rc = modules[m]->create ? modules[m]->create(c) : MPI_SUCCESS;
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* Every module reads its settings, also after one was rejected, so that
 * each rank's verdict covers all of them; the first error is kept. */
static int read_module_settings(ftc_comm_t c, int rc)
{
    for (int m = 0; m < MODULES; m++) {
        const int mine = modules[m]->read_settings ? modules[m]->read_settings(c) : MPI_SUCCESS;
        if (rc == MPI_SUCCESS)
            rc = mine;
    }
    return rc;
}

/*
 * Every rank read its own environment; a bad setting on one rank must fail
 * the creation on every rank alike instead of leaving the others inside a
 * collective alone, and settings that shape the messages must be equal
 * everywhere. One allreduce decides both.
 */
static int agree_on_settings(ftc_comm_t c, int settings_rc)
{
    /* every rank sends every value, also one whose settings failed (each
     * module's state exists: the create step agreed), so that the ranks'
     * allreduces match */
    ftc_equal_value values[MODULES * FTC_MODULE_AGREED_MAX];
    int n = 0;
    for (int m = 0; m < MODULES; m++)
        if (modules[m]->agreed)
            n += modules[m]->agreed(c, values + n);
    return ftc_agree_equal(c->comm, settings_rc, values, n, "ftc_comm_create",
                           "rejected its FTCOLL_* settings");
}

/* Every start runs on every rank (each may be collective), then the ranks
 * agree that all of them succeeded everywhere. */
static int start_modules(ftc_comm_t c)
{
    int rc = MPI_SUCCESS;
    for (int m = 0; m < MODULES; m++) {
        const int mine = modules[m]->start ? modules[m]->start(c) : MPI_SUCCESS;
        if (rc == MPI_SUCCESS)
            rc = mine;
    }
    return ftc_agree_equal(c->comm, rc, NULL, 0, "ftc_comm_create",
                           "failed to set up (see its error)");
}

/* The steps after the duplicate, on c->comm. */
static int later_steps(ftc_comm_t c, MPI_Comm comm, int verbose_rc)
{
    static const char who[] = "ftc_comm_create";
    int rc = ftc_ft_agree_step(comm, c->comm, create_modules(c), who, "creating the modules");
    if (rc == MPI_SUCCESS) {
        rc = agree_on_settings(c, read_module_settings(c, verbose_rc));
        rc = ftc_ft_settle_agreed_step(comm, c->comm, rc, who, "agreeing on the settings");
    }
    if (rc == MPI_SUCCESS)
        rc = ftc_ft_settle_agreed_step(comm, c->comm, start_modules(c), who,
                                       "starting the modules");
    return rc;
}

/* Each step may fail on some ranks only (a death that some of them saw):
 * every step ends in an agreement over the program's communicator, so
 * that every live rank goes on to the next step or none does, and the
 * creation succeeds everywhere or fails everywhere. (duplicate() sets
 * c->comm before the agreement reads it: hence the statements apart.)
 * A death in a step may have cut short a communicator's allocation: the
 * duplicate's over `comm`, and the later steps' (the sentinel's twin, the
 * node's split) over c->comm. Every survivor then clears what it left
 * (ftc_ft_release_context_ids; both communicators return errors here),
 * or the next recovery's shrink would wait for ever. A rank that already
 * failed (`own_rc`: no memory) still duplicates, so that the others do not
 * wait for it there, and fails the first agreement. */
static int make_steps(ftc_comm_t c, MPI_Comm comm, int own_rc)
{
    /* FTCOLL_VERBOSE: rank 0 logs algorithm choices */
    const int verbose_rc = ftc_read_switch("FTCOLL_VERBOSE", &c->verbose);
    int rc = duplicate(c, comm);
    if (own_rc != MPI_SUCCESS)
        rc = own_rc;
    rc = ftc_ft_agree_step(comm, c->comm, rc, "ftc_comm_create", "duplicating the communicator");
    if (rc != MPI_SUCCESS) {
        if (ftc_ft_is_process_failure(rc))
            (void)ftc_ft_release_context_ids(comm);
        return rc;
    }
    rc = later_steps(c, comm, verbose_rc);
    if (ftc_ft_is_process_failure(rc))
        (void)ftc_ft_release_context_ids(c->comm);
    return rc;
}

int ftc_comm_create(MPI_Comm comm, ftc_comm_t *out)
{
    ftc_clear_error();
    if (!out)
        return ftc_fail(MPI_ERR_ARG, "ftc_comm_create: the output handle is NULL");
    *out = NULL;
    int rc = check_usable(comm);
    if (rc != MPI_SUCCESS)
        return rc;
    /* a rank with no memory for c still takes part, in `stand_in`, and
     * fails the creation on every rank at its first agreement */
    struct ftc_comm stand_in;
    int own_rc = MPI_SUCCESS;
    ftc_comm_t c = calloc(1, sizeof(*c));
    if (!c) {
        memset(&stand_in, 0, sizeof(stand_in));
        c = &stand_in;
        own_rc = ftc_fail(MPI_ERR_NO_MEM, "ftc_comm_create: out of memory");
    }
    c->comm = MPI_COMM_NULL;
    c->self = MPI_COMM_NULL;
    c->checked.op = MPI_OP_NULL;
    c->checked.known.type = MPI_DATATYPE_NULL;
    c->bcast_type.type = MPI_DATATYPE_NULL;
    /* a death must come back as a code, not as the program's fatal handler */
    MPI_Errhandler theirs = MPI_ERRHANDLER_NULL;
    MPI_Comm_get_errhandler(comm, &theirs);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    rc = make_steps(c, comm, own_rc);
    MPI_Comm_set_errhandler(comm, theirs);
    MPI_Errhandler_free(&theirs);
    if (rc != MPI_SUCCESS) {
        if (c == &stand_in)
            release_parts(c);
        else
            release(c);
        return rc;
    }
    *out = c;
    return MPI_SUCCESS;
}

/* A module that fails its quiesce may have found a rank gone: the later
 * ones, which may need every rank, are not tried. */
static int quiesce_modules(ftc_comm_t c)
{
    for (int m = 0; m < MODULES; m++) {
        const int rc = modules[m]->quiesce ? modules[m]->quiesce(c) : MPI_SUCCESS;
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int ftc_comm_free(ftc_comm_t *comm)
{
    ftc_clear_error();
    if (!comm || !*comm)
        return ftc_fail(MPI_ERR_COMM, "ftc_comm_free: the communicator is NULL");
    const int rc = quiesce_modules(*comm);
    char why[400] = "";
    if (rc != MPI_SUCCESS)
        snprintf(why, sizeof(why), "%s", ftc_error_message());
    release(*comm);
    *comm = NULL;
    return rc == MPI_SUCCESS ? MPI_SUCCESS : ftc_fail(rc, "ftc_comm_free: %s", why);
}

void ftc_comm_release_local(ftc_comm_t *comm)
{
    if (comm && *comm) {
        release(*comm);
        *comm = NULL;
    }
}

/* ---- queries -------------------------------------------------------------------- */

int ftc_comm_survivors(ftc_comm_t comm, MPI_Comm *survivors)
{
    ftc_clear_error();
    const int rc = ftc_check_query("ftc_comm_survivors", comm, survivors, "the output handle");
    if (rc != MPI_SUCCESS)
        return rc;
    *survivors = MPI_COMM_NULL;
    return ftc_ft_survivors(comm, survivors);
}

MPI_Comm ftc_comm_mpi(ftc_comm_t comm)
{
    return comm ? comm->comm : MPI_COMM_NULL;
}

int ftc_comm_rank(ftc_comm_t comm)
{
    return comm ? comm->rank : -1;
}

int ftc_comm_size(ftc_comm_t comm)
{
    return comm ? comm->size : -1;
}

int ftc_comm_live_ranks(ftc_comm_t comm, int *ranks, int max, int *count)
{
    ftc_clear_error();
    const int rc = ftc_check_query("ftc_comm_live_ranks", comm, count, "count");
    if (rc != MPI_SUCCESS)
        return rc;
    if (max < 0 || (max > 0 && !ranks))
        return ftc_fail(MPI_ERR_ARG, "ftc_comm_live_ranks: max is negative, or ranks NULL "
                                     "with max > 0");
    const int live = ftc_ft_live_count(comm->ft);
    const int *live_ranks = ftc_ft_live_ranks(comm->ft);
    for (int i = 0; i < live && i < max; i++)
        ranks[i] = live_ranks[i];
    *count = live;
    return MPI_SUCCESS;
}
