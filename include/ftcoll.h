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
 * MPI error a transfer returned. With ULFM, once a rank of the communicator
 * has failed (before or during the call): MPIX_ERR_PROC_FAILED on every
 * survivor (ftc_comm_survivors gives a communicator of the live ranks).
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
 * Allreduce, fault-tolerant (see docs/ft-allreduce.md)
 *
 * Recursive doubling over the live ranks; a process count that is not a
 * power of two folds the extra ranks into partners first. Every partial
 * value carries the set of ranks whose inputs it combines (its holdings).
 *
 * With ULFM Open MPI, ranks may die during a call: every survivor still
 * returns MPI_SUCCESS with
 *
 *     result = op applied to the inputs of a set S of ranks,
 *
 * where S contains every rank alive at return and every dead rank whose
 * contribution a survivor already held when the failure was detected.
 * All survivors return bitwise-identical results and the same S; the call
 * reports S and the ranks found dead (ftc_allreduce_last_report). Only if
 * the survivors' data cannot be combined consistently (never seen; it would
 * be a bug) does the call return an error. Later calls run on the survivors
 * with no action from the user; ftc_comm_survivors gives an MPI
 * communicator of them. In strict mode (ftc_allreduce_set_strict or
 * FTCOLL_STRICT=1) "S is not every rank of the communicator" is returned as
 * MPIX_ERR_PROC_FAILED, on every survivor alike, the result still in recvbuf.
 *
 * Without ULFM (stock MPICH, Open MPI without --with-ft=ulfm), the call runs
 * failure-free only: a process failure is the MPI library's to handle.
 *
 * One caveat, inherent to a collective without a closing barrier: a rank
 * whose partner died after the other ranks had already returned finishes
 * when they next enter ftcoll on this communicator (any ftcoll call,
 * ftc_comm_survivors or ftc_comm_free), since only they hold its result.
 */

/*
 * Same arguments and semantics as MPI_Allreduce, including MPI_IN_PLACE.
 * Commutative ops only (predefined, or user-defined created commutative):
 * MPI_ERR_OP otherwise, and for an op not defined on the datatype.
 * Predefined datatypes (MPI_ERR_TYPE otherwise). MPI_ERR_COUNT for a
 * negative count, MPI_ERR_BUFFER for a NULL sendbuf or recvbuf with
 * count > 0, MPI_ERR_COMM for a NULL communicator.
 * Partners always combine as op(lower rank's value, higher rank's value), so
 * every survivor computes the same bits, also for user-defined ops.
 */
int ftc_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, ftc_comm_t comm);

/* What the last ftc_allreduce on a communicator did, as this rank saw it. */
typedef struct {
    int size;              /* ranks of the communicator */
    int contributors;      /* ranks in S */
    int failed_in_call;    /* ranks found dead during this call */
    int alive;             /* ranks alive at return (as agreed by the survivors) */
    int recovery_rounds;   /* recovery rounds this rank ran (0: failure-free) */
    int finished_late;     /* 1: completed by ranks that had already returned */
    double recovery_seconds; /* time from the first detection to return */
} ftc_allreduce_report;

/*
 * Fills `report`; `in_result` and `failed` (each NULL, or `size` ints) get
 * 1 for the ranks in S, and for the ranks found dead during the call.
 * MPI_ERR_OTHER if no allreduce has completed on `comm`.
 */
int ftc_allreduce_last_report(ftc_comm_t comm, ftc_allreduce_report *report, int *in_result,
                              int *failed);

/* Strict mode on (1) or off (0, default). Local call: make it on every rank. */
int ftc_allreduce_set_strict(ftc_comm_t comm, int strict);

/*
 * An MPI communicator of the live ranks, in rank order (collective over the
 * survivors; free it with MPI_Comm_free). With ULFM it is MPIX_Comm_shrink
 * of ftcoll's communicator after the survivors settled any unfinished call;
 * without ULFM, a duplicate.
 */
int ftc_comm_survivors(ftc_comm_t comm, MPI_Comm *survivors);

/*
 * Fault injection (ULFM builds; see FTCOLL_INJECT in the README): replaces
 * the communicator's injection plan with `spec`, e.g.
 * "kill rank=3 call=2 step=1 at=before-send; kill rank=5 at=recovery".
 * A matching rank sends itself SIGKILL at that point. NULL or "" clears it.
 * MPI_ERR_ARG with the reason for a malformed spec. Local call.
 */
int ftc_inject(ftc_comm_t comm, const char *spec);

#ifdef __cplusplus
}
#endif

#endif /* FTCOLL_H */
