/* Creating and freeing ftcoll communicators; settings from the environment. */
#include "comm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef FTCOLL_HAVE_ULFM
#include <mpi-ext.h>
#endif

#include "allgather/allgather.h"
#include "args.h"
#include "allreduce/ft_engine.h"
#include "ft/ft.h"
#include "bcast/adaptive.h"
#include "error.h"

/* FTCOLL_VERBOSE: 0 (default) or 1 (rank 0 logs algorithm choices). */
static int read_verbose(int *verbose)
{
    const char *text = getenv("FTCOLL_VERBOSE");
    *verbose = 0;
    if (!text || !*text)
        return MPI_SUCCESS;
    if (strcmp(text, "0") == 0 || strcmp(text, "1") == 0) {
        *verbose = text[0] - '0';
        return MPI_SUCCESS;
    }
    return ftc_fail(MPI_ERR_ARG, "FTCOLL_VERBOSE=\"%s\": expected 0 or 1", text);
}

/* FTCOLL_STRICT: 0 (default) or 1 (see ftc_allreduce_set_strict). */
static int read_strict(bool *strict)
{
    const char *text = getenv("FTCOLL_STRICT");
    *strict = false;
    if (!text || !*text || strcmp(text, "0") == 0)
        return MPI_SUCCESS;
    if (strcmp(text, "1") == 0) {
        *strict = true;
        return MPI_SUCCESS;
    }
    return ftc_fail(MPI_ERR_ARG, "FTCOLL_STRICT=\"%s\": expected 0 or 1", text);
}

static int read_allgather_algorithm(ftc_allgather_algorithm *alg)
{
    const char *text = getenv("FTCOLL_ALLGATHER_ALGORITHM");
    *alg = FTC_ALLGATHER_AUTO;
    if (!text || !*text)
        return MPI_SUCCESS;
    int rc = ftc_allgather_algorithm_parse(text, alg);
    if (rc != MPI_SUCCESS) {
        char why[400];
        snprintf(why, sizeof(why), "%s", ftc_error_message());
        return ftc_fail(rc, "FTCOLL_ALLGATHER_ALGORITHM: %s", why);
    }
    return MPI_SUCCESS;
}

static int read_injections(ftc_inject_plan *plan)
{
    char why[256];
    if (ftc_inject_parse(getenv("FTCOLL_INJECT"), plan, why, sizeof(why)))
        return MPI_SUCCESS;
    return ftc_fail(MPI_ERR_ARG, "FTCOLL_INJECT: %s", why);
}

static int read_guard(ftc_guard_settings *guard, ftc_watchdog_settings *watchdog)
{
    char why[256];
    if (!ftc_guard_settings_parse(getenv("FTCOLL_GUARD"), guard, why, sizeof(why)))
        return ftc_fail(MPI_ERR_ARG, "FTCOLL_GUARD: %s", why);
    if (!ftc_watchdog_settings_parse(getenv("FTCOLL_WATCHDOG"), watchdog, why, sizeof(why)))
        return ftc_fail(MPI_ERR_ARG, "FTCOLL_WATCHDOG: %s", why);
    return MPI_SUCCESS;
}

/* Settings the collectives take at creation. */
typedef struct {
    ftc_allgather_algorithm allgather;   /* FTCOLL_ALLGATHER_ALGORITHM */
    bool strict;          /* FTCOLL_STRICT */
    int tag_window;       /* FTCOLL_TAG_WINDOW */
} collective_settings;

static int read_settings(ftc_comm_t c, ftc_watchdog_settings *watchdog, collective_settings *engine)
{
    engine->tag_window = FTC_FT_TAG_WINDOW;
    int rc = read_verbose(&c->verbose);
    if (rc == MPI_SUCCESS)
        rc = read_allgather_algorithm(&engine->allgather);
    if (rc == MPI_SUCCESS)
        rc = read_injections(&c->inject);
    if (rc == MPI_SUCCESS)
        rc = read_strict(&engine->strict);
    if (rc == MPI_SUCCESS)
        rc = ftc_ft_read_tag_window(&engine->tag_window);
    if (rc == MPI_SUCCESS)
        rc = read_guard(&c->guard.settings, watchdog);
    return rc;
}

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

static void release(ftc_comm_t c)
{
    ftc_allgather_state_destroy(c);
    ftc_exec_scratch_free(&c->exec);
    ftc_guard_release(c);
    ftc_tree_comm_release(c);
    ftc_allreduce_state_destroy(c);
    ftc_ft_destroy(&c->ft);
    free(c->scratch);
    free(c->packed);
    if (c->self != MPI_COMM_NULL)
        PMPI_Comm_free(&c->self);
    if (c->comm != MPI_COMM_NULL)
        PMPI_Comm_free(&c->comm);
    free(c);
}

/*
 * Every rank reads its own environment; the ranks then agree on the outcome,
 * so that a bad setting on one rank fails the call on all of them alike
 * instead of leaving the others inside a collective alone. Settings that
 * shape the messages (the algorithm) must also be equal everywhere: ranks
 * running different schedules would wait for each other forever.
 */
static int agree_on_settings(ftc_comm_t c, const collective_settings *engine, int local_rc)
{
    const int alg = (int)engine->allgather, strict = engine->strict;
    const int window = engine->tag_window;
    const int every = c->guard.settings.every;
    const double timeout = c->guard.settings.timeout;
    const int timeout_ms = timeout > 2e6 ? 2000000000 : (int)(timeout * 1000 + 0.5);
    const int mine[11] = { local_rc == MPI_SUCCESS ? 0 : 1, alg, -alg, strict, -strict,
                           every, -every, timeout_ms, -timeout_ms, window, -window };
    int most[11];
    int rc = PMPI_Allreduce(mine, most, 11, MPI_INT, MPI_MAX, c->comm);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "ftc_comm_create: agreeing on settings failed");
    if (local_rc != MPI_SUCCESS)
        return local_rc;
    if (most[0])
        return ftc_fail(MPI_ERR_ARG, "ftc_comm_create: another rank rejected its FTCOLL_* settings");
    if (most[1] != -most[2])
        return ftc_fail(MPI_ERR_ARG, "ftc_comm_create: FTCOLL_ALLGATHER_ALGORITHM differs between "
                        "ranks (here %s; elsewhere from %s to %s): set it alike on every rank",
                        ftc_allgather_algorithm_name((ftc_allgather_algorithm)alg),
                        ftc_allgather_algorithm_name((ftc_allgather_algorithm)-most[2]),
                        ftc_allgather_algorithm_name((ftc_allgather_algorithm)most[1]));
    if (most[3] != -most[4])
        return ftc_fail(MPI_ERR_ARG, "ftc_comm_create: FTCOLL_STRICT differs between ranks: set "
                        "it alike on every rank");
    if (most[5] != -most[6] || most[7] != -most[8])
        return ftc_fail(MPI_ERR_ARG, "ftc_comm_create: FTCOLL_GUARD differs between ranks (every "
                        "and timeout shape the check-ins): set it alike on every rank");
    if (most[9] != -most[10])
        return ftc_fail(MPI_ERR_ARG, "ftc_comm_create: FTCOLL_TAG_WINDOW differs between ranks "
                        "(it shapes the tags): set it alike on every rank");
    return MPI_SUCCESS;
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
    ftc_comm_t c = calloc(1, sizeof(*c));
    if (!c)
        return ftc_fail(MPI_ERR_NO_MEM, "ftc_comm_create: out of memory");
    c->comm = MPI_COMM_NULL;
    c->self = MPI_COMM_NULL;
    c->checked_op = MPI_OP_NULL;
    c->checked_type = MPI_DATATYPE_NULL;
    ftc_watchdog_settings watchdog;
    collective_settings engine = { 0 };
    int settings_rc = read_settings(c, &watchdog, &engine);
    rc = MPI_Comm_dup(comm, &c->comm);
    if (rc != MPI_SUCCESS) {
        c->comm = MPI_COMM_NULL;
        release(c);
        return ftc_fail_mpi(rc, "ftc_comm_create: MPI_Comm_dup failed");
    }
    MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
    if (MPI_Comm_dup(MPI_COMM_SELF, &c->self) == MPI_SUCCESS)
        MPI_Comm_set_errhandler(c->self, MPI_ERRORS_RETURN);
    else
        c->self = MPI_COMM_NULL;
    MPI_Comm_rank(c->comm, &c->rank);
    MPI_Comm_size(c->comm, &c->size);
    if (settings_rc == MPI_SUCCESS)
        settings_rc = ftc_tree_comm_read_environment(c);
    rc = ftc_ft_create(c, engine.tag_window, &c->ft);
    if (rc == MPI_SUCCESS)
        rc = ftc_allreduce_state_create(c, engine.strict);
    if (rc == MPI_SUCCESS)
        rc = ftc_allgather_state_create(c, engine.allgather);
    if (rc != MPI_SUCCESS) {
        release(c);
        return rc;
    }
    c->exec.watch = &c->guard.watch;
    const int guard_rc = ftc_guard_init(c, settings_rc == MPI_SUCCESS ? &watchdog : NULL);
    if (settings_rc == MPI_SUCCESS)
        settings_rc = guard_rc;
    rc = agree_on_settings(c, &engine, settings_rc);
    if (rc == MPI_SUCCESS)
        rc = ftc_tree_comm_prepare(c);   /* tree broadcasts: measure and build now */
    if (rc != MPI_SUCCESS) {
        release(c);
        return rc;
    }
    *out = c;
    return MPI_SUCCESS;
}

int ftc_comm_free(ftc_comm_t *comm)
{
    ftc_clear_error();
    if (!comm || !*comm)
        return ftc_fail(MPI_ERR_COMM, "ftc_comm_free: the communicator is NULL");
    /* A rank may still be finishing an allreduce with this rank's saved
     * result: settle before the communicator goes away. */
    int rc = ftc_ft_leave(*comm);
    if (rc == MPI_SUCCESS)
        rc = ftc_tree_comm_quiesce(*comm);
    ftc_guard_tally(*comm);
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

int ftc_comm_survivors(ftc_comm_t comm, MPI_Comm *survivors)
{
    ftc_clear_error();
    const int rc = ftc_check_query("ftc_comm_survivors", comm, survivors, "the output handle");
    if (rc != MPI_SUCCESS)
        return rc;
    *survivors = MPI_COMM_NULL;
    return ftc_ft_survivors(comm, survivors);
}

int ftc_inject(ftc_comm_t comm, const char *spec)
{
    ftc_clear_error();
    if (!comm)
        return ftc_fail(MPI_ERR_COMM, "ftc_inject: the communicator is NULL");
    ftc_inject_plan plan;
    char why[256];
    if (!ftc_inject_parse(spec, &plan, why, sizeof(why)))
        return ftc_fail(MPI_ERR_ARG, "ftc_inject: %s", why);
    comm->inject = plan;
    return MPI_SUCCESS;
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
