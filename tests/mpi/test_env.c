/*
 * FTCOLL_* environment settings, read by ftc_comm_create. ctest sets the
 * variable (tests/mpi/MpiTests.cmake) and tells this program what must follow:
 *
 *   test_env --expect-algorithm NAME
 *       ftc_comm_create succeeds; an allgather then reports NAME as requested
 *       (ftc_allgather_last_choice) and gathers the right data.
 *   test_env --expect-rejected VARIABLE [WORD...]
 *       ftc_comm_create fails with MPI_ERR_ARG on every rank, leaves the
 *       handle NULL, and its message names VARIABLE, quotes the bad value
 *       and lists every WORD (the valid values).
 *   test_env --algorithm-per-parity EVEN ODD
 *       even ranks set FTCOLL_ALLGATHER_ALGORITHM=EVEN, odd ranks ODD (both
 *       valid): ftc_comm_create must fail with MPI_ERR_ARG on every rank,
 *       saying the setting differs, instead of two schedules deadlocking.
 *
 * Exit status 0 when every rank saw what was expected.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "ftcoll.h"

static int my_rank = 0;

static int failed(const char *what, const char *detail)
{
    fprintf(stderr, "FAIL rank %d: %s: %s\n", my_rank, what, detail);
    return 1;
}

/* Each rank contributes rank + 1; everyone must end with 1, 2, ..., p. */
static int check_allgather_works(ftc_comm_t comm, int p)
{
    int mine = my_rank + 1;
    int *all = malloc((size_t)p * sizeof(int));
    if (!all)
        return failed("allgather", "out of memory");
    int f = 0;
    if (ftc_allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, comm) != MPI_SUCCESS)
        f += failed("ftc_allgather", ftc_error_message());
    for (int i = 0; f == 0 && i < p; i++)
        if (all[i] != i + 1)
            f += failed("ftc_allgather", "wrong data");
    free(all);
    return f;
}

static int expect_algorithm(const char *name, int p)
{
    ftc_allgather_algorithm want;
    if (ftc_allgather_algorithm_parse(name, &want) != MPI_SUCCESS)
        return failed("bad test argument", ftc_error_message());
    ftc_comm_t comm = NULL;
    if (ftc_comm_create(MPI_COMM_WORLD, &comm) != MPI_SUCCESS)
        return failed("ftc_comm_create", ftc_error_message());
    int f = check_allgather_works(comm, p);
    ftc_allgather_choice choice;
    if (ftc_allgather_last_choice(comm, &choice) != MPI_SUCCESS)
        f += failed("ftc_allgather_last_choice", ftc_error_message());
    else if (choice.requested != want) {
        char detail[128];
        snprintf(detail, sizeof(detail), "requested is %s, expected %s",
                 ftc_allgather_algorithm_name(choice.requested), name);
        f += failed("the environment's algorithm", detail);
    }
    ftc_comm_free(&comm);
    return f;
}

static int expect_mention(const char *message, const char *word)
{
    if (strstr(message, word))
        return 0;
    char detail[768];
    snprintf(detail, sizeof(detail), "message \"%s\" does not mention \"%s\"", message, word);
    return failed("ftc_comm_create's message", detail);
}

/* ftc_comm_create must fail with MPI_ERR_ARG and leave the handle NULL. */
static int expect_create_rejected(void)
{
    ftc_comm_t comm = (ftc_comm_t)&my_rank;   /* must come back NULL */
    const int rc = ftc_comm_create(MPI_COMM_WORLD, &comm);
    int error_class = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &error_class);
    if (error_class != MPI_ERR_ARG) {
        if (rc == MPI_SUCCESS)
            ftc_comm_free(&comm);
        return failed("ftc_comm_create", "did not fail with MPI_ERR_ARG");
    }
    return comm == NULL ? 0 : failed("ftc_comm_create", "the handle is not NULL after failing");
}

static int expect_rejected(const char *variable, char **valid_words, int n_words)
{
    const char *value = getenv(variable);
    if (!value || !*value)
        return failed("bad test setup", "the variable is not set");
    int f = expect_create_rejected();
    if (f)
        return f;
    const char *message = ftc_error_message();
    f += expect_mention(message, variable);
    f += expect_mention(message, value);
    for (int i = 0; i < n_words; i++)
        f += expect_mention(message, valid_words[i]);
    return f;
}

/* `variable` set to `even` on even ranks, `odd` on odd ones ("-"
 * unsets it): every rank must refuse, naming `setting` and "differs". */
static int expect_disagreement_rejected(const char *variable, const char *even, const char *odd,
                                        const char *setting)
{
    const char *mine = my_rank % 2 == 0 ? even : odd;
    if (strcmp(mine, "-") != 0)
        setenv(variable, mine, 1);
    else
        unsetenv(variable);
    const int f = expect_create_rejected();
    if (f)
        return f;
    return expect_mention(ftc_error_message(), setting)
         + expect_mention(ftc_error_message(), "differs");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p;
    MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int f;
    if (argc == 3 && strcmp(argv[1], "--expect-algorithm") == 0)
        f = expect_algorithm(argv[2], p);
    else if (argc >= 3 && strcmp(argv[1], "--expect-rejected") == 0)
        f = expect_rejected(argv[2], argv + 3, argc - 3);
    else if (argc == 6 && strcmp(argv[1], "--per-parity") == 0)
        f = expect_disagreement_rejected(argv[2], argv[3], argv[4], argv[5]);
    else
        f = failed("usage", "test_env --expect-algorithm NAME | --expect-rejected VARIABLE "
                            "[WORD...] | --per-parity VARIABLE EVEN ODD SETTING");

    int failures = 0;
    MPI_Allreduce(&f, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (my_rank == 0)
        printf("env p=%d %s %s: %s\n", p, argc > 1 ? argv[1] : "", argc > 2 ? argv[2] : "",
               failures ? "FAILED" : "as expected on every rank");
    MPI_Finalize();
    return failures ? 1 : 0;
}
