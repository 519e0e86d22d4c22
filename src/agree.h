/*
 * Agreeing on equal values: every rank states whether its own settings
 * were acceptable and what it holds for each value that must be the same
 * everywhere (settings that shape the messages: ranks running different
 * schedules or tags would wait for each other forever). One allreduce of
 * [rejected, v, -v, ...] with MPI_MAX gives every rank the same verdict:
 * a value is equal on every rank exactly when its maximum is minus the
 * maximum of its negation.
 */
#ifndef FTCOLL_AGREE_H
#define FTCOLL_AGREE_H

#include <mpi.h>

/* The most values one agreement compares. */
enum { FTC_AGREE_MAX = 192 };

typedef struct {
    const char *name;                  /* for messages: "FTCOLL_STRICT" */
    int value;
    const char *(*describe)(int value);   /* the value in words; NULL: a number */
} ftc_equal_value;

/*
 * Collective over `comm`. Returns, alike on every rank unless this rank's
 * own `local_rc` failed (it keeps its own error and message): MPI_SUCCESS;
 * MPI_ERR_ARG when another rank's own verdict failed ("<who>: another rank
 * <what>", what: "rejected its FTCOLL_* settings") or a value differs ("<who>: <name> differs
 * between ranks (...): set it alike on every rank"); an MPI error if the
 * allreduce failed.
 */
int ftc_agree_equal(MPI_Comm comm, int local_rc, const ftc_equal_value *values, int n,
                    const char *who, const char *what);

#endif
