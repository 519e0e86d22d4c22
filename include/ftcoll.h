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
 * Every collective below checks its arguments on each rank, as MPI does.
 * MPI_IN_PLACE is accepted only as the send buffer of a call's in-place
 * form (the root's receive buffer of a scatter); anywhere else, a receive
 * buffer or a broadcast's buffer, it is MPI_ERR_BUFFER. A rank that fails
 * its checks returns the error while the others may run the call; its
 * call still counts in the communicator's sequence, so the next calls
 * are every rank's again (README: "Arguments are checked locally").
 */

/*
 * Creates an ftcoll communicator over `comm` (collective over `comm`).
 * Reads the FTCOLL_* environment variables (see README); a bad value fails
 * the call with MPI_ERR_ARG and a message naming the variable and valid values.
 * Intercommunicators and MPI_COMM_NULL are rejected with MPI_ERR_COMM.
 * It succeeds on every rank of `comm` or fails on every one (each step
 * ends in an agreement): a rank with no memory for it fails it on every
 * rank (MPI_ERR_NO_MEM there, an error naming another rank on the others;
 * with FTCOLL_BCAST naming a network tree, whose set-up allocates between
 * its messages, only up to that set-up); with ULFM so
 * does a rank that dies meanwhile, or one dead before the call (on every
 * live rank, MPIX_ERR_PROC_FAILED). Failing so, every survivor
 * then shrinks `comm` (or ftcoll's duplicate of it) once: a death inside
 * the allocation of a communicator's context id leaves Open MPI 5.0
 * waiting for it in every later shrink (docs/pmpi.md), which that clears.
 * Errors come back as codes whatever `comm`'s error handler.
 */
int ftc_comm_create(MPI_Comm comm, ftc_comm_t *out);

/* Frees an ftcoll communicator (collective) and sets *comm to NULL. */
int ftc_comm_free(ftc_comm_t *comm);

/* The private MPI communicator ftcoll works on (do not free it). */
MPI_Comm ftc_comm_mpi(ftc_comm_t comm);

/* This process's rank in `comm`, and the number of ranks (those of the
 * communicator it was made from); -1 for a NULL communicator. */
int ftc_comm_rank(ftc_comm_t comm);
int ftc_comm_size(ftc_comm_t comm);

/*
 * The ranks of `comm` this process knows to be alive (all of them until a
 * failure is found, with ULFM): their number in *count, and the lowest
 * `max` of them, ascending, in `ranks` (NULL when `max` is 0). Local call.
 */
int ftc_comm_live_ranks(ftc_comm_t comm, int *ranks, int max, int *count);

/*
 * Frees an ftcoll communicator on this process alone, without a message to
 * any rank, and sets *comm to NULL: for a layer whose MPI communicator is
 * being freed under it (an attribute's delete callback), where the other
 * ranks may not be freeing theirs. Prefer ftc_comm_free.
 */
void ftc_comm_release_local(ftc_comm_t *comm);

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
 * MPI error a transfer returned. With ULFM and three or more ranks, blocks
 * that come to 128 KiB in all on some ranks and less on others leave the
 * former waiting (they confirm, below): the guard (ftc_guard_set) stops
 * such a call on every rank instead.
 *
 * With ULFM, ranks may die before or during the call: every survivor still
 * returns MPI_SUCCESS, with the blocks of a set S of ranks in place, the
 * same S on every survivor: every survivor's block, and a dead rank's when
 * some survivor had completed the call (it held every block). The report
 * says which blocks are valid (ftc_allreduce_last_report's in_result: S).
 * A block outside S is left as it was when its rank died before the call;
 * when its rank died during the call it may hold part of that rank's data.
 * Later calls run over the survivors. For ranks that finish the call late,
 * each rank keeps a copy of the blocks, or, from 128 KiB of blocks in all,
 * confirms with a dissemination barrier that every rank holds them. The
 * recovery carries the blocks in one message: with ULFM, MPI_ERR_COUNT
 * when the p blocks come to 2 GiB or more. Like the allreduce, the call
 * counts for FTCOLL_INJECT's call=C (step=0: as the rank enters the call;
 * step=1: once every block reached it; 2..: the confirmation's exchanges).
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
 * Allgatherv
 *
 * Algorithm numbers are Open MPI's (coll_tuned_allgatherv_algorithm); each
 * runs the allgather plan of the same name.
 */
typedef enum {
    FTC_ALLGATHERV_AUTO = 0,               /* decision table (Open MPI's fixed rules) */
    FTC_ALLGATHERV_LINEAR = 1,             /* gather to rank 0 + broadcast ("default") */
    FTC_ALLGATHERV_BRUCK = 2,
    FTC_ALLGATHERV_RING = 3,
    FTC_ALLGATHERV_NEIGHBOR_EXCHANGE = 4,  /* even p only, else ring */
    FTC_ALLGATHERV_TWO_PROC = 5,           /* p == 2 only, else the decision table */
    FTC_ALLGATHERV_SPARBIT = 6
} ftc_allgatherv_algorithm;

#define FTC_ALLGATHERV_ALGORITHM_COUNT 7

/*
 * Same arguments and semantics as MPI_Allgatherv, including MPI_IN_PLACE
 * (this rank's block already at displs[rank]), zero counts, any order of
 * displacements and derived datatypes. Errors as ftc_allgather's, and
 * MPI_ERR_ARG for NULL recvcounts or displs, MPI_ERR_COUNT for a negative
 * count or counts that sum past INT_MAX, MPI_ERR_ARG when sendcount x
 * size(sendtype) differs from this rank's recvcounts entry in bytes.
 * Every rank must pass the same recvcounts.
 *
 * With ULFM, ranks may die before or during the call: as ftc_allgather,
 * every survivor returns MPI_SUCCESS with the blocks of one set S in
 * place (ftc_allreduce_last_report's in_result), every survivor's among
 * them; a block outside S is left as it was (its rank died before the
 * call) or may hold part of its rank's data. From 128 KiB of blocks in
 * all the call confirms instead of keeping a copy; with ULFM,
 * MPI_ERR_COUNT when the blocks come to 2 GiB or more. FTCOLL_INJECT's
 * steps are ftc_allgather's.
 */
int ftc_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int displs[],
                   MPI_Datatype recvtype, ftc_comm_t comm);

/* As ftc_allgather_set_algorithm, for ftc_allgatherv (FTCOLL_ALLGATHERV_ALGORITHM). */
int ftc_allgatherv_set_algorithm(ftc_comm_t comm, ftc_allgatherv_algorithm algorithm);

/* Parses a name ("ring", "bruck", "default", ...) or a number ("3").
 * An unknown one returns MPI_ERR_ARG with a message listing the valid names. */
int ftc_allgatherv_algorithm_parse(const char *text, ftc_allgatherv_algorithm *out);

/* "ring", "bruck", ...; "auto" for FTC_ALLGATHERV_AUTO; NULL if out of range. */
const char *ftc_allgatherv_algorithm_name(ftc_allgatherv_algorithm algorithm);

/* What the last ftc_allgatherv on a communicator ran, and why. */
typedef struct {
    ftc_allgatherv_algorithm requested; /* forced algorithm, or FTC_ALLGATHERV_AUTO */
    ftc_allgatherv_algorithm selected;  /* requested, or the decision table's choice */
    ftc_allgatherv_algorithm executed;  /* selected, after any fallback */
    char reason[160];                   /* why executed differs from selected ("" if not) */
} ftc_allgatherv_choice;

int ftc_allgatherv_last_choice(ftc_comm_t comm, ftc_allgatherv_choice *out);

/* The algorithm the decision table picks for p processes whose blocks come
 * to `total_bytes` in all, as Open MPI 5 decides (by total_bytes / p). */
ftc_allgatherv_algorithm ftc_allgatherv_decide(int p, size_t total_bytes);

/* ----------------------------------------------------------------------------
 * Gather
 *
 * Algorithm numbers and names are Open MPI's (coll_tuned_gather_algorithm).
 */
typedef enum {
    FTC_GATHER_AUTO = 0,          /* decision table (Open MPI's fixed rules) */
    FTC_GATHER_LINEAR = 1,        /* every rank sends to the root ("basic_linear") */
    FTC_GATHER_BINOMIAL = 2,      /* subtrees forwarded along a binomial tree */
    FTC_GATHER_LINEAR_SYNC = 3    /* linear, each rank sending once the root asked */
} ftc_gather_algorithm;

#define FTC_GATHER_ALGORITHM_COUNT 4

/*
 * Same arguments and semantics as MPI_Gather, including MPI_IN_PLACE at the
 * root (its block already in its place) and derived datatypes; recvbuf,
 * recvcount and recvtype are read at the root only. Errors: MPI_ERR_COMM
 * (NULL ftc_comm_t), MPI_ERR_ROOT, MPI_ERR_COUNT, MPI_ERR_BUFFER (a NULL
 * buffer with a count, MPI_IN_PLACE off the root), MPI_ERR_TYPE, MPI_ERR_ARG
 * (the root's send and receive blocks differ in bytes), MPI_ERR_TRUNCATE
 * (ranks passed blocks of different sizes), or the MPI error a transfer
 * returned.
 *
 * With ULFM, ranks may die before or during the call, the root included,
 * and every survivor returns MPI_SUCCESS. A living root holds the blocks
 * of a set S in place: every survivor's, and a dead rank's that had
 * reached the root or a survivor still inside the call; a block outside S
 * is left as it was (its rank died before the call) or may hold part of
 * its rank's data. ftc_allreduce_last_report's in_result says which
 * blocks: at the root S, elsewhere this rank's own (after a recovery: the
 * blocks the survivors held). A dead root has nobody to deliver to: the
 * others return MPI_SUCCESS alike, the report naming it dead. For a root
 * that is still inside the call when the others meet, each rank keeps a
 * copy of its own block, or, every few calls (every call from 512 KiB of
 * blocks in all), waits for the root's word that every block arrived.
 * MPI_ERR_COUNT when the p blocks come to 2 GiB or more.
 * FTCOLL_INJECT's call=C counts it; step=0 as the rank enters it, 1 once
 * its subtree's blocks are here, 2 waiting for the root's word.
 */
int ftc_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, ftc_comm_t comm);

/* Forces an algorithm for every later ftc_gather on `comm`
 * (FTC_GATHER_AUTO returns to the decision table; FTCOLL_GATHER_ALGORITHM
 * does the same at ftc_comm_create). Local call: make it on every rank. */
int ftc_gather_set_algorithm(ftc_comm_t comm, ftc_gather_algorithm algorithm);

/* Parses a name ("binomial", "basic_linear" or "linear", ...) or a number
 * ("2"). An unknown one returns MPI_ERR_ARG with a message listing the
 * valid names. */
int ftc_gather_algorithm_parse(const char *text, ftc_gather_algorithm *out);

/* "basic_linear", "binomial", "linear_sync"; "auto" for FTC_GATHER_AUTO;
 * NULL if out of range. */
const char *ftc_gather_algorithm_name(ftc_gather_algorithm algorithm);

/* What the last ftc_gather on a communicator ran: every algorithm serves
 * every process count, so nothing falls back. */
typedef struct {
    ftc_gather_algorithm requested;   /* forced algorithm, or FTC_GATHER_AUTO */
    ftc_gather_algorithm executed;    /* requested, or the decision table's choice */
} ftc_gather_choice;

int ftc_gather_last_choice(ftc_comm_t comm, ftc_gather_choice *out);

/* The algorithm the decision table picks for p processes each contributing
 * `block_bytes` (sendcount x size of sendtype), as Open MPI 5 decides. */
ftc_gather_algorithm ftc_gather_decide(int p, size_t block_bytes);

/*
 * Same arguments and semantics as MPI_Gatherv, including MPI_IN_PLACE at
 * the root and derived datatypes; recvbuf, recvcounts, displs and recvtype
 * are read at the root only. One algorithm, Open MPI's: every rank sends
 * its block straight to the root. Errors: MPI_ERR_COMM (NULL ftc_comm_t),
 * MPI_ERR_ROOT, MPI_ERR_COUNT (a negative count, a block of 2 GiB or
 * more), MPI_ERR_BUFFER (a NULL buffer with a count, MPI_IN_PLACE off the
 * root), MPI_ERR_TYPE, MPI_ERR_ARG (recvcounts or displs NULL at the root;
 * the root's send block differs in bytes from recvcounts[root]),
 * MPI_ERR_TRUNCATE at the root alone, as in MPI (a rank sent more or fewer
 * bytes than its recvcounts entry: the root still takes the other blocks
 * and the others return MPI_SUCCESS, whatever the two sizes), or the MPI
 * error a transfer returned.
 *
 * With ULFM, ranks may die before or during the call, the root included,
 * and every survivor returns MPI_SUCCESS, as for ftc_gather: a living root
 * holds in place the blocks of S (every survivor's, and a dead rank's that
 * the root had taken: it takes them in rank order from its own, and a
 * block that landed out of that order when the call stopped is not
 * counted); a block outside S is left as it was or may hold part of its
 * rank's data; ftc_allreduce_last_report's in_result is S at the root.
 * A dead root has nobody to deliver to: the others return MPI_SUCCESS
 * alike. For a root still inside the call when the others meet, each rank
 * keeps a copy of its own block of up to 16 KiB; a larger block, and every
 * block every 64th call, waits instead for the root's word that it
 * arrived. FTCOLL_INJECT's call=C counts it; step=0 as the rank enters it,
 * 1 once its block is sent (at the root: once every block arrived), 2
 * waiting for the root's word.
 */
int ftc_gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                ftc_comm_t comm);

/* ----------------------------------------------------------------------------
 * Scatter and scatterv
 *
 * Algorithm numbers and names are Open MPI's (coll_tuned_scatter_algorithm);
 * its linear_nb (3) is basic_linear here, whose sends are nonblocking.
 */
typedef enum {
    FTC_SCATTER_AUTO = 0,          /* decision table (Open MPI's fixed rules) */
    FTC_SCATTER_LINEAR = 1,        /* the root sends every rank its block ("basic_linear") */
    FTC_SCATTER_BINOMIAL = 2       /* subtrees' blocks passed down a binomial tree */
} ftc_scatter_algorithm;

#define FTC_SCATTER_ALGORITHM_COUNT 3

/*
 * Same arguments and semantics as MPI_Scatter, including MPI_IN_PLACE as
 * the root's recvbuf and derived datatypes; sendbuf, sendcount and
 * sendtype are read at the root only. It runs Open MPI's linear or
 * binomial scatter, chosen by its rules (ftc_scatter_decide): the linear
 * flow is ftc_scatterv's with every block sendcount elements end to end;
 * the binomial tree passes each subtree's blocks, packed, to the rank at
 * its top, which keeps its own and passes the rest on. Errors as
 * ftc_scatterv's, MPI_ERR_ARG when the root's sendcount x size(sendtype)
 * differs from its recvcount x size(recvtype). A rank whose recvcount x
 * size(recvtype) differs from the root's block gets MPI_ERR_TRUNCATE, and
 * over the binomial tree so does every rank below it, whose blocks it
 * cannot pass on; that holds where every rank runs the same tree (forced,
 * or both sizes in the same cell of the decision table). Where the sizes
 * pick different trees the program is erroneous as in MPI, and the call
 * may hang as Open MPI's would: FTCOLL_WATCHDOG turns that into a
 * diagnosed stop, and at a call that checks in the guard stops every rank
 * cleanly, naming the rank.
 *
 * With ULFM it survives deaths as ftc_scatterv does (below); over the
 * binomial tree a rank's block may also come, in the recovery, from the
 * rank above it that holds it while still inside the call (a rank that
 * passed blocks on and returned keeps no copy of them: only the root
 * does). ftc_allreduce_last_report's in_result at a rank of the tree
 * still inside the call when the others met also names the blocks of its
 * subtree it held.
 */
int ftc_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, ftc_comm_t comm);

/* Forces an algorithm for every later ftc_scatter on `comm`
 * (FTC_SCATTER_AUTO returns to the decision table; FTCOLL_SCATTER_ALGORITHM
 * does the same at ftc_comm_create). Local call: make it on every rank. */
int ftc_scatter_set_algorithm(ftc_comm_t comm, ftc_scatter_algorithm algorithm);

/* Parses a name ("binomial", "basic_linear", "linear" or "linear_nb") or a
 * number ("2"). An unknown one returns MPI_ERR_ARG with a message listing
 * the valid names. */
int ftc_scatter_algorithm_parse(const char *text, ftc_scatter_algorithm *out);

/* "basic_linear", "binomial"; "auto" for FTC_SCATTER_AUTO; NULL if out of
 * range. */
const char *ftc_scatter_algorithm_name(ftc_scatter_algorithm algorithm);

/* What the last ftc_scatter on a communicator ran. The binomial tree
 * carries a subtree's blocks in one message: where the blocks of every
 * live rank come to 2 GiB or more, linear runs instead; so it does with
 * the root dead (no block moves). */
typedef struct {
    ftc_scatter_algorithm requested;  /* forced algorithm, or FTC_SCATTER_AUTO */
    ftc_scatter_algorithm selected;   /* requested, or the decision table's choice */
    ftc_scatter_algorithm executed;   /* selected, after any fallback */
} ftc_scatter_choice;

int ftc_scatter_last_choice(ftc_comm_t comm, ftc_scatter_choice *out);

/* The algorithm the decision table picks for p processes each receiving
 * `block_bytes` (recvcount x size of recvtype), as Open MPI 5 decides;
 * ftc_scatter asks it for the live ranks. */
ftc_scatter_algorithm ftc_scatter_decide(int p, size_t block_bytes);

/*
 * Same arguments and semantics as MPI_Scatterv, including MPI_IN_PLACE as
 * the root's recvbuf (its block stays in sendbuf) and derived datatypes;
 * sendbuf, sendcounts, displs and sendtype are read at the root only. One
 * algorithm, Open MPI's: the root sends every rank its block straight from
 * sendbuf. Errors: MPI_ERR_COMM (NULL ftc_comm_t), MPI_ERR_ROOT,
 * MPI_ERR_COUNT (a negative count or sendcounts entry, a block of 2 GiB or
 * more), MPI_ERR_BUFFER (a NULL buffer with a count, MPI_IN_PLACE off the
 * root or as the root's sendbuf), MPI_ERR_TYPE, MPI_ERR_ARG (sendcounts or displs NULL at the root;
 * the root's sendcounts[root] bytes differ from its recvcount's),
 * MPI_ERR_TRUNCATE at a rank alone, as in MPI (the root sent it more or
 * fewer bytes than its recvcount: the others return MPI_SUCCESS), or the
 * MPI error a transfer returned.
 *
 * With ULFM, ranks may die before or during the call, the root included:
 * every survivor whose block reached a survivor returns MPI_SUCCESS with
 * it (a survivor still inside the call when the others meet gets it from
 * the root, or from the copies a root past the call kept); a survivor
 * whose block no survivor holds, because the root died before sending
 * it, returns MPIX_ERR_PROC_FAILED, its recvbuf undefined: every survivor
 * alike when the root died before any block left it, or before the call.
 * ftc_allreduce_last_report's in_result says whether the rank's block
 * arrived (at the root: every rank). With three or more live ranks the
 * root keeps a copy of the blocks up to their share of 16 KiB (16 KiB
 * over the other live ranks); a larger block's rank acknowledges it
 * instead, and every 64th call every rank acknowledges and waits for the
 * root's word. FTCOLL_INJECT's call=C counts it; step=0 as the rank
 * enters it, 1 once its block arrived (at the root: once every send
 * completed), 2 acknowledging it or waiting for the word.
 */
int ftc_scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, ftc_comm_t comm);

/* ----------------------------------------------------------------------------
 * Alltoall and alltoallv
 *
 * Algorithm numbers and names are Open MPI's (coll_tuned_alltoall_algorithm)
 * where ftcoll has them.
 */
typedef enum {
    FTC_ALLTOALL_AUTO = 0,        /* decision table (Open MPI's fixed rules) */
    FTC_ALLTOALL_LINEAR = 1,      /* every receive and send posted at once */
    FTC_ALLTOALL_PAIRWISE = 2,    /* n - 1 steps, one partner each way per step */
    FTC_ALLTOALL_MODIFIED_BRUCK = 3   /* ceil(log2 n) steps, blocks relayed; ftc_alltoall
                                       * only (ftc_alltoallv runs linear instead) */
} ftc_alltoall_algorithm;

#define FTC_ALLTOALL_ALGORITHM_COUNT 4

/*
 * Same arguments and semantics as MPI_Alltoall, including MPI_IN_PLACE as
 * sendbuf (the blocks to send are recvbuf's, replaced by those received)
 * and derived datatypes. Errors: MPI_ERR_COMM (NULL ftc_comm_t),
 * MPI_ERR_COUNT (negative, a block of 2 GiB or more, or in place 2 GiB of
 * blocks or more), MPI_ERR_BUFFER (a NULL buffer with a count, MPI_IN_PLACE
 * as recvbuf), MPI_ERR_TYPE, MPI_ERR_ARG (this rank's sendcount x
 * size(sendtype) differs from its recvcount x size(recvtype)),
 * MPI_ERR_TRUNCATE at a rank alone, as in MPI (a block of another size
 * arrived: the others return MPI_SUCCESS; over modified Bruck, whose
 * relayed blocks carry the error on, every rank returns it), or the MPI
 * error a transfer returned.
 *
 * With ULFM, ranks may die before or during the call, and every survivor
 * returns MPI_SUCCESS with the block of every survivor in place, and a
 * dead rank's that had reached it; a block outside that set is left as it
 * was or may hold part of its rank's data. ftc_allreduce_last_report's
 * in_result says which blocks are valid, on each rank its own (they may
 * differ: a rank that died part way through its sends reached some ranks
 * and not others). A survivor still inside the call when the others meet
 * gets each missing block from its sender: from sendbuf if the sender is
 * inside the call too, else from the copy it kept. With three or more
 * live ranks each rank keeps a copy of its blocks for the others up to
 * 64 KiB in all (64 KiB over the other live ranks each); a larger block's
 * receiver acknowledges it instead, and its sender waits for that.
 * FTCOLL_INJECT's call=C counts it; step=0 as the rank enters it, 1 once
 * every block arrived here, 2 acknowledging or waiting for acknowledgements,
 * and under the modified Bruck 3 + k at its exchange k (before-send, or
 * after-send once that exchange's message left).
 */
int ftc_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, ftc_comm_t comm);

/*
 * Same arguments and semantics as MPI_Alltoallv, including MPI_IN_PLACE
 * as sendbuf (sendcounts, sdispls and sendtype are then ignored) and
 * derived datatypes; counts may be zero. Block r goes from sendbuf +
 * sdispls[r] x extent(sendtype), sendcounts[r] elements, and block r
 * arrives at recvbuf + rdispls[r] x extent(recvtype), recvcounts[r]
 * elements. Errors as ftc_alltoall's, MPI_ERR_ARG also for a NULL counts
 * or displacements array. After a death, as ftc_alltoall.
 */
int ftc_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, ftc_comm_t comm);

/* Forces an algorithm for every later ftc_alltoall and ftc_alltoallv on
 * `comm` (FTC_ALLTOALL_AUTO returns to the decision table;
 * FTCOLL_ALLTOALL_ALGORITHM does the same at ftc_comm_create). Open MPI
 * has no Bruck alltoallv: forced, FTC_ALLTOALL_MODIFIED_BRUCK runs linear
 * in ftc_alltoallv, as its last choice's `executed` says. Local call: make
 * it on every rank. */
int ftc_alltoall_set_algorithm(ftc_comm_t comm, ftc_alltoall_algorithm algorithm);

/* Parses a name ("linear", "basic_linear", "pairwise", "modified_bruck",
 * "bruck") or a number ("2").
 * An unknown one returns MPI_ERR_ARG with a message listing the valid
 * names. */
int ftc_alltoall_algorithm_parse(const char *text, ftc_alltoall_algorithm *out);

/* "linear", "pairwise", "modified_bruck"; "auto" for FTC_ALLTOALL_AUTO;
 * NULL if out of range. */
const char *ftc_alltoall_algorithm_name(ftc_alltoall_algorithm algorithm);

/* What the last ftc_alltoall or ftc_alltoallv on a communicator ran. */
typedef struct {
    ftc_alltoall_algorithm requested;   /* forced algorithm, or FTC_ALLTOALL_AUTO */
    ftc_alltoall_algorithm executed;    /* requested, or the decision table's choice */
} ftc_alltoall_choice;

int ftc_alltoall_last_choice(ftc_comm_t comm, ftc_alltoall_choice *out);

/* The algorithm the decision table picks for p processes each sending
 * blocks of `block_bytes` (sendcount x size of sendtype), as Open MPI 5
 * decides: its linear and linear_sync (which posts every request at once
 * unless told otherwise) are linear, its pairwise and two_proc pairwise,
 * its modified Bruck the modified Bruck (from 16 ranks on, blocks under
 * 512 B to 2 KiB by the rank count, and on 16 to 31 ranks from 4 B:
 * select.c). */
ftc_alltoall_algorithm ftc_alltoall_decide(int p, size_t block_bytes);

/* The same for ftc_alltoallv, which Open MPI decides by p alone. */
ftc_alltoall_algorithm ftc_alltoallv_decide(int p);

/* ----------------------------------------------------------------------------
 * Reduce
 * ------------------------------------------------------------------------- */

/*
 * Same arguments and semantics as MPI_Reduce, including MPI_IN_PLACE as
 * the root's sendbuf (a root's sendbuf equal to its recvbuf, which MPI
 * forbids, is taken as in place); recvbuf is read at the root only. The
 * datatype and op as ftc_allreduce's: predefined datatypes, commutative
 * ops. One algorithm: a binomial tree, each rank combining its children's
 * values with its own and sending the result to its parent. Errors: MPI_ERR_COMM
 * (NULL ftc_comm_t), MPI_ERR_ROOT, MPI_ERR_COUNT (negative, or a value of
 * 2 GiB or more: the recovery's messages carry less), MPI_ERR_TYPE,
 * MPI_ERR_OP, MPI_ERR_BUFFER (a NULL buffer with a count, MPI_IN_PLACE off
 * the root), or the MPI error a transfer returned.
 *
 * With ULFM, ranks may die before or during the call. A living root gets
 * op over the inputs of a set S, as ftc_allreduce's: every survivor's,
 * and a dead rank's that had reached a survivor still inside the call
 * (ftc_allreduce_last_report's in_result: S at the root). The others
 * return MPI_SUCCESS. A dead root, before or during the call, has nobody
 * to deliver to: every survivor returns MPI_SUCCESS alike, the report
 * naming it dead (a rank that passed its value on returns before it could
 * learn of the root's death, so no rank can return an error that all
 * would share without waiting for the root on every call). For a root still inside the call when the others
 * meet, each rank keeps a copy of its own input, or, every few calls
 * (every call from 512 KiB, and every call with a user-defined op, which
 * may be freed once the call returns), waits for the root's word that
 * every value arrived. FTCOLL_INJECT's call=C counts it; step=0 as the
 * rank enters it, 1 once its subtree's values are combined here, 2
 * waiting for the root's word.
 */
int ftc_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, ftc_comm_t comm);

/* ----------------------------------------------------------------------------
 * Reduce_scatter and reduce_scatter_block
 * ------------------------------------------------------------------------- */

/*
 * Same arguments and semantics as MPI_Reduce_scatter_block, including
 * MPI_IN_PLACE as sendbuf (the whole vector is recvbuf's; its first
 * recvcount elements get the result); the datatype and op as
 * ftc_allreduce's: predefined datatypes, commutative ops. Two algorithms
 * (ftc_reduce_scatter_algorithm): recursive halving, ended by a
 * confirmation with ULFM on three ranks or more, on two ranks and from a
 * 4 KiB vector; else the fault-tolerant allreduce of the whole vector (p x
 * recvcount elements), then this rank's block of it. Errors: MPI_ERR_COMM
 * (NULL ftc_comm_t), MPI_ERR_COUNT (negative, or a vector of 2 GiB or
 * more), MPI_ERR_TYPE, MPI_ERR_OP, MPI_ERR_BUFFER (a NULL buffer with a
 * count), MPI_ERR_TRUNCATE (under recursive halving, a message of the
 * wrong size: ranks that disagree on the counts), or the MPI error a
 * transfer returned.
 *
 * With ULFM, ranks may die before or during the call: as ftc_allreduce,
 * every survivor returns MPI_SUCCESS with its block of op over the inputs
 * of S, the same S on every survivor (ftc_allreduce_last_report's
 * in_result), and strict mode applies. FTCOLL_INJECT counts it as an
 * allreduce (its steps and rounds; recursive halving's steps are
 * fold-in, 0, 1, .., fold-out and confirm, and a restart after a death is
 * one more call).
 */
int ftc_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, ftc_comm_t comm);

/*
 * Same arguments and semantics as MPI_Reduce_scatter: rank r gets
 * recvcounts[r] elements, the blocks in rank order in the vector (counts
 * may be zero); MPI_IN_PLACE as sendbuf. As ftc_reduce_scatter_block
 * otherwise, MPI_ERR_ARG also for a NULL recvcounts.
 */
int ftc_reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, ftc_comm_t comm);

/*
 * The reduce-scatter's algorithms. FTCOLL_REDUCE_SCATTER_ALGORITHM (a name
 * or number; the ranks of a communicator must agree) forces one for the
 * communicators created after it is set.
 */
typedef enum {
    FTC_REDUCE_SCATTER_AUTO = 0,               /* by the rules above */
    FTC_REDUCE_SCATTER_ALLREDUCE = 1,          /* the allreduce of the whole vector */
    FTC_REDUCE_SCATTER_RECURSIVE_HALVING = 2   /* halving spans, then a confirmation */
} ftc_reduce_scatter_algorithm;

#define FTC_REDUCE_SCATTER_ALGORITHM_COUNT 3

/* "auto", "allreduce", "recursive_halving"; NULL if out of range. */
const char *ftc_reduce_scatter_algorithm_name(ftc_reduce_scatter_algorithm algorithm);

/* The algorithm the last ftc_reduce_scatter(_block) on `comm` ran (its
 * first part, after a death: recursive halving restarts by the allreduce).
 * MPI_ERR_COMM for a NULL comm, MPI_ERR_ARG for a NULL out or before any. */
int ftc_reduce_scatter_last_algorithm(ftc_comm_t comm, ftc_reduce_scatter_algorithm *executed);

/* ----------------------------------------------------------------------------
 * Scan and exscan
 * ------------------------------------------------------------------------- */

/*
 * Same arguments and semantics as MPI_Scan: rank r gets op over the inputs
 * of ranks 0..r, combined in rank order, so the op need not be
 * commutative (a user's op too); MPI_IN_PLACE as sendbuf. Predefined
 * datatypes. A chain down the ranks passing the prefix, as Open MPI's
 * linear scan; with ULFM on three ranks or more some calls end in a
 * dissemination barrier of empty messages. A room of two inputs is kept
 * on the communicator. Errors: MPI_ERR_COMM (NULL ftc_comm_t),
 * MPI_ERR_COUNT (negative, or with ULFM p blocks of count elements of
 * 2 GiB or more: a recovery carries them),
 * MPI_ERR_TYPE, MPI_ERR_OP (MPI_OP_NULL, invalid, not defined on the
 * type), MPI_ERR_BUFFER (a NULL buffer with a count), or the MPI error a
 * transfer returned.
 *
 * With ULFM, ranks may die before or during the call: every survivor
 * returns MPI_SUCCESS, and rank r gets op over the inputs of S's ranks up
 * to r, in rank order, grouped as Open MPI's linear scan groups them
 * (((a0 op a1) op a2) ...). S holds every survivor's input, and a dead
 * rank's where the longest prefix a survivor made or kept combines it; it
 * is the same up to every survivor (two survivors r < q agree on S's
 * ranks up to r). ftc_allreduce_last_report's in_result is S up to this
 * rank: the ranks above it are never named. FTCOLL_INJECT's steps: 0
 * entering, 1 once the prefix is made, 2 in the tokens.
 */
int ftc_scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             ftc_comm_t comm);

/*
 * Same arguments and semantics as MPI_Exscan: rank r gets op over the
 * inputs of ranks 0..r-1; rank 0's recvbuf is left as it was (MPI: it is
 * undefined); MPI_IN_PLACE as sendbuf. As ftc_scan otherwise: after
 * deaths, op over S's ranks before r, and where S has none (every rank
 * before r dead, its input lost) recvbuf is undefined as rank 0's is (left
 * as it was, or holding part of a prefix whose sender died sending it;
 * in place: left as it was), which in_result shows. Rank 0's recvbuf may
 * be NULL, unless in place.
 */
int ftc_exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               ftc_comm_t comm);

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

/* What the last fault-tolerant call on a communicator (allreduce, reduce,
 * reduce_scatter(_block), scan, exscan, allgather(v), gather(v), scatter(v),
 * alltoall(v), broadcast, barrier) did, as this
 * rank saw it. */
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
 * 1 for the ranks in S (for an allgather or at a gather's root: the valid
 * blocks; for a scatter: whether this rank's block arrived; for an
 * alltoall: the senders whose blocks arrived here; at a reduce's
 * root: the inputs its result combines), and for the ranks found dead
 * during the call. MPI_ERR_OTHER if
 * no fault-tolerant call has completed on `comm`.
 */
int ftc_allreduce_last_report(ftc_comm_t comm, ftc_allreduce_report *report, int *in_result,
                              int *failed);

/*
 * How many fault-tolerant calls on `comm` (any of the above) so far wrote a
 * report with recovery_rounds > 0 on this rank: a test that
 * costs nothing, after a call, of whether ftc_allreduce_last_report has
 * news of a failure. A broadcast from a root dead since an earlier call
 * fails without a round, and the meetings that settle outside a call
 * (ftc_comm_survivors, ftc_comm_free) write no report: neither counts.
 * -1 for a NULL communicator.
 */
long ftc_comm_recovered_calls(ftc_comm_t comm);

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
 * A matching rank sends itself SIGKILL at that point ("spin" instead of
 * "kill": it loops there forever, a hang for the watchdog). NULL or ""
 * clears it.
 * MPI_ERR_ARG with the reason for a malformed spec. Local call.
 */
int ftc_inject(ftc_comm_t comm, const char *spec);

/* ----------------------------------------------------------------------------
 * Broadcast and barrier
 *
 * With ULFM both survive the same failures as the allreduce and end alike
 * on every survivor. The broadcast moves the data as a binomial tree does
 * (ceil(log2 p) steps, the user's buffer and datatype on the wire), with an
 * empty message beside it so that no rank returns before every live rank
 * entered, or, for large messages on many ranks (chosen as Open MPI
 * chooses; FTCOLL_BCAST_PLAN forces one), by scatter and ring allgather;
 * after a failure the allreduce's recovery finishes it from
 * whichever survivors hold the root's data. The barrier is an allreduce of
 * no element. Both count as fault-tolerant calls for FTCOLL_INJECT's call=C
 * (the broadcast's step=S: its steps from 0) and write the report
 * ftc_allreduce_last_report reads (for a broadcast, S is {root} when its
 * data reached the survivors, else empty). Without ULFM they are MPI_Bcast
 * and MPI_Barrier on ftcoll's private communicator. Both can be guarded.
 */

/*
 * Same arguments and semantics as MPI_Bcast (derived datatypes included).
 * MPI_ERR_COUNT, MPI_ERR_TYPE (null, uncommitted), MPI_ERR_ROOT (not a rank
 * of the communicator), MPI_ERR_BUFFER, MPI_ERR_COMM. With ULFM: if the
 * root died before any survivor held its data, MPIX_ERR_PROC_FAILED on
 * every survivor, their buffers' contents undefined (as after any MPI
 * error: a transfer the death cut short may have written part of the
 * root's data); otherwise every survivor gets the data. Costs ceil(log2 p) steps of the whole message with ULFM (large
 * messages: about twice the message per rank), and a packed copy of the
 * data kept for ranks that finish the call late.
 */
int ftc_bcast(void *buf, int count, MPI_Datatype datatype, int root, ftc_comm_t comm);

/* Returns once every live rank has entered (MPI_ERR_COMM for NULL). */
int ftc_barrier(ftc_comm_t comm);

/* ----------------------------------------------------------------------------
 * Broadcast trees that follow the network (see docs/mst-bcast.md)
 *
 * ftc_bcast can run over a tree instead: binomial (MPICH's), two-level
 * (MagPIe's: one wide-area hop per site, sites from the topology file or
 * the hosts), the minimum spanning tree of the measured latencies (built
 * by the distributed GHS algorithm, and, with check=N, re-measured and
 * repaired by the distributed adaptation every N broadcasts), the
 * earliest-completion tree of the measured latencies, or "tree": of those
 * last two, the one predicted to finish first from the call's root. A
 * topology file emulates a wide-area network on one host: ftcoll delays
 * each of its messages by its channel's latency. With ULFM a tree broadcast
 * survives process failures as the default broadcast does (the same
 * outcome on every survivor); after a death it runs over the survivors'
 * tree, built on the set-up's latencies (the MST: each dead rank's
 * subtrees re-attached by their cheapest channels), and measures and
 * adapts no more.
 */

/*
 * Collective on `comm`, with the same arguments everywhere (else MPI_ERR_ARG
 * on every rank). `algorithm`: "auto", "binomial", "two-level", "mst",
 * "ecef" or "tree" (NULL: FTCOLL_BCAST's). `settings`:
 * "check=N,threshold=P,probe=all|cliques,pings=K,floor=US,smooth=A" (NULL:
 * FTCOLL_TREE's). `topology`: a topology file (NULL: FTCOLL_TOPOLOGY's; ""
 * for none); a malformed file is MPI_ERR_ARG with its line and the reason.
 * The latencies are measured and the tree built here, before the first
 * broadcast (ftc_comm_create does the same when FTCOLL_BCAST or
 * FTCOLL_TOPOLOGY is set).
 */
int ftc_bcast_configure(ftc_comm_t comm, const char *algorithm, const char *settings,
                        const char *topology);

enum { FTC_BCAST_MESSAGE_KINDS = 25 };

/* This rank's share of the tree broadcasts so far on `comm`. */
typedef struct {
    long calls;                 /* tree broadcasts */
    double build_seconds;       /* first measurement and construction */
    double monitor_seconds;     /* later measurements (check=N) */
    double adapt_seconds;       /* adaptation, its end detected included */
    double bcast_seconds;       /* moving the data */
    int rounds;                 /* checks that found changes */
    int changes;                /* changed channels handled */
    long sent[FTC_BCAST_MESSAGE_KINDS];   /* this rank's messages by kind */
    char last_tree[16];         /* the tree the last call used */
    double last_predicted;      /* its predicted time, seconds (0 if none) */
    double worst_error;         /* with a topology: the largest |measured - emulated|
                                 * one-way latency seen, seconds */
} ftc_bcast_stats;

int ftc_bcast_get_stats(ftc_comm_t comm, ftc_bcast_stats *stats);

/* "Initiate", "Test", ... ("?" out of range): the names of sent[]'s kinds. */
const char *ftc_bcast_message_name(int kind);

/* ----------------------------------------------------------------------------
 * Guarded collectives: a clean stop when a rank fails, an abort with a
 * diagnosis when a rank stops answering (see docs/guard.md)
 *
 * With the guard on (ftc_guard_set or FTCOLL_GUARD="every=1,timeout=30"),
 * every guarded ftcoll collective starts with a check-in: the ranks report
 * along a tree, with timeouts, whether they are well, and rank 0 decides.
 *   - Everyone checked in, nobody raised an error, arguments alike: the
 *     collective runs.
 *   - Everyone checked in, some rank raised an error (ftc_raise_error, or
 *     bad arguments to this call), or ranks passed arguments MPI requires
 *     alike unlike each other (the root, count x the datatype's size, a
 *     vector of counts, a reduction's datatype or predefined op): the stop
 *     handler runs on every rank and the call returns FTC_ERR_STOPPED on
 *     every rank, the same call everywhere; ftc_guard_last_report names
 *     the ranks and their messages.
 *     Every later collective on the communicator returns FTC_ERR_STOPPED too.
 *   - A rank did not check in in time, or ranks are in different
 *     collectives: rank 0 prints a diagnosis naming them and where the
 *     others wait, and the whole job ends with MPI_Abort.
 * It needs nothing from MPI beyond point-to-point messages: it works on any
 * MPI library.
 */

/* The error class of a stopped call (an MPI error class ftcoll adds with
 * MPI_Add_error_class when the first ftcoll communicator is created; the
 * same value on every rank). Compare return codes with it directly: Open
 * MPI 5's MPI_Error_class maps classes added by a library to
 * MPI_ERR_UNKNOWN. MPI_Error_string describes it. */
int ftc_err_stopped(void);
#define FTC_ERR_STOPPED (ftc_err_stopped())

/*
 * Guard every `every`-th collective on `comm` (1: every one; 0: off, the
 * default) with a check-in that waits at most `timeout` seconds (> 0) for
 * rank 0's decision. Local call: make the same call on every rank.
 */
int ftc_guard_set(ftc_comm_t comm, int every, double timeout);

/*
 * The job must end within `seconds` from now: a check-in then waits at most
 * 20% of the time left (when it is less than the timeout). 0 forgets it.
 */
int ftc_guard_set_time_left(ftc_comm_t comm, double seconds);

/* A check-in with no collective after it (collective; the guard need not be
 * on): MPI_SUCCESS, or FTC_ERR_STOPPED on every rank if a rank raised an
 * error. */
int ftc_guard_check(ftc_comm_t comm);

/*
 * Raises an error on this rank: every rank stops at the next check-in
 * (every rank's call returns FTC_ERR_STOPPED). The message (printf format)
 * is kept for the report; the first one per rank is reported.
 */
int ftc_raise_error(ftc_comm_t comm, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Emits a warning: printed on stderr with the rank, counted. When the
 * communicator is freed, rank 0 prints how many warnings each rank emitted,
 * so that a warning seen on one rank only does not go unnoticed.
 */
int ftc_warn(ftc_comm_t comm, const char *format, ...) __attribute__((format(printf, 2, 3)));

enum { FTC_GUARD_LISTED = 8, FTC_GUARD_MESSAGE_MAX = 200 };

/* A stop, as every rank sees it: the same on every rank. */
typedef struct {
    long check;                 /* the check-in's number on the communicator, from 1 */
    int error_ranks;            /* ranks that raised an error (a rank named for
                                 * arguments unlike the others' counts as one) */
    int errors;                 /* errors raised, all ranks together */
    int warnings;               /* warnings emitted so far, all ranks together */
    int listed;                 /* error_rank[] and message[] filled, lowest ranks first */
    int error_rank[FTC_GUARD_LISTED];
    char message[FTC_GUARD_LISTED][FTC_GUARD_MESSAGE_MAX];
} ftc_stop_report;

/* Runs on every rank when a check-in decides to stop, before the call
 * returns FTC_ERR_STOPPED: the place to save the application's state. */
typedef void (*ftc_stop_handler)(ftc_comm_t comm, const ftc_stop_report *report, void *arg);

/* Registers the stop handler (NULL removes it). Local call. */
int ftc_set_stop_handler(ftc_comm_t comm, ftc_stop_handler handler, void *arg);

/* The report of the stop on `comm`; MPI_ERR_OTHER if it has not stopped. */
int ftc_guard_last_report(ftc_comm_t comm, ftc_stop_report *report);

/* This rank's share of the guard's work on `comm` so far. */
typedef struct {
    long checks;                /* check-ins run */
    int warnings;               /* ftc_warn calls on this rank */
    int stopped;                /* 1 once a check-in decided to stop */
} ftc_guard_stats;

int ftc_guard_get_stats(ftc_comm_t comm, ftc_guard_stats *stats);

/* 1 once ftcoll has called MPI_Abort in this process: an exit handler must
 * not call MPI_Finalize then (it would wait for ranks that are gone). */
int ftc_aborted(void);

/* Registers an exit handler that calls MPI_Finalize at exit() unless MPI is
 * finalized already or ftcoll aborted the job: a program that leaves by
 * exit() without MPI_Finalize still ends MPI cleanly. */
int ftc_finalize_at_exit(void);

/* For a layer that returns from the program's MPI_Finalize without
 * finalizing MPI (it finalizes later, at exit, itself): from this call on,
 * the handler of ftc_finalize_at_exit leaves MPI_Finalize to that layer. */
void ftc_finalize_deferred(void);

/* ----------------------------------------------------------------------------
 * Watchdog: every ftcoll collective on a communicator can run under a
 * deadline. A call still running at its deadline is reported on stderr
 * (which collective, its call number, its step, the rank it waits for) and
 * then either the job is aborted, or (ULFM builds) the communicator is
 * revoked: every rank's call returns MPIX_ERR_REVOKED and the application's
 * own recovery takes over. Off by default; FTCOLL_WATCHDOG="deadline=60".
 */
typedef enum { FTC_WATCHDOG_ABORT = 0, FTC_WATCHDOG_REVOKE = 1 } ftc_watchdog_action;

/* `deadline` seconds per call (0: off). MPI_ERR_ARG for a negative deadline,
 * or FTC_WATCHDOG_REVOKE without ULFM. Local call. */
int ftc_watchdog_set(ftc_comm_t comm, double deadline, ftc_watchdog_action action);

#ifdef __cplusplus
}
#endif

#endif /* FTCOLL_H */
