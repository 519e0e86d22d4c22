/* Creating and freeing ftcoll communicators; settings from the environment. */
#include "comm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int read_settings(ftc_comm_t c)
{
    int rc = read_verbose(&c->verbose);
    if (rc == MPI_SUCCESS)
        rc = read_allgather_algorithm(&c->allgather_forced);
    if (rc == MPI_SUCCESS)
        rc = read_injections(&c->inject);
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
    for (int i = 0; i < FTC_ALLGATHER_ALGORITHM_COUNT; i++) {
        if (c->allgather_plans[i]) {
            ftc_schedule_destroy(c->allgather_plans[i]);
            free(c->allgather_plans[i]);
        }
    }
    ftc_exec_scratch_free(&c->exec);
    free(c->scratch);
    if (c->self != MPI_COMM_NULL)
        MPI_Comm_free(&c->self);
    if (c->comm != MPI_COMM_NULL)
        MPI_Comm_free(&c->comm);
    free(c);
}

/*
 * Every rank reads its own environment; the ranks then agree on the outcome,
 * so that a bad setting on one rank fails the call on all of them alike
 * instead of leaving the others inside a collective alone. Settings that
 * shape the messages (the algorithm) must also be equal everywhere: ranks
 * running different schedules would wait for each other forever.
 */
static int agree_on_settings(ftc_comm_t c, int local_rc)
{
    const int alg = (int)c->allgather_forced;
    const int mine[3] = { local_rc == MPI_SUCCESS ? 0 : 1, alg, -alg };
    int most[3];
    int rc = MPI_Allreduce(mine, most, 3, MPI_INT, MPI_MAX, c->comm);
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
    const int settings_rc = read_settings(c);
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
    rc = agree_on_settings(c, settings_rc);
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
    release(*comm);
    *comm = NULL;
    return MPI_SUCCESS;
}

MPI_Comm ftc_comm_mpi(ftc_comm_t comm)
{
    return comm ? comm->comm : MPI_COMM_NULL;
}
