/*
 * External-kill torture, through ftcoll's API (driven by torture.py).
 *
 * Every rank makes CALLS back-to-back ftc_allreduce calls while the driver
 * SIGKILLs ranks from outside at random instants. Vector lengths cycle over
 * 1, 3, 7, 64, 513, 1000, 8192 (or one fixed length), operations over
 * MPI_SUM on doubles, MPI_MAX on ints and doubles and a user-defined
 * commutative sum of long longs, half of them with MPI_IN_PLACE. Inputs are
 * a deterministic function of (rank, call, element) and every partial sum
 * stays exact, so each survivor recomputes the exact result over the S the
 * call reports and compares every element, bit for bit. Every 16 calls an
 * ftc_bcast (every element checked, or a uniform MPIX_ERR_PROC_FAILED when
 * its root died first) and an ftc_barrier come between the allreduces.
 *
 * With --collective bcast every call is an ftc_bcast instead: its root a
 * pseudo-random rank (a dead one too: every survivor then gets the error),
 * 1, 1000 and 100000 doubles in turn, every element checked, or the
 * uniform error with the buffer untouched; one checked ftc_allreduce ends
 * the loop (its S is the line's).
 *
 * With --collective allgather every call is an ftc_allgather of 1 .. 4096
 * ints per block, every other one in place: every block of the call's S
 * (the valid blocks, reported) checked, and the block of every rank known
 * dead before the call untouched. With --collective allgatherv the same
 * calls are ftc_allgatherv's: rank r's block shorter by r mod 4 ints, and
 * empty for r = 1 mod 3 on every third call, the blocks in reverse rank
 * order, each in a region of the longest block's length.
 *
 * With --collective gather every call is an ftc_gather of the allgather's
 * lengths to a pseudo-random root (a dead one too), in place at the root
 * every other call. The root checks every block of its S exact, the block
 * of every rank known dead before the call untouched, and that S holds
 * every rank not reported dead; the others have nothing to check but
 * MPI_SUCCESS. One checked ftc_allreduce ends the loop (its S is the
 * line's). With --collective gatherv the same calls are ftc_gatherv's of
 * the allgatherv's blocks.
 *
 * With --collective scatterv every other pair of calls is an ftc_scatterv
 * of the allgatherv's blocks from such a root (a dead one too), the others
 * ftc_scatter's of the allgather's, in place at the root every other call:
 * every rank checks its block exact and the rest of its buffer untouched,
 * or, only with the root dead, accepts MPIX_ERR_PROC_FAILED with its block
 * outside the report's S; the root checks its send buffer unchanged. One
 * checked ftc_allreduce ends the loop.
 *
 * With --collective reduce every call is an ftc_reduce of the allreduce's
 * kinds and lengths to such a root (a dead one too: nobody then gets a
 * result, and every survivor returns MPI_SUCCESS). The root checks every
 * element exact over its S and that S holds every rank not reported dead;
 * the others have nothing to check but MPI_SUCCESS. One checked
 * ftc_allreduce ends the loop.
 *
 * With --collective alltoall every call is an ftc_alltoall of the
 * allgather's lengths, every other one in place; with alltoallv an
 * ftc_alltoallv of blocks some shorter or empty, in reverse rank order.
 * Every rank checks every block the report says valid exact, that those
 * hold every rank not reported dead, the block of every rank known dead
 * before the call untouched (in place: as it was), and its send buffer
 * unchanged. One checked ftc_allreduce ends the loop.
 *
 * With --collective reduce_scatter every call reduces the allreduce's
 * kinds and lengths as whole vectors: odd calls ftc_reduce_scatter_block
 * (blocks of ceil(n / p) elements), even ones ftc_reduce_scatter (n / p,
 * one more for the first n mod p ranks), half of them in place. Every rank
 * checks every element of its block exact over the call's S (the same on
 * every survivor, in the digest).
 *
 * With --collective scan every call combines the allreduce's kinds and
 * lengths in rank order: a run of one call of each kind ftc_scan's, the
 * next ftc_exscan's, half of them in place. Every rank checks every element exact over the ranks of
 * the call's S up to it (ftc_exscan: before it), or, where S has none of
 * them and the call is in place, recvbuf as it was (else it is undefined,
 * as MPI's rank 0's); S is defined up to the caller: any two
 * survivors r < q agree on every call's S up to r (compared after the
 * loop).
 *
 * Usage: torture_api CALLS [--length N] [--after none|allgather|survivors|both]
 *                    [--collective allreduce|bcast|allgather|allgatherv|gather|gatherv|
 *                                  scatterv|reduce|alltoall|alltoallv|reduce_scatter|scan]
 * Environment: TORTURE_PIDS, TORTURE_STARTED, TORTURE_PROGRESS (the pids,
 * the start of the calls and each rank's call number, for the driver: see
 * torture_launch.h).
 *
 * Each survivor ends with one line on stdout:
 *   torture rank=R p=P calls=N done=D wrong=W errors=E digest=HEX
 *           last_failure_call=K dead=a,b S=HEX loop_s=T
 * (on one line), and explains every wrong element or error on stderr, with
 * MISMATCH, FAIL or ERROR at the start of the line.
 */
#define _POSIX_C_SOURCE 200809L /* sigaction, alarm, _exit */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>
#include <mpi-ext.h>

#include <ftcoll.h>

#include "torture_digest.h"
#include "torture_launch.h"

enum {
    MAX_RANKS = TORTURE_MAX_RANKS, /* S travels as a 64-bit bitmap */
    MAX_LENGTH = TORTURE_MAX_LENGTH,
    MAX_REPORTED = 4,        /* mismatching elements printed per call */
    FINALIZE_GRACE_S = 2     /* see finalize_or_leave() */
};


/* The kinds of call, in turn. Six kinds against seven lengths: every
 * (kind, length) pair comes up within 42 calls. */
typedef enum {
    KIND_SUM_DOUBLE,
    KIND_MAX_INT,
    KIND_USER_SUM,
    KIND_SUM_DOUBLE_IN_PLACE,
    KIND_MAX_DOUBLE_IN_PLACE,
    KIND_USER_SUM_IN_PLACE,
    KIND_COUNT
} call_kind;

typedef enum { AFTER_NONE, AFTER_ALLGATHER, AFTER_SURVIVORS, AFTER_BOTH } after_loop;

typedef enum { LOOP_ALLREDUCE, LOOP_BCAST, LOOP_ALLGATHER, LOOP_ALLGATHERV,
               LOOP_GATHER, LOOP_GATHERV, LOOP_SCATTERV, LOOP_REDUCE, LOOP_ALLTOALL,
               LOOP_ALLTOALLV, LOOP_REDUCE_SCATTER, LOOP_SCAN } loop_collective;

typedef struct {
    int calls;
    int fixed_length;   /* 0: cycle */
    after_loop after;
    loop_collective collective;
} options;

/* What one rank learns over the run. */
typedef struct {
    int rank, p;
    int done;                  /* calls completed */
    int wrong, errors;
    uint64_t digest;
    int last_failure_call;     /* last call whose report named a dead rank (0: none) */
    uint64_t dead;             /* union of the ranks reported dead */
    uint64_t last_s;           /* S of the last completed call */
    uint64_t ever_missing;     /* ranks some earlier S lacked */
    /* the ranks an S names: everyone, but for a scan the ranks up to this
     * one (its S is defined up to the caller) */
    uint64_t scope;
    uint64_t *scan_sets;       /* a scan's S of every call, compared after the loop */
    double loop_seconds;
} run_state;

/* ---- inputs and exact results ---------------------------------------------- */

/* splitmix64's finaliser: a well-spread value per (rank, call, element). */
static uint64_t mix(int rank, int call, int element)
{
    uint64_t z = ((uint64_t)rank << 48) ^ ((uint64_t)call << 20) ^ (uint64_t)element;
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Integers below 2^40 in magnitude: 64 of them sum exactly in a double
 * (below 2^53) in any order, and distinct ranks' inputs differ, so a wrong
 * S shows in the sum. */
static double input_double(int rank, int call, int element)
{
    return (double)((int64_t)(mix(rank, call, element) >> 24) - ((int64_t)1 << 39));
}

static int input_int(int rank, int call, int element)
{
    return (int)(uint32_t)(mix(rank, call, element) >> 32);
}

static long long input_long_long(int rank, int call, int element)
{
    return (long long)(mix(rank, call, element) >> 20);   /* below 2^44: no overflow */
}

static int length_of(const options *opt, int call)
{
    return opt->fixed_length ? opt->fixed_length : torture_cycle_length(call);
}

/* The user-defined op: elementwise sum of long longs (commutative, exact). */
static void user_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const long long *a = in;
    long long *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] += a[i];
}

static int in_set(uint64_t set, int rank)
{
    return (int)((set >> rank) & 1u);
}

/* Element i of call k over the ranks of S, into `expected` (of `kind`'s type). */
static void exact_element(call_kind kind, int call, int i, uint64_t s, int p, void *expected)
{
    double dsum = 0, dmax = 0;
    int imax = 0, first = 1;
    long long lsum = 0;
    for (int r = 0; r < p; r++) {
        if (!in_set(s, r))
            continue;
        const double d = input_double(r, call, i);
        const int v = input_int(r, call, i);
        dsum += d;
        dmax = first || d > dmax ? d : dmax;
        imax = first || v > imax ? v : imax;
        lsum += input_long_long(r, call, i);
        first = 0;
    }
    switch (kind) {
    case KIND_SUM_DOUBLE:
    case KIND_SUM_DOUBLE_IN_PLACE: *(double *)expected = dsum; break;
    case KIND_MAX_DOUBLE_IN_PLACE: *(double *)expected = dmax; break;
    case KIND_MAX_INT: *(int *)expected = imax; break;
    default: *(long long *)expected = lsum; break;
    }
}

/* ---- one call ------------------------------------------------------------------ */

typedef struct {
    MPI_Datatype type;
    size_t element_size;
    MPI_Op op;
    int in_place;
} call_shape;

static call_shape shape_of(call_kind kind, MPI_Op user_op)
{
    switch (kind) {
    case KIND_SUM_DOUBLE: return (call_shape){ MPI_DOUBLE, sizeof(double), MPI_SUM, 0 };
    case KIND_MAX_INT: return (call_shape){ MPI_INT, sizeof(int), MPI_MAX, 0 };
    case KIND_USER_SUM: return (call_shape){ MPI_LONG_LONG, sizeof(long long), user_op, 0 };
    case KIND_SUM_DOUBLE_IN_PLACE: return (call_shape){ MPI_DOUBLE, sizeof(double), MPI_SUM, 1 };
    case KIND_MAX_DOUBLE_IN_PLACE: return (call_shape){ MPI_DOUBLE, sizeof(double), MPI_MAX, 1 };
    default: return (call_shape){ MPI_LONG_LONG, sizeof(long long), user_op, 1 };
    }
}

static void fill_input(call_kind kind, int rank, int call, int n, void *buffer)
{
    for (int i = 0; i < n; i++) {
        switch (kind) {
        case KIND_MAX_INT: ((int *)buffer)[i] = input_int(rank, call, i); break;
        case KIND_USER_SUM:
        case KIND_USER_SUM_IN_PLACE:
            ((long long *)buffer)[i] = input_long_long(rank, call, i);
            break;
        default: ((double *)buffer)[i] = input_double(rank, call, i); break;
        }
    }
}

/* Reads the call's report into S and the ranks found dead; 0 on success. */
static int read_report(ftc_comm_t comm, run_state *st, int call, uint64_t *s, uint64_t *failed)
{
    ftc_allreduce_report rep;
    int in_result[MAX_RANKS], dead[MAX_RANKS];
    if (ftc_allreduce_last_report(comm, &rep, in_result, dead) != MPI_SUCCESS) {
        fprintf(stderr, "ERROR rank %d call %d: no report: %s\n", st->rank, call,
                ftc_error_message());
        return 1;
    }
    *s = *failed = 0;
    int members = 0;
    for (int r = 0; r < st->p; r++) {
        *s |= (uint64_t)(in_result[r] != 0) << r;
        *failed |= (uint64_t)(dead[r] != 0) << r;
        members += in_result[r] != 0;
    }
    if (rep.size != st->p || rep.contributors != members) {
        fprintf(stderr, "FAIL rank %d call %d: report says size %d, %d contributors; "
                "in_result has %d\n", st->rank, call, rep.size, rep.contributors, members);
        st->wrong++;
    }
    return 0;
}

/* S must hold this rank and every rank not reported dead, and no rank an
 * earlier S lacked (a rank leaves S only by dying). Returns the violations. */
static int check_membership(run_state *st, int call, uint64_t s)
{
    const uint64_t everyone = st->p == 64 ? ~0ULL : ((1ULL << st->p) - 1);
    const uint64_t believed_alive = everyone & ~st->dead & st->scope;
    int bad = 0;
    if (!in_set(s, st->rank) || (believed_alive & ~s) != 0) {
        fprintf(stderr, "FAIL rank %d call %d: S=%#llx lacks a rank believed alive "
                "(alive %#llx)\n", st->rank, call, (unsigned long long)s,
                (unsigned long long)believed_alive);
        bad++;
    }
    if ((s & st->ever_missing) != 0) {
        fprintf(stderr, "FAIL rank %d call %d: S=%#llx brings back a rank an earlier S "
                "lacked (%#llx)\n", st->rank, call, (unsigned long long)s,
                (unsigned long long)st->ever_missing);
        bad++;
    }
    return bad;
}

/* The call's report: its S in *s; the ranks it found dead join those seen
 * so far. 0 on success. */
static int take_report(ftc_comm_t comm, run_state *st, int call, uint64_t *s)
{
    uint64_t failed;
    if (read_report(comm, st, call, s, &failed) != 0)
        return 1;
    st->dead |= failed;
    if (failed)
        st->last_failure_call = call;
    return 0;
}

/* A call's return code and report: 0 with its S in *s, or 1 after an
 * error (counted, and explained on stderr). */
static int call_reported(ftc_comm_t comm, run_state *st, int call, const char *what, int rc,
                         uint64_t *s)
{
    if (rc != MPI_SUCCESS) {
        int error_class = rc;
        MPI_Error_class(rc, &error_class);
        fprintf(stderr, "ERROR rank %d call %d: %s returned %d (class %d): %s\n", st->rank, call,
                what, rc, error_class, ftc_error_message());
        st->errors++;
        return 1;
    }
    if (take_report(comm, st, call, s) != 0) {
        st->errors++;
        return 1;
    }
    return 0;
}

/* A completed call, its result checked (`bad`: what was wrong in it):
 * S's membership checked too, the call counted, S joins the digest. */
static void record_call(run_state *st, int call, uint64_t s, int bad)
{
    bad += check_membership(st, call, s);
    st->wrong += bad != 0;
    st->ever_missing |= ~s & (st->p == 64 ? ~0ULL : ((1ULL << st->p) - 1)) & st->scope;
    st->last_s = s;
    const int32_t call_number = call;
    st->digest = torture_digest_add(st->digest, &call_number, sizeof(call_number));
    if (st->scan_sets)   /* S up to each rank: compared after the loop */
        st->scan_sets[call] = s;
    else
        st->digest = torture_digest_add(st->digest, &s, sizeof(s));
    st->done = call;
}

/* An element of `kind`'s type, in words. */
static void format_element(call_kind kind, const void *element, char *text, size_t size)
{
    if (kind == KIND_MAX_INT) {
        int v;
        memcpy(&v, element, sizeof(v));
        snprintf(text, size, "%d", v);
    } else if (kind == KIND_USER_SUM || kind == KIND_USER_SUM_IN_PLACE) {
        long long v;
        memcpy(&v, element, sizeof(v));
        snprintf(text, size, "%lld", v);
    } else {
        double v;
        memcpy(&v, element, sizeof(v));
        snprintf(text, size, "%.1f", v);
    }
}

/* Every element against the exact result over S; returns the wrong ones. */
/* Elements first .. first + n - 1 of the exact result, at `result`. */
static int check_elements(const run_state *st, call_kind kind, int call, int first, int n,
                          uint64_t s, const void *result, size_t element_size)
{
    int bad = 0;
    for (int i = 0; i < n; i++) {
        long long expected[1];   /* room for any of the three types */
        exact_element(kind, call, first + i, s, st->p, expected);
        const char *got = (const char *)result + (size_t)i * element_size;
        if (memcmp(got, expected, element_size) == 0)
            continue;
        if (bad++ < MAX_REPORTED) {
            char got_text[40], expected_text[40];
            format_element(kind, got, got_text, sizeof(got_text));
            format_element(kind, expected, expected_text, sizeof(expected_text));
            fprintf(stderr, "MISMATCH rank %d call %d kind %d n %d element %d: got %s, "
                    "expected %s for S=%#llx\n", st->rank, call, (int)kind, n, first + i,
                    got_text, expected_text, (unsigned long long)s);
        }
    }
    if (bad > MAX_REPORTED)
        fprintf(stderr, "MISMATCH rank %d call %d: %d wrong elements of %d in all\n", st->rank,
                call, bad, n);
    return bad;
}

/* One ftc_allreduce, checked. Returns 0 to go on, 1 after an error. */
static int torture_call(ftc_comm_t comm, run_state *st, const options *opt, int call,
                        MPI_Op user_op, void *send, void *recv)
{
    const call_kind kind = (call_kind)(call % KIND_COUNT);
    const call_shape shape = shape_of(kind, user_op);
    const int n = length_of(opt, call);
    fill_input(kind, st->rank, call, n, shape.in_place ? recv : send);
    const int rc = ftc_allreduce(shape.in_place ? MPI_IN_PLACE : send, recv, n, shape.type,
                                 shape.op, comm);
    uint64_t s;
    if (call_reported(comm, st, call, "ftc_allreduce", rc, &s) != 0)
        return 1;
    record_call(st, call, s, check_elements(st, kind, call, 0, n, s, recv, shape.element_size));
    st->digest = torture_digest_add(st->digest, recv, (size_t)n * shape.element_size);
    return 0;
}

/* ---- the other entry points on the same engine, between the allreduces ---- */

enum { OTHER_EVERY = 16, BCAST_AT = 5, BARRIER_AT = 11, BCAST_LENGTH = 33,
       BCAST_LOOP_MAX_LENGTH = 100000 };

enum { UNTOUCHED = -1 };

/* Exact in a double for every call and element. */
static double bcast_element(int call, int i) { return (double)call * 1e6 + i; }

/* Every element of a broadcast's outcome: the root's data; after the
 * root-died error each element the root's or untouched (a transfer the
 * root's death cut short may have written a part). */
static int check_bcast_data(run_state *st, int call, int root, int n, const double *data,
                            int delivered)
{
    for (int i = 0; i < n; i++) {
        const double want = delivered || data[i] != UNTOUCHED ? bcast_element(call, i)
                                                              : UNTOUCHED;
        if (data[i] != want) {
            fprintf(stderr, "MISMATCH rank %d call %d: ftc_bcast from %d of %d doubles, "
                    "element %d: got %.1f, expected %.1f\n", st->rank, call, root, n, i,
                    data[i], want);
            st->wrong++;
            return 0;
        }
    }
    return 0;
}

/* A broadcast of n doubles from `root`: every element exact, or
 * MPIX_ERR_PROC_FAILED on every survivor alike when the root died before
 * its data reached one (the digests compare the outcome), each element of
 * the buffer then the root's or untouched. 0 to go on, 1 after an error. */
static int broadcast_checked(ftc_comm_t comm, run_state *st, int call, int root, int n,
                             double *data)
{
    for (int i = 0; i < n; i++)
        data[i] = st->rank == root ? bcast_element(call, i) : UNTOUCHED;
    const int rc = ftc_bcast(data, n, MPI_DOUBLE, root, comm);
    int error_class = rc;
    MPI_Error_class(rc, &error_class);
    const int32_t outcome = rc == MPI_SUCCESS ? 0 : 1;
    st->digest = torture_digest_add(st->digest, &outcome, sizeof(outcome));
    if (rc != MPI_SUCCESS && (error_class != MPIX_ERR_PROC_FAILED || st->rank == root)) {
        fprintf(stderr, "ERROR rank %d call %d: ftc_bcast from %d returned class %d: %s\n",
                st->rank, call, root, error_class, ftc_error_message());
        return 1;
    }
    return st->rank == root ? 0 : check_bcast_data(st, call, root, n, data, rc == MPI_SUCCESS);
}

/* A broadcast from the lowest rank of the last allreduce's S (the same on
 * every survivor, unlike the ranks each one saw die: a rank that finished
 * that call before a death saw none). */
static int torture_bcast(ftc_comm_t comm, run_state *st, int call)
{
    int root = 0;
    while (root < st->p - 1 && !in_set(st->last_s, root))
        root++;
    double data[BCAST_LENGTH];
    return broadcast_checked(comm, st, call, root, BCAST_LENGTH, data);
}

static int torture_barrier(ftc_comm_t comm, run_state *st, int call)
{
    const int rc = ftc_barrier(comm);
    if (rc == MPI_SUCCESS)
        return 0;
    fprintf(stderr, "ERROR rank %d call %d: ftc_barrier: %s\n", st->rank, call,
            ftc_error_message());
    return 1;
}

/* Every OTHER_EVERY calls, a broadcast and a barrier come between the
 * allreduces; deaths during them are reported like the allreduce's. */
static int torture_other(ftc_comm_t comm, run_state *st, int call)
{
    const int slot = call % OTHER_EVERY;
    if (slot != BCAST_AT && slot != BARRIER_AT)
        return 0;
    int rc = slot == BCAST_AT ? torture_bcast(comm, st, call) : torture_barrier(comm, st, call);
    uint64_t s;
    if (rc == 0)
        rc = take_report(comm, st, call, &s);
    st->errors += rc;
    return rc;
}

/* --collective bcast: call `call` is a broadcast, its root and length
 * varying from call to call: runs of seventy small ones (1 .. 256 doubles,
 * all but every 64th call without tokens: ranks drift up to the layer's
 * window of calls apart), then 1000 doubles (as small) and 100000 (tokens
 * or a confirmation on every call). */
static int bcast_loop_length(int call)
{
    static const int small[] = { 1, 256, 7, 64, 3, 200, 32, 100 };
    const int at = call % 72;
    return at < 70 ? small[at % 8] : at == 70 ? 1000 : BCAST_LOOP_MAX_LENGTH;
}

static int torture_bcast_loop_call(ftc_comm_t comm, run_state *st, const options *opt, int call,
                                   double *data)
{
    const int n = opt->fixed_length ? opt->fixed_length : bcast_loop_length(call);
    const int root = (int)(mix(0, call, 0) % (uint64_t)st->p);
    int rc = broadcast_checked(comm, st, call, root, n, data);
    uint64_t s;
    if (rc == 0)
        rc = take_report(comm, st, call, &s);
    st->errors += rc;
    if (rc == 0) {
        const int32_t call_number = call;
        st->digest = torture_digest_add(st->digest, &call_number, sizeof(call_number));
        st->done = call;
    }
    return rc;
}

/* --collective allgather: call `call` is an ftc_allgather of ints, their
 * length varying from call to call, every other call in place. */
enum { ALLGATHER_MAX_LENGTH = 4096 };

static int allgather_loop_length(int call)
{
    static const int lengths[] = { 1, 7, 64, 1000, 4096, 3, 256, 2 };
    return lengths[call % 8];
}

/* The ranks this rank knows dead (none of them can be in a later S). */
static uint64_t known_dead(ftc_comm_t comm, const run_state *st)
{
    int live[MAX_RANKS], n = 0;
    ftc_comm_live_ranks(comm, live, MAX_RANKS, &n);
    uint64_t alive = 0;
    for (int i = 0; i < n; i++)
        alive |= (uint64_t)1 << live[i];
    return ~alive & (st->p == 64 ? ~0ULL : ((1ULL << st->p) - 1));
}

/* The blocks of one call: block r holds counts[r] ints in region
 * regions[r] of n ints (an allgather: n ints in region r). */
typedef struct {
    int n;
    int counts[MAX_RANKS], regions[MAX_RANKS];
} block_layout;

static block_layout layout_of(const run_state *st, int call, int n, bool as_v)
{
    block_layout b = { .n = n };
    for (int r = 0; r < st->p; r++) {
        const int shorter = n - r % 4;
        b.counts[r] = !as_v ? n : r % 3 == 1 && call % 3 == 0 ? 0 : shorter > 0 ? shorter : 0;
        b.regions[r] = as_v ? st->p - 1 - r : r;
    }
    return b;
}

static int *region(const block_layout *b, int *all, int r)
{
    return all + (size_t)b->regions[r] * (size_t)b->n;
}

/* Every block of S exact (the rest of its region untouched), every region
 * of a rank dead before the call untouched; returns the wrong blocks. */
static int check_blocks(const run_state *st, int call, const block_layout *b, uint64_t s,
                        uint64_t dead_before, int *all)
{
    int bad = 0;
    for (int r = 0; r < st->p; r++) {
        if (!in_set(s, r) && !in_set(dead_before, r))
            continue;   /* died during the call: its block is undefined */
        const int *got = region(b, all, r);
        for (int i = 0; i < b->n; i++) {
            const int want = in_set(s, r) && i < b->counts[r] ? input_int(r, call, i) : UNTOUCHED;
            if (got[i] == want)
                continue;
            if (bad++ < MAX_REPORTED)
                fprintf(stderr, "MISMATCH rank %d call %d: block %d of %d ints, int %d: got %d, "
                        "expected %d (S=%#llx)\n", st->rank, call, r, b->counts[r], i, got[i],
                        want, (unsigned long long)s);
            break;
        }
    }
    return bad;
}

static int gather(const void *send, int *all, const block_layout *b, ftc_comm_t comm, int rank,
                  int p, bool as_v)
{
    if (!as_v)
        return ftc_allgather(send, b->n, MPI_INT, all, b->n, MPI_INT, comm);
    int displs[MAX_RANKS];
    for (int r = 0; r < p; r++)
        displs[r] = b->regions[r] * b->n;
    return ftc_allgatherv(send, b->counts[rank], MPI_INT, all, b->counts, displs, MPI_INT, comm);
}

static int torture_allgather_loop_call(ftc_comm_t comm, run_state *st, const options *opt,
                                       int call, int *mine, int *all)
{
    const bool as_v = opt->collective == LOOP_ALLGATHERV;
    const int n = opt->fixed_length ? opt->fixed_length : allgather_loop_length(call);
    const block_layout b = layout_of(st, call, n, as_v);
    const int in_place = call % 2 == 0;
    for (size_t i = 0; i < (size_t)n * (size_t)st->p; i++)
        all[i] = UNTOUCHED;
    int *own = in_place ? region(&b, all, st->rank) : mine;
    for (int i = 0; i < b.counts[st->rank]; i++)
        own[i] = input_int(st->rank, call, i);
    const uint64_t dead_before = known_dead(comm, st);
    const int rc = gather(in_place ? MPI_IN_PLACE : mine, all, &b, comm, st->rank, st->p, as_v);
    uint64_t s;
    if (call_reported(comm, st, call, as_v ? "ftc_allgatherv" : "ftc_allgather", rc, &s) != 0)
        return 1;
    record_call(st, call, s, check_blocks(st, call, &b, s, dead_before, all));
    for (int r = 0; r < st->p; r++)
        if (in_set(s, r))
            st->digest = torture_digest_add(st->digest, region(&b, all, r),
                                            (size_t)b.counts[r] * sizeof(int));
    return 0;
}

/* A rooted call's S at its root: every rank not reported dead. Returns 1,
 * with a FAIL line, when it lacks one. */
static int check_root_set(const run_state *st, int call, uint64_t s)
{
    const uint64_t everyone = st->p == 64 ? ~0ULL : ((1ULL << st->p) - 1);
    const uint64_t believed_alive = everyone & ~st->dead;
    if ((believed_alive & ~s) == 0)
        return 0;
    fprintf(stderr, "FAIL rank %d call %d: the root's S=%#llx lacks a rank believed alive "
            "(alive %#llx)\n", st->rank, call, (unsigned long long)s,
            (unsigned long long)believed_alive);
    return 1;
}

/* --collective gather(v): call `call` gathers to a root that moves from
 * call to call (gatherv: blocks some shorter or empty, in reverse rank
 * order). */
static int gather_loop_root(int call, int p)
{
    return (int)(((unsigned)call * 2654435761u >> 8) % (unsigned)p);
}

static int torture_gather_loop_call(ftc_comm_t comm, run_state *st, const options *opt,
                                    int call, int *mine, int *all)
{
    const int n = opt->fixed_length ? opt->fixed_length : allgather_loop_length(call);
    const int root = gather_loop_root(call, st->p);
    const bool at_root = st->rank == root, in_place = at_root && call % 2 == 0;
    const bool as_v = opt->collective == LOOP_GATHERV;
    const block_layout b = layout_of(st, call, n, as_v);
    for (size_t i = 0; i < (size_t)n * (size_t)st->p; i++)
        all[i] = UNTOUCHED;
    int *own = in_place ? region(&b, all, st->rank) : mine;
    for (int i = 0; i < b.counts[st->rank]; i++)
        own[i] = input_int(st->rank, call, i);
    const uint64_t dead_before = known_dead(comm, st);
    int displs[MAX_RANKS];
    for (int r = 0; r < st->p; r++)
        displs[r] = b.regions[r] * n;
    const int rc = as_v
        ? ftc_gatherv(in_place ? MPI_IN_PLACE : mine, b.counts[st->rank], MPI_INT, all, b.counts,
                      displs, MPI_INT, root, comm)
        : ftc_gather(in_place ? MPI_IN_PLACE : mine, n, MPI_INT, all, n, MPI_INT, root, comm);
    uint64_t s;
    if (call_reported(comm, st, call, as_v ? "ftc_gatherv" : "ftc_gather", rc, &s) != 0)
        return 1;
    int bad = 0;
    if (at_root) {
        bad += check_root_set(st, call, s);
        bad += check_blocks(st, call, &b, s, dead_before, all);
    }
    st->wrong += bad != 0;
    const int32_t call_number = call;   /* S is the root's alone: not in the digest */
    st->digest = torture_digest_add(st->digest, &call_number, sizeof(call_number));
    st->done = call;
    return 0;
}

/* --collective scatterv: the gatherv's calls the other way. The root's
 * blocks in `all`, this rank's into `mine` (n ints, the rest untouched). */
static int check_scattered(const run_state *st, int call, const block_layout *b, int root,
                           const int *all, const int *mine, bool in_place)
{
    int bad = 0;
    const int *got = in_place ? region(b, (int *)all, st->rank) : mine;
    for (int i = 0; i < b->n && !bad; i++) {
        const bool element = i < b->counts[st->rank];
        const int want = element ? input_int(st->rank, call, i) : UNTOUCHED;
        if (got[i] != want && (element || !in_place)) {
            fprintf(stderr, "MISMATCH rank %d call %d: its block of %d ints from root %d, int %d: "
                    "got %d, expected %d\n", st->rank, call, b->counts[st->rank], root, i,
                    got[i], want);
            bad = 1;
        }
    }
    for (int r = 0; r < st->p && st->rank == root && !bad; r++)
        for (int i = 0; i < b->counts[r] && !bad; i++)
            if (region(b, (int *)all, r)[i] != input_int(r, call, i)) {
                fprintf(stderr, "MISMATCH rank %d call %d: the root's block %d changed at int "
                        "%d\n", st->rank, call, r, i);
                bad = 1;
            }
    return bad;
}

static int torture_scatter_loop_call(ftc_comm_t comm, run_state *st, const options *opt,
                                     int call, int *mine, int *all)
{
    const int n = opt->fixed_length ? opt->fixed_length : allgather_loop_length(call);
    const int root = gather_loop_root(call, st->p);
    const bool at_root = st->rank == root, in_place = at_root && call % 2 == 0;
    const bool as_v = call % 4 >= 2;   /* else an ftc_scatter: every block n ints, in order */
    const block_layout b = layout_of(st, call, n, as_v);
    int displs[MAX_RANKS];
    for (int r = 0; r < st->p; r++) {
        displs[r] = b.regions[r] * n;
        for (int i = 0; i < n; i++)
            region(&b, all, r)[i] = i < b.counts[r] ? input_int(r, call, i) : UNTOUCHED;
    }
    for (int i = 0; i < n; i++)
        mine[i] = UNTOUCHED;
    void *into = in_place ? MPI_IN_PLACE : mine;
    const int rc = as_v ? ftc_scatterv(at_root ? all : NULL, at_root ? b.counts : NULL,
                                       at_root ? displs : NULL, MPI_INT, into, b.counts[st->rank],
                                       MPI_INT, root, comm)
                        : ftc_scatter(at_root ? all : NULL, n, MPI_INT, into, n, MPI_INT, root,
                                      comm);
    int error_class = rc;
    MPI_Error_class(rc, &error_class);
    const bool lost = rc != MPI_SUCCESS && error_class == MPIX_ERR_PROC_FAILED && !at_root &&
                      in_set(known_dead(comm, st), root);
    uint64_t s;
    if (call_reported(comm, st, call, as_v ? "ftc_scatterv" : "ftc_scatter",
                      lost ? MPI_SUCCESS : rc, &s) != 0)
        return 1;
    int bad = in_set(s, st->rank) == lost;
    if (bad)
        fprintf(stderr, "FAIL rank %d call %d: %s, its block %s the report's S=%#llx\n",
                st->rank, call, lost ? "its block lost" : "MPI_SUCCESS", lost ? "in" : "outside",
                (unsigned long long)s);
    if (!lost)
        bad += check_scattered(st, call, &b, root, all, mine, in_place);
    st->wrong += bad != 0;
    const int32_t call_number = call;   /* a lost block is this rank's own: not in the digest */
    st->digest = torture_digest_add(st->digest, &call_number, sizeof(call_number));
    st->done = call;
    return 0;
}

/* --collective alltoall(v): block r of a call (n ints, or for an
 * alltoallv n - (from + to) mod 4, none for (from + to) = 1 mod 3 on every
 * third call: the same both ways, so in place too) in region r of n ints,
 * regions in reverse rank order for an alltoallv; in place every other
 * call. */
static int alltoall_count(int call, int n, bool as_v, int from, int to)
{
    if (!as_v)
        return n;
    if (call % 3 == 0 && (from + to) % 3 == 1)
        return 0;
    return n > (from + to) % 4 ? n - (from + to) % 4 : 0;
}

static int alltoall_region(int r, int p, bool as_v) { return as_v ? p - 1 - r : r; }

static int alltoall_element(int from, int to, int call, int i)
{
    return input_int(from, call, to * ALLGATHER_MAX_LENGTH + i);
}

/* This rank's blocks from (or, `sending`, to) every rank, UNTOUCHED around them. */
static void alltoall_fill(const run_state *st, int call, int n, bool as_v, bool sending,
                          int *buf)
{
    for (int r = 0; r < st->p; r++) {
        int *region = buf + (size_t)alltoall_region(r, st->p, as_v) * (size_t)n;
        const int count = alltoall_count(call, n, as_v, st->rank, r);
        for (int i = 0; i < n; i++)
            region[i] = i >= count ? UNTOUCHED
                      : sending ? alltoall_element(st->rank, r, call, i)
                                : alltoall_element(r, st->rank, call, i);
    }
}

/* Every valid block exact, the block of every rank known dead before the
 * call untouched (one that died during it is undefined), the send buffer
 * unchanged, and every rank not reported dead among the valid. */
static int check_exchanged(const run_state *st, int call, int n, bool as_v, uint64_t s,
                           uint64_t dead_before, const int *got, const int *want,
                           const int *send, const int *send_want, bool in_place)
{
    int bad = check_root_set(st, call, s);
    for (int r = 0; r < st->p && !bad; r++) {
        if (!in_set(s, r) && !in_set(dead_before, r))
            continue;
        const size_t at = (size_t)alltoall_region(r, st->p, as_v) * (size_t)n;
        for (int i = 0; i < n && !bad; i++) {
            const int expected = in_set(s, r) ? want[at + (size_t)i]
                               : in_place ? send_want[at + (size_t)i] : UNTOUCHED;
            if (got[at + (size_t)i] != expected) {
                fprintf(stderr, "MISMATCH rank %d call %d: the block from rank %d, int %d: got "
                        "%d, expected %d (S=%#llx)\n", st->rank, call, r, i,
                        got[at + (size_t)i], expected, (unsigned long long)s);
                bad = 1;
            }
        }
    }
    for (size_t i = 0; !in_place && !bad && i < (size_t)n * (size_t)st->p; i++)
        if (send[i] != send_want[i]) {
            fprintf(stderr, "MISMATCH rank %d call %d: its send buffer changed at int %zu\n",
                    st->rank, call, i);
            bad = 1;
        }
    return bad;
}

static int torture_alltoall_loop_call(ftc_comm_t comm, run_state *st, const options *opt,
                                      int call, int *buffers)
{
    const int n = opt->fixed_length ? opt->fixed_length : allgather_loop_length(call);
    const bool as_v = opt->collective == LOOP_ALLTOALLV, in_place = call % 2 == 0;
    const size_t all = (size_t)n * (size_t)st->p;
    int *send = buffers, *recv = send + all, *send_want = recv + all, *want = send_want + all;
    alltoall_fill(st, call, n, as_v, true, send);
    alltoall_fill(st, call, n, as_v, true, send_want);
    alltoall_fill(st, call, n, as_v, false, want);
    if (in_place)
        memcpy(recv, send, all * sizeof(int));
    else
        for (size_t i = 0; i < all; i++)
            recv[i] = UNTOUCHED;
    int counts[MAX_RANKS], displs[MAX_RANKS];
    for (int r = 0; r < st->p; r++) {
        counts[r] = alltoall_count(call, n, as_v, st->rank, r);
        displs[r] = alltoall_region(r, st->p, as_v) * n;
    }
    const uint64_t dead_before = known_dead(comm, st);
    const void *from = in_place ? MPI_IN_PLACE : send;
    const int rc = as_v ? ftc_alltoallv(from, counts, displs, MPI_INT, recv, counts, displs,
                                        MPI_INT, comm)
                        : ftc_alltoall(from, n, MPI_INT, recv, n, MPI_INT, comm);
    uint64_t s;
    if (call_reported(comm, st, call, as_v ? "ftc_alltoallv" : "ftc_alltoall", rc, &s) != 0)
        return 1;
    const int bad = check_exchanged(st, call, n, as_v, s, dead_before, recv, want, send,
                                    send_want, in_place);
    st->wrong += bad != 0;
    const int32_t call_number = call;   /* the valid blocks are each rank's own: not digested */
    st->digest = torture_digest_add(st->digest, &call_number, sizeof(call_number));
    st->done = call;
    return 0;
}

/* --collective reduce: the allreduce's calls, to a root that moves from
 * call to call. */
static int torture_reduce_loop_call(ftc_comm_t comm, run_state *st, const options *opt,
                                    int call, MPI_Op user_op, void *send, void *recv)
{
    const call_kind kind = (call_kind)(call % KIND_COUNT);
    const call_shape shape = shape_of(kind, user_op);
    const int n = length_of(opt, call);
    const int root = gather_loop_root(call, st->p);
    const bool at_root = st->rank == root, in_place = at_root && shape.in_place;
    fill_input(kind, st->rank, call, n, in_place ? recv : send);
    const int rc = ftc_reduce(in_place ? MPI_IN_PLACE : send, recv, n, shape.type, shape.op, root,
                              comm);
    uint64_t s;
    if (call_reported(comm, st, call, "ftc_reduce", rc, &s) != 0)
        return 1;
    int bad = 0;
    if (at_root) {
        bad += check_root_set(st, call, s);
        bad += check_elements(st, kind, call, 0, n, s, recv, shape.element_size);
    }
    st->wrong += bad != 0;
    const int32_t call_number = call;   /* S is the root's alone: not in the digest */
    st->digest = torture_digest_add(st->digest, &call_number, sizeof(call_number));
    st->done = call;
    return 0;
}

/* --collective reduce_scatter: the allreduce's kinds and lengths as whole
 * vectors, odd calls ftc_reduce_scatter_block's (blocks of ceil(n / p)),
 * even ones ftc_reduce_scatter's (n / p, one more for the first n mod p
 * ranks); every rank checks its block over S, the same S everywhere. */
static int torture_reduce_scatter_loop_call(ftc_comm_t comm, run_state *st, const options *opt,
                                            int call, MPI_Op user_op, void *send, void *recv)
{
    const call_kind kind = (call_kind)(call % KIND_COUNT);
    const call_shape shape = shape_of(kind, user_op);
    const int n = length_of(opt, call), p = st->p;
    const bool as_block = call % 2 == 1;
    int counts[MAX_RANKS], first = 0, length = 0;
    for (int r = 0; r < p; r++) {
        counts[r] = as_block ? (n + p - 1) / p : n / p + (r < n % p);
        first += r < st->rank ? counts[r] : 0;
        length += counts[r];
    }
    fill_input(kind, st->rank, call, length, shape.in_place ? recv : send);
    const void *from = shape.in_place ? MPI_IN_PLACE : send;
    const int rc = as_block
        ? ftc_reduce_scatter_block(from, recv, counts[0], shape.type, shape.op, comm)
        : ftc_reduce_scatter(from, recv, counts, shape.type, shape.op, comm);
    uint64_t s;
    if (call_reported(comm, st, call, as_block ? "ftc_reduce_scatter_block"
                                                : "ftc_reduce_scatter", rc, &s) != 0)
        return 1;
    record_call(st, call, s, check_elements(st, kind, call, first, counts[st->rank], s, recv,
                                            shape.element_size));
    return 0;
}

/* --collective scan: the allreduce's kinds and lengths, runs of one call
 * of each kind ftc_scan's and ftc_exscan's in turn; every rank checks its prefix over
 * S; where S has no rank of the prefix, recvbuf is undefined (part of a
 * prefix whose sender died may be there), but in place as it was. */
static int torture_scan_loop_call(ftc_comm_t comm, run_state *st, const options *opt, int call,
                                  MPI_Op user_op, void *send, void *recv)
{
    const call_kind kind = (call_kind)(call % KIND_COUNT);
    const call_shape shape = shape_of(kind, user_op);
    const int n = length_of(opt, call);
    const bool exclusive = (call / KIND_COUNT) % 2 == 0;   /* every kind both ways */
    const size_t bytes = (size_t)n * shape.element_size;
    fill_input(kind, st->rank, call, n, send);   /* in place: what recvbuf holds before */
    if (shape.in_place)
        memcpy(recv, send, bytes);
    else
        memset(recv, 0x5A, bytes);
    const void *from = shape.in_place ? MPI_IN_PLACE : send;
    const int rc = exclusive ? ftc_exscan(from, recv, n, shape.type, shape.op, comm)
                             : ftc_scan(from, recv, n, shape.type, shape.op, comm);
    uint64_t s;
    if (call_reported(comm, st, call, exclusive ? "ftc_exscan" : "ftc_scan", rc, &s) != 0)
        return 1;
    const int upto = exclusive ? st->rank : st->rank + 1;
    const uint64_t prefix = s & (upto >= 64 ? ~0ULL : (1ULL << upto) - 1);
    int bad = 0;
    if (prefix != 0) {
        bad = check_elements(st, kind, call, 0, n, prefix, recv, shape.element_size);
    } else if (shape.in_place) {
        for (size_t b = 0; b < bytes && !bad; b++)
            bad = ((const unsigned char *)recv)[b] != ((const unsigned char *)send)[b];
        if (bad)
            fprintf(stderr, "MISMATCH rank %d call %d: no rank of S=%#llx before it, but "
                    "recvbuf changed\n", st->rank, call, (unsigned long long)s);
    }
    record_call(st, call, s, bad);
    return 0;
}

/* ---- after the loop ---------------------------------------------------------- */

/* ftc_allgather after the loop, dead ranks or not: every block of its S
 * (every survivor's) exact. */
static void after_allgather(ftc_comm_t comm, run_state *st)
{
    int mine[2] = { st->rank * 7, st->done }, all[2 * MAX_RANKS];
    const int rc = ftc_allgather(mine, 2, MPI_INT, all, 2, MPI_INT, comm);
    uint64_t s = 0, failed = 0;
    if (rc != MPI_SUCCESS || read_report(comm, st, st->done + 1, &s, &failed) != 0) {
        fprintf(stderr, "ERROR rank %d: ftc_allgather after the loop: %s\n", st->rank,
                ftc_error_message());
        st->errors++;
        return;
    }
    st->dead |= failed;
    st->wrong += check_membership(st, st->done + 1, s) != 0;
    for (int r = 0; r < st->p; r++) {
        if (in_set(s, r) && (all[2 * r] != r * 7 || all[2 * r + 1] != st->done)) {
            fprintf(stderr, "MISMATCH rank %d: ftc_allgather block %d: %d %d\n", st->rank, r,
                    all[2 * r], all[2 * r + 1]);
            st->wrong++;
            return;
        }
    }
}

/* The survivors' communicator (ftc_comm_survivors), or 1 with the error
 * counted. */
static int open_survivors(ftc_comm_t comm, run_state *st, MPI_Comm *survivors)
{
    if (ftc_comm_survivors(comm, survivors) == MPI_SUCCESS)
        return 0;
    fprintf(stderr, "ERROR rank %d: ftc_comm_survivors: %s\n", st->rank, ftc_error_message());
    st->errors++;
    return 1;
}

/* A scan's S is defined up to the caller: any two survivors r < q must
 * agree on every call's S up to r (plain MPI on the communicator
 * ftc_comm_survivors gives). Each disagreeing call counts as wrong. */
static void after_scans(ftc_comm_t comm, run_state *st, int calls)
{
    MPI_Comm survivors;
    if (open_survivors(comm, st, &survivors) != 0)
        return;
    int n;
    MPI_Comm_size(survivors, &n);
    const size_t row = (size_t)calls + 1;   /* the rank, then S of calls 1 .. calls */
    uint64_t *all = malloc(sizeof(uint64_t) * row * (size_t)n);
    if (!all)
        MPI_Abort(MPI_COMM_WORLD, 2);
    st->scan_sets[0] = (uint64_t)st->rank;
    MPI_Allgather(st->scan_sets, (int)row, MPI_UINT64_T, all, (int)row, MPI_UINT64_T, survivors);
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            const uint64_t *low = all + (size_t)a * row, *high = all + (size_t)b * row;
            const int r = (int)low[0];
            const uint64_t up_to_r = r >= 63 ? ~0ULL : (1ULL << (r + 1)) - 1;
            for (int call = 1; call <= calls; call++)
                if ((high[call] & up_to_r) != low[call] && (int)high[0] == st->rank) {
                    fprintf(stderr, "FAIL rank %d call %d: S=%#llx up to rank %d, which has "
                            "S=%#llx\n", st->rank, call, (unsigned long long)high[call], r,
                            (unsigned long long)low[call]);
                    st->wrong++;
                }
        }
    free(all);
    MPI_Comm_free(&survivors);
}

/* The survivors compare digests among themselves (plain MPI on the
 * communicator ftc_comm_survivors gives). */
static void after_survivors(ftc_comm_t comm, run_state *st)
{
    MPI_Comm survivors;
    if (open_survivors(comm, st, &survivors) != 0)
        return;
    int outcome = torture_compare_digests(st->digest, survivors, st->rank);
    st->errors += outcome < 0;
    st->wrong += outcome > 0;
    MPI_Comm_free(&survivors);
}

/* ---- start and end ------------------------------------------------------------- */

static void print_result_line(const run_state *st, const options *opt)
{
    char dead[MAX_RANKS * 4] = "", *at = dead;
    for (int r = 0; r < st->p; r++) {
        if (in_set(st->dead, r))
            at += snprintf(at, sizeof(dead) - (size_t)(at - dead), "%s%d", at == dead ? "" : ",",
                           r);
    }
    printf("torture rank=%d p=%d calls=%d done=%d wrong=%d errors=%d digest=%016llx "
           "last_failure_call=%d dead=%s S=%llx loop_s=%.3f\n",
           st->rank, st->p, opt->calls, st->done, st->wrong, st->errors,
           (unsigned long long)st->digest, st->last_failure_call, *dead ? dead : "-",
           (unsigned long long)st->last_s, st->loop_seconds);
    fflush(stdout);
}

static int exit_status;

static void leave_now(int signal_number)
{
    (void)signal_number;
    static const char note[] = "note: MPI_Finalize still waits after a failure; leaving\n";
    ssize_t ignored = write(STDERR_FILENO, note, sizeof(note) - 1);
    (void)ignored;
    _exit(exit_status);
}

/* Open MPI 5.0.7's MPI_Finalize now and then waits forever in its final
 * fence after a rank died (see src/pmpi/init.c): everything is checked and
 * printed by now, so a finalize that takes more than a few seconds is
 * abandoned rather than counted as a hang of ftcoll. */
static void finalize_or_leave(int status)
{
    exit_status = status;
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_handler = leave_now;
    sigaction(SIGALRM, &action, NULL);
    alarm(FINALIZE_GRACE_S);
    MPI_Finalize();
    alarm(0);
}

static int parse_options(int argc, char **argv, options *opt)
{
    *opt = (options){ .calls = 100, .fixed_length = 0, .after = AFTER_NONE,
                      .collective = LOOP_ALLREDUCE };
    if (argc > 1)
        opt->calls = atoi(argv[1]);
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--length") == 0 && i + 1 < argc) {
            opt->fixed_length = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--after") == 0 && i + 1 < argc) {
            static const char *const names[] = { "none", "allgather", "survivors", "both" };
            const char *a = argv[++i];
            int found = -1;
            for (int k = 0; k < 4; k++)
                found = strcmp(a, names[k]) == 0 ? k : found;
            if (found < 0)
                return 1;
            opt->after = (after_loop)found;
        } else if (strcmp(argv[i], "--collective") == 0 && i + 1 < argc) {
            const char *c = argv[++i];
            if (strcmp(c, "allreduce") == 0)
                opt->collective = LOOP_ALLREDUCE;
            else if (strcmp(c, "bcast") == 0)
                opt->collective = LOOP_BCAST;
            else if (strcmp(c, "allgather") == 0)
                opt->collective = LOOP_ALLGATHER;
            else if (strcmp(c, "allgatherv") == 0)
                opt->collective = LOOP_ALLGATHERV;
            else if (strcmp(c, "gather") == 0)
                opt->collective = LOOP_GATHER;
            else if (strcmp(c, "gatherv") == 0)
                opt->collective = LOOP_GATHERV;
            else if (strcmp(c, "scatterv") == 0)
                opt->collective = LOOP_SCATTERV;
            else if (strcmp(c, "reduce") == 0)
                opt->collective = LOOP_REDUCE;
            else if (strcmp(c, "alltoall") == 0)
                opt->collective = LOOP_ALLTOALL;
            else if (strcmp(c, "alltoallv") == 0)
                opt->collective = LOOP_ALLTOALLV;
            else if (strcmp(c, "reduce_scatter") == 0)
                opt->collective = LOOP_REDUCE_SCATTER;
            else if (strcmp(c, "scan") == 0)
                opt->collective = LOOP_SCAN;
            else
                return 1;
        } else {
            return 1;
        }
    }
    const int longest = opt->collective == LOOP_BCAST ? BCAST_LOOP_MAX_LENGTH
                      : opt->collective == LOOP_ALLGATHER || opt->collective == LOOP_ALLGATHERV
                        || opt->collective == LOOP_GATHER || opt->collective == LOOP_GATHERV
                        || opt->collective == LOOP_SCATTERV || opt->collective == LOOP_ALLTOALL
                        || opt->collective == LOOP_ALLTOALLV
                      ? ALLGATHER_MAX_LENGTH : MAX_LENGTH;
    return opt->calls < 1 || opt->fixed_length < 0 || opt->fixed_length > longest;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    run_state st = { .digest = TORTURE_DIGEST_START };
    MPI_Comm_rank(MPI_COMM_WORLD, &st.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &st.p);
    options opt;
    if (parse_options(argc, argv, &opt) != 0 || st.p > MAX_RANKS) {
        if (st.rank == 0)
            fprintf(stderr, "usage: torture_api CALLS [--length 1..%d] "
                    "[--after none|allgather|survivors|both] [--collective allreduce|bcast|"
                    "allgather|allgatherv|gather|gatherv|scatterv|reduce|alltoall|alltoallv|"
                    "reduce_scatter|scan] "
                    "(at most %d ranks)\n",
                    MAX_LENGTH, MAX_RANKS);
        MPI_Finalize();
        return 2;
    }
    const uint64_t everyone = st.p == 64 ? ~0ULL : (1ULL << st.p) - 1;
    st.scope = everyone;
    if (opt.collective == LOOP_SCAN) {
        st.scope &= st.rank >= 63 ? ~0ULL : (1ULL << (st.rank + 1)) - 1;
        st.scan_sets = calloc((size_t)opt.calls + 2, sizeof(uint64_t));
        if (!st.scan_sets)
            MPI_Abort(MPI_COMM_WORLD, 2);
    }
    torture_write_pid_file(st.rank);
    torture_map_progress(st.rank);
    ftc_comm_t comm;
    if (ftc_comm_create(MPI_COMM_WORLD, &comm) != MPI_SUCCESS) {
        fprintf(stderr, "ERROR rank %d: ftc_comm_create: %s\n", st.rank, ftc_error_message());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Op user_op;
    MPI_Op_create(user_sum, 1, &user_op);
    void *send = malloc(MAX_LENGTH * sizeof(long long));
    void *recv = malloc(MAX_LENGTH * sizeof(long long));
    double *broadcast = malloc(BCAST_LOOP_MAX_LENGTH * sizeof(double));
    int *gathered = malloc((size_t)st.p * ALLGATHER_MAX_LENGTH * sizeof(int));
    const bool exchanging = opt.collective == LOOP_ALLTOALL || opt.collective == LOOP_ALLTOALLV;
    int *exchanged = malloc(exchanging ? 4 * (size_t)st.p * ALLGATHER_MAX_LENGTH * sizeof(int)
                                       : 1);
    if (!send || !recv || !broadcast || !gathered || !exchanged)
        MPI_Abort(MPI_COMM_WORLD, 2);

    /* Nobody is killed before every pid is on file and every rank is here. */
    MPI_Barrier(MPI_COMM_WORLD);
    torture_mark_started(st.rank);
    const double start = MPI_Wtime();
    for (int call = 1; call <= opt.calls; call++) {
        torture_progress(call);
        const int stop = opt.collective == LOOP_BCAST
            ? torture_bcast_loop_call(comm, &st, &opt, call, broadcast)
            : opt.collective == LOOP_ALLGATHER || opt.collective == LOOP_ALLGATHERV
            ? torture_allgather_loop_call(comm, &st, &opt, call, send, gathered)
            : opt.collective == LOOP_GATHER || opt.collective == LOOP_GATHERV
            ? torture_gather_loop_call(comm, &st, &opt, call, send, gathered)
            : opt.collective == LOOP_SCATTERV
            ? torture_scatter_loop_call(comm, &st, &opt, call, send, gathered)
            : opt.collective == LOOP_REDUCE
            ? torture_reduce_loop_call(comm, &st, &opt, call, user_op, send, recv)
            : exchanging ? torture_alltoall_loop_call(comm, &st, &opt, call, exchanged)
            : opt.collective == LOOP_REDUCE_SCATTER
            ? torture_reduce_scatter_loop_call(comm, &st, &opt, call, user_op, send, recv)
            : opt.collective == LOOP_SCAN
            ? torture_scan_loop_call(comm, &st, &opt, call, user_op, send, recv)
            : torture_call(comm, &st, &opt, call, user_op, send, recv) != 0
              || torture_other(comm, &st, call) != 0;
        if (stop)
            break;
    }
    /* broadcasts, gathers, scatters and reduces report no S of the survivors:
     * one allreduce gives it */
    if ((opt.collective == LOOP_BCAST || opt.collective == LOOP_GATHER
         || opt.collective == LOOP_GATHERV || opt.collective == LOOP_SCATTERV
         || opt.collective == LOOP_REDUCE || opt.collective == LOOP_SCAN || exchanging)
        && st.errors == 0) {
        const options cycling = { .calls = opt.calls, .fixed_length = 0 };
        st.scope = everyone;   /* an allreduce's S names every rank */
        torture_call(comm, &st, &cycling, opt.calls + 1, user_op, send, recv);
    }
    st.loop_seconds = MPI_Wtime() - start;

    /* After an error the ranks may be in different calls: only the
     * communicator's release is still worth trying. */
    if (st.errors == 0 && st.scan_sets)
        after_scans(comm, &st, opt.calls);
    if (st.errors == 0 && (opt.after == AFTER_ALLGATHER || opt.after == AFTER_BOTH))
        after_allgather(comm, &st);
    if (st.errors == 0 && (opt.after == AFTER_SURVIVORS || opt.after == AFTER_BOTH))
        after_survivors(comm, &st);
    if (ftc_comm_free(&comm) != MPI_SUCCESS) {
        fprintf(stderr, "ERROR rank %d: ftc_comm_free: %s\n", st.rank, ftc_error_message());
        st.errors++;
    }
    print_result_line(&st, &opt);
    fflush(stderr);
    free(send);
    free(recv);
    free(st.scan_sets);
    free(broadcast);
    free(gathered);
    free(exchanged);
    MPI_Op_free(&user_op);
    finalize_or_leave(st.wrong || st.errors ? 1 : 0);
    return st.wrong || st.errors ? 1 : 0;
}
