/*
 * ftcoll — resilient, adaptive MPI collectives.
 *
 * One header for the whole public API. Every function returns an MPI error
 * class (MPI_SUCCESS, MPI_ERR_COUNT, ...); after a failure, ftc_error_message()
 * tells what was wrong in words, on the calling thread.
 *
 * Usage:
 *     ftc_comm_t comm;
 *     ftc_comm_create(MPI_COMM_WORLD, &comm);          // collective
 *     ftc_allgather(send, n, MPI_INT, recv, n, MPI_INT, comm);
 *     ftc_comm_free(&comm);                            // collective
 *
 * An ftc_comm_t works on a private duplicate of the communicator it was made
 * from, with MPI_ERRORS_RETURN, so ftcoll's traffic never mixes with the
 * application's and its errors come back as return codes.
 */
#ifndef FTCOLL_H
#define FTCOLL_H

#include <stddef.h>

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FTCOLL_VERSION_MAJOR 0
#define FTCOLL_VERSION_MINOR 1
#define FTCOLL_VERSION_PATCH 0

/* An ftcoll communicator: an MPI communicator plus ftcoll's settings and state. */
typedef struct ftc_comm *ftc_comm_t;

/*
 * Creates an ftcoll communicator over `comm` (collective over `comm`).
 * Reads the FTCOLL_* environment variables (see README); a bad value fails
 * the call with MPI_ERR_ARG and a message naming the variable and valid values.
 * Intercommunicators and MPI_COMM_NULL are rejected with MPI_ERR_COMM.
 */
int ftc_comm_create(MPI_Comm comm, ftc_comm_t *out);

/* Frees an ftcoll communicator (collective) and sets *comm to NULL. */
int ftc_comm_free(ftc_comm_t *comm);

/* The private MPI communicator ftcoll works on (do not free it). */
MPI_Comm ftc_comm_mpi(ftc_comm_t comm);

/* The message describing the last error returned on this thread ("" if none). */
const char *ftc_error_message(void);

/* ----------------------------------------------------------------------------
 * Allgather
 *
 * Algorithm numbers are Open MPI's (coll_tuned_allgather_algorithm), so a
 * setting means the same thing to both libraries.
 */
typedef enum {
    FTC_ALLGATHER_AUTO = 0,               /* decision table (Open MPI's fixed rules) */
    FTC_ALLGATHER_LINEAR = 1,             /* gather to rank 0 + broadcast */
    FTC_ALLGATHER_BRUCK = 2,
    FTC_ALLGATHER_RECURSIVE_DOUBLING = 3, /* power-of-two p only, else bruck */
    FTC_ALLGATHER_RING = 4,
    FTC_ALLGATHER_NEIGHBOR_EXCHANGE = 5,  /* even p only, else ring */
    FTC_ALLGATHER_TWO_PROC = 6,           /* p == 2 only, else the decision table */
    FTC_ALLGATHER_SPARBIT = 7
} ftc_allgather_algorithm;

#define FTC_ALLGATHER_ALGORITHM_COUNT 8

/*
 * Same arguments and semantics as MPI_Allgather, including MPI_IN_PLACE,
 * derived datatypes and send/receive types of equal signature but different
 * layout. Errors: MPI_ERR_COMM (NULL ftc_comm_t), MPI_ERR_COUNT,
 * MPI_ERR_BUFFER, MPI_ERR_TYPE (null, uncommitted, or 2 GiB or larger),
 * MPI_ERR_ARG (send and receive blocks differ in bytes), MPI_ERR_TRUNCATE
 * (a message of the wrong size: ranks passed different block sizes), or the
 * MPI error a transfer returned.
 */
int ftc_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  ftc_comm_t comm);

/* Forces an algorithm for every later ftc_allgather on `comm`
 * (FTC_ALLGATHER_AUTO returns to the decision table). Local call: make the
 * same call on every rank, or the ranks run different schedules and wait
 * for each other forever. */
int ftc_allgather_set_algorithm(ftc_comm_t comm, ftc_allgather_algorithm algorithm);

/* Parses a name ("ring", "recursive_doubling", ...) or a number ("4").
 * An unknown one returns MPI_ERR_ARG with a message listing the valid names. */
int ftc_allgather_algorithm_parse(const char *text, ftc_allgather_algorithm *out);

/* "ring", "bruck", ...; "auto" for FTC_ALLGATHER_AUTO; NULL if out of range. */
const char *ftc_allgather_algorithm_name(ftc_allgather_algorithm algorithm);

/* What the last ftc_allgather on a communicator ran, and why. */
typedef struct {
    ftc_allgather_algorithm requested; /* forced algorithm, or FTC_ALLGATHER_AUTO */
    ftc_allgather_algorithm selected;  /* requested, or the decision table's choice */
    ftc_allgather_algorithm executed;  /* selected, after any fallback */
    char reason[160];                  /* why executed differs from selected ("" if not) */
} ftc_allgather_choice;

int ftc_allgather_last_choice(ftc_comm_t comm, ftc_allgather_choice *out);

/* The algorithm the decision table picks for p processes each contributing
 * `block_bytes` (recvcount x size of recvtype), as Open MPI 5 decides. */
ftc_allgather_algorithm ftc_allgather_decide(int p, size_t block_bytes);

/* ----------------------------------------------------------------------------
 * Allreduce (fault-tolerant path: see docs/ft-allreduce.md)
 *
 * Recursive doubling over the live ranks; a process count that is not a
 * power of two folds the extra ranks into partners first. Every partial
 * value carries the set of ranks whose inputs it combines, which is what
 * recovery from failures builds on.
 *
 * Today: the failure-free path. With ULFM, a rank failure during the call is
 * detected on every survivor (a pending wildcard receive fails within
 * milliseconds) and the call returns MPIX_ERR_PROC_FAILED instead of
 * hanging; finishing the call on the survivors is the next step.
 */

/*
 * Same arguments and semantics as MPI_Allreduce, including MPI_IN_PLACE.
 * Commutative ops only (predefined, or user-defined created commutative):
 * MPI_ERR_OP otherwise, and for an op not defined on the datatype.
 * Predefined datatypes (MPI_ERR_TYPE otherwise). MPI_ERR_COUNT for a
 * negative count, MPI_ERR_BUFFER for a NULL sendbuf or recvbuf with
 * count > 0, MPI_ERR_COMM for a NULL communicator.
 * All survivors get bitwise-identical results: partners always combine as
 * op(lower rank's value, higher rank's value).
 */
int ftc_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, ftc_comm_t comm);

#ifdef __cplusplus
}
#endif

#endif /* FTCOLL_H */
