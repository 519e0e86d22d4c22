/*
 * External-kill torture for the PMPI layer: a plain MPI program (no ftcoll
 * call) run under ftcrun while torture.py SIGKILLs ranks from outside.
 *
 * CALLS back-to-back MPI_Allreduce(MPI_SUM) on MPI_LONG_LONG, every other
 * one with MPI_IN_PLACE, lengths cycling over 1, 3, 7, 64, 513, 1000, 8192
 * (or one fixed length). Rank r contributes c * 4^r in every element, with
 * c = 1 + (call + element) % 3: every sum over a set S of ranks is c times
 * a number whose base-4 digits are 1 for the ranks of S and 0 elsewhere,
 * whatever S is. So every survivor checks, for every element, without
 * knowing S beforehand: divisible by c, every digit 0 or 1, its own digit
 * 1, every element naming the same S, and S only shrinking from call to
 * call (a rank missing once is dead and must never come back).
 *
 * After every BURST_EVERY-th allreduce, a burst of BURST_CALLS back-to-back
 * MPI_Bcast calls of 1 .. 256 long longs from the lowest rank of the last
 * S (the same on every survivor): small broadcasts pipeline within the
 * layer's window, so ranks drift calls apart when one is killed. Each
 * returns every element the root's, or MPIX_ERR_PROC_FAILED (the root
 * died before any survivor held its data) with every element the root's
 * or untouched, and then the burst ends, on every survivor at the same
 * call (the outcomes join the digest).
 *
 * Half way between two bursts, one MPI_Allgather of 1, 100 or 1000 long
 * longs per block, every other one in place, each block its owner's; every
 * other pair of them an MPI_Allgatherv of the same blocks in reverse rank
 * order. The
 * program cannot see which blocks the call reports valid, so it checks
 * what it can: its own block exact, every other block its owner's or
 * untouched, in part or whole (a rank that died in the call), and, at the
 * next allreduce, the block of every rank of that allreduce's S exact (a
 * rank alive then was alive at the allgather's end: a survivor, whose
 * block every survivor gets).
 *
 * Four calls later, one MPI_Gather of the same blocks to a rank of the last
 * S that moves from gather to gather (every other pair an MPI_Gatherv, in
 * reverse rank order), every other one in place: the root
 * checks its buffer as the allgather's, and at the next allreduce the
 * block of every rank of its S; the others check only MPI_SUCCESS.
 *
 * Four calls after a burst, one MPI_Reduce of the allreduce's inputs (1,
 * 100 or 1000 of them) to a rank of the last S, in place there every
 * other time: the root checks every element as the allreduce's (the sum
 * names its S), and two allreduces later that its S holds every rank
 * alive then; the others check only MPI_SUCCESS.
 *
 * Two calls after the gather, one MPI_Scatterv to rank r of (r + 1) x 1, 3, 10 or
 * 30 long longs from such a root, its blocks in reverse rank order (every
 * other time an MPI_Scatter of 1, 3, 10 or 30 to each rank): every rank
 * checks its block exact, or, where the root died before sending it,
 * MPIX_ERR_PROC_FAILED, and then that the next allreduce's S lacks the
 * root.
 *
 * Two calls after the allgather, one MPI_Alltoall of the same lengths, each
 * block addressed to its receiver, every other one in place (every other
 * pair an MPI_Alltoallv in reverse rank order), checked as the
 * allgather's: its own block exact, every other one its sender's or
 * untouched, and at the next allreduce every rank of its S exact.
 *
 * Two calls after the reduce, an MPI_Reduce_scatter_block of the same
 * inputs (blocks of 1, 100 or 1000 long longs; every other pair an
 * MPI_Reduce_scatter whose odd ranks get one more), in place every other
 * time: every rank checks its block as the allreduce's, and two
 * allreduces later that the S it names holds every rank alive then.
 *
 * Two calls after a burst, an MPI_Scan of the same inputs (1, 100 or 1000;
 * every other pair an MPI_Exscan), in place every other time: every
 * element names the same set, only ranks up to this one (exscan: before
 * it), this one among them for a scan, and two allreduces later every
 * rank of the prefix alive then.
 *
 * Usage: torture_pmpi CALLS [--length N]
 * Environment: TORTURE_PIDS, TORTURE_STARTED, TORTURE_PROGRESS as for
 * torture_api (torture_launch.h); TORTURE_COMM=dup or split runs every
 * collective on MPI_COMM_WORLD's duplicate, or on a communicator split
 * from it (one colour, ranks in the same order), instead of on
 * MPI_COMM_WORLD itself; TORTURE_COMM=late makes the duplicate before the
 * calls but runs the first half of them on MPI_COMM_WORLD, the rest on it:
 * its first collective may come after deaths. The program frees the
 * communicator it made with MPI_Comm_free at the end, after the deaths.
 * TORTURE_COMM=churn makes, uses and frees a duplicate every 8 calls
 * (churn(), below), so that deaths also come inside constructors.
 *
 * Each survivor ends with one line on stdout:
 *   torture rank=R p=P calls=N done=D wrong=W errors=E digest=HEX
 *           last_failure_call=K dead=- S=HEX loop_s=T
 * where K is the last call whose S shrank (the program cannot see
 * failures otherwise) and the digest is compared across the survivors by
 * a last MPI_Allreduce (MIN and MAX).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <mpi-ext.h>

#include "torture_digest.h"
#include "torture_launch.h"

enum { MAX_RANKS = 31, MAX_LENGTH = TORTURE_MAX_LENGTH, MAX_REPORTED = 4 };   /* 3 * 4^30 < 2^63 */
enum { BURST_EVERY = 16, BURST_CALLS = 70, SCAN_AT = 2, REDUCE_AT = 4, REDUCE_SCATTER_AT = 6,
       GATHER_AT = 8, CHURN_EVERY = 8,
       ALLTOALL_AT = 10, GATHER_TO_ROOT_AT = 12, SCATTER_AT = 14, UNTOUCHED = -1 };


/* The communicator every collective runs on (TORTURE_COMM), and the one
 * the program made (MPI_COMM_NULL: none). */
static MPI_Comm the_comm = MPI_COMM_NULL, made_comm = MPI_COMM_NULL;

typedef struct {
    int rank, p;
    int calls, fixed_length;
    int done, wrong, errors;
    uint64_t digest;
    uint64_t s;                /* S of the last call: all ranks at first */
    int last_change_call;
    uint64_t gathered;         /* the last allgather's exact blocks, until the next allreduce */
    int gathered_call;         /* that allgather's call (0: none pending) */
    int lost_root;             /* a scatterv's root that died with this rank's block
                                * (-1: none), until the next allreduce */
    uint64_t reduced;          /* the S of the last reduce this rank was the root of,
                                * or of the last reduce_scatter */
    int reduced_call;          /* that call (0: none pending) */
    double loop_seconds;
} run_state;

static long long factor_of(int call, int element)
{
    return 1 + (call + element) % 3;
}

/* The set a sum names (its base-4 digits), or -1 (all ones) for a digit
 * that is neither 0 nor 1 or a value that is not a multiple of c. */
static uint64_t set_of(long long value, long long c, int p)
{
    if (value <= 0 || value % c != 0)
        return UINT64_MAX;
    unsigned long long v = (unsigned long long)(value / c);
    uint64_t s = 0;
    for (int r = 0; r < p && v != 0; r++, v >>= 2) {
        if ((v & 3u) > 1)
            return UINT64_MAX;
        s |= (uint64_t)(v & 1u) << r;
    }
    return v == 0 ? s : UINT64_MAX;
}

/* Every element of one result (elements first .. first + n - 1 of the
 * call's vector) against the rules; returns the S they name (the first
 * element's) and counts the call wrong if any rule fails. */
static uint64_t check_result(run_state *st, int call, const long long *sum, int first, int n)
{
    int bad = 0;
    const uint64_t s = set_of(sum[0], factor_of(call, first), st->p);
    for (int i = 0; i < n; i++) {
        const uint64_t named = set_of(sum[i], factor_of(call, first + i), st->p);
        const char *why = named == UINT64_MAX             ? "not c times 0/1 base-4 digits"
                          : named != s                    ? "names another S than element 0"
                          : !((named >> st->rank) & 1u)   ? "lacks this rank"
                          : (named & ~st->s) != 0         ? "brings back a rank missing before"
                                                          : NULL;
        if (why && bad++ < MAX_REPORTED)
            fprintf(stderr, "MISMATCH rank %d call %d n %d element %d: %lld (c=%lld) %s; "
                    "previous S=%#llx\n", st->rank, call, n, first + i, sum[i],
                    factor_of(call, first + i), why,
                    (unsigned long long)st->s);
    }
    if (bad > MAX_REPORTED)
        fprintf(stderr, "MISMATCH rank %d call %d: %d wrong elements of %d in all\n", st->rank,
                call, bad, n);
    st->wrong += bad != 0;
    return s;
}

/* One MPI_Allreduce, checked. Returns 0 to go on, 1 after an error. */
static int torture_call(run_state *st, int call, long long *send, long long *recv)
{
    const int n = st->fixed_length ? st->fixed_length : torture_cycle_length(call);
    const int in_place = call % 2 == 0;
    long long *input = in_place ? recv : send;
    for (int i = 0; i < n; i++)
        input[i] = factor_of(call, i) * (1LL << (2 * st->rank));
    const int rc = MPI_Allreduce(in_place ? MPI_IN_PLACE : send, recv, n, MPI_LONG_LONG,
                                 MPI_SUM, the_comm);
    if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int length = 0;
        MPI_Error_string(rc, text, &length);
        fprintf(stderr, "ERROR rank %d call %d: MPI_Allreduce returned %d: %s\n", st->rank, call,
                rc, text);
        st->errors++;
        return 1;
    }
    const uint64_t s = check_result(st, call, recv, 0, n);
    if (st->gathered_call && s != UINT64_MAX && (s & ~st->gathered) != 0) {
        fprintf(stderr, "MISMATCH rank %d call %d: the allgather after call %d lacks the "
                "blocks of ranks alive now (exact %#llx, S %#llx)\n", st->rank, call,
                st->gathered_call, (unsigned long long)st->gathered, (unsigned long long)s);
        st->wrong++;
    }
    st->gathered_call = 0;
    if (st->lost_root >= 0 && s != UINT64_MAX && (s >> st->lost_root & 1)) {
        fprintf(stderr, "MISMATCH rank %d call %d: a scatterv failed for root %d's death, which "
                "is in S %#llx\n", st->rank, call, st->lost_root, (unsigned long long)s);
        st->wrong++;
    }
    st->lost_root = -1;
    /* Two allreduces later: a rank of this S entered this call after the
     * allreduce before it, which needed every rank's input, so after every
     * rank had left the reduce: it was alive when its root or anyone met
     * for it, and its own input went into S. (One allreduce later, a rank
     * whose input died with its parent in the tree may have died itself
     * just after the root returned, yet be in the next S.) */
    if (st->reduced_call && call >= st->reduced_call + 2) {
        if (s != UINT64_MAX && (s & ~st->reduced) != 0) {
            fprintf(stderr, "MISMATCH rank %d call %d: the reduce(_scatter) or scan of call %d "
                    "lacks ranks alive now (its S %#llx, S %#llx)\n", st->rank, call,
                    st->reduced_call, (unsigned long long)st->reduced, (unsigned long long)s);
            st->wrong++;
        }
        st->reduced_call = 0;
    }
    if (s != UINT64_MAX) {
        if (s != st->s)
            st->last_change_call = call;
        st->s &= s;   /* never grows: a returning rank was reported above */
    }
    const int32_t call_number = call;
    st->digest = torture_digest_add(st->digest, &call_number, sizeof(call_number));
    st->digest = torture_digest_add(st->digest, &s, sizeof(s));
    st->digest = torture_digest_add(st->digest, recv, (size_t)n * sizeof(long long));
    st->done = call;
    return 0;
}

/* ---- bursts of broadcasts ------------------------------------------------------------ */

static long long burst_element(int call, int k, int i) { return (call * 64LL + k) * 100000 + i; }

/* Broadcast k of the burst after allreduce `call`: 0 to go on, 1 when it
 * ended the burst (the root's death), counting what was wrong. */
static int burst_broadcast(run_state *st, int call, int k, int root, long long *data)
{
    static const int lengths[] = { 1, 256, 7, 64, 3, 200, 32, 100 };
    const int n = lengths[k % 8];
    for (int i = 0; i < n; i++)
        data[i] = st->rank == root ? burst_element(call, k, i) : UNTOUCHED;
    const int rc = MPI_Bcast(data, n, MPI_LONG_LONG, root, the_comm);
    int error_class = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &error_class);
    if (rc != MPI_SUCCESS && error_class != MPIX_ERR_PROC_FAILED) {
        fprintf(stderr, "ERROR rank %d call %d broadcast %d: MPI_Bcast returned class %d\n",
                st->rank, call, k, error_class);
        st->errors++;
    }
    int bad = 0;
    for (int i = 0; i < n && st->rank != root; i++) {
        const bool root_s = data[i] == burst_element(call, k, i);
        if (!root_s && (rc == MPI_SUCCESS || data[i] != UNTOUCHED) && bad++ < MAX_REPORTED)
            fprintf(stderr, "MISMATCH rank %d call %d broadcast %d from %d element %d: %lld\n",
                    st->rank, call, k, root, i, data[i]);
    }
    st->wrong += bad != 0;
    const int32_t outcome[3] = { call, k, rc == MPI_SUCCESS };
    st->digest = torture_digest_add(st->digest, outcome, sizeof(outcome));
    return rc != MPI_SUCCESS;
}

static void burst(run_state *st, int call, long long *data)
{
    int root = 0;
    while (root < st->p - 1 && !((st->s >> root) & 1u))
        root++;
    for (int k = 0; k < BURST_CALLS; k++)
        if (burst_broadcast(st, call, k, root, data) != 0)
            return;
}

/* ---- allgathers --------------------------------------------------------------------- */

static long long gather_element(int call, int rank, int i) { return (call * 64LL + rank) * 10000 + i; }

/* An alltoall's element i from rank `from` to rank `to` (an allgather's
 * blocks go to every rank alike: to = 0). */
static long long addressed_element(int call, int from, int to, int i)
{
    return gather_element(call, from, i) + ((long long)to << 40);
}

/* Block r (n long longs at `block`, addressed to rank `to`): 1 when exact,
 * 0 when each element is exact or untouched (its owner died in the call),
 * -1 otherwise. */
static int block_state(const long long *block, int n, int call, int r, int to)
{
    int exact = 0;
    for (int i = 0; i < n; i++) {
        const long long v = block[i];
        if (v == addressed_element(call, r, to, i))
            exact++;
        else if (v != UNTOUCHED)
            return -1;
    }
    return exact == n;
}

/* A gathered buffer: its own block exact, every other one its owner's or
 * untouched; the exact ones, for the next allreduce to compare with its S. */
static void check_gathered(run_state *st, int call, const char *name, const long long *all,
                           const int *displs, int n, bool addressed)
{
    st->gathered = 0;
    st->gathered_call = call;
    for (int r = 0; r < st->p; r++) {
        const int state = block_state(all + displs[r], n, call, r, addressed ? st->rank : 0);
        if (state < 0 || (r == st->rank && state != 1)) {
            fprintf(stderr, "MISMATCH rank %d call %d: %s block %d of %d long longs "
                    "is neither its owner's nor untouched\n", st->rank, call, name, r, n);
            st->wrong++;
        }
        st->gathered |= (uint64_t)(state == 1) << r;
    }
}

static void gather(run_state *st, int call, long long *send, long long *all)
{
    static const int lengths[] = { 1, 100, 1000 };
    const int n = lengths[(call / BURST_EVERY) % 3], in_place = (call / BURST_EVERY) % 2;
    const bool as_v = (call / BURST_EVERY) % 4 >= 2;
    const char *name = as_v ? "MPI_Allgatherv" : "MPI_Allgather";
    int counts[MAX_RANKS], displs[MAX_RANKS];
    for (int r = 0; r < st->p; r++) {
        counts[r] = n;
        displs[r] = (as_v ? st->p - 1 - r : r) * n;
    }
    for (size_t i = 0; i < (size_t)n * (size_t)st->p; i++)
        all[i] = UNTOUCHED;
    long long *own = in_place ? all + displs[st->rank] : send;
    for (int i = 0; i < n; i++)
        own[i] = gather_element(call, st->rank, i);
    const void *from = in_place ? MPI_IN_PLACE : send;
    const int rc = as_v ? MPI_Allgatherv(from, n, MPI_LONG_LONG, all, counts, displs,
                                         MPI_LONG_LONG, the_comm)
                        : MPI_Allgather(from, n, MPI_LONG_LONG, all, n, MPI_LONG_LONG,
                                        the_comm);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "ERROR rank %d call %d: %s returned %d\n", st->rank, call, name, rc);
        st->errors++;
        return;
    }
    check_gathered(st, call, name, all, displs, n, false);
}

/* MPI_Gather of the same blocks to a rank of the last S; every other pair
 * an MPI_Gatherv of them in reverse rank order. */
static void gather_to_root(run_state *st, int call, long long *send, long long *all)
{
    static const int lengths[] = { 1, 100, 1000 };
    const int n = lengths[(call / BURST_EVERY) % 3], in_place = (call / BURST_EVERY) % 2;
    const bool as_v = (call / BURST_EVERY) % 4 >= 2;
    int members = 0, pick = 0, root = 0, counts[MAX_RANKS], displs[MAX_RANKS];
    for (int r = 0; r < st->p; r++) {
        members += (st->s >> r) & 1u;
        counts[r] = n;
        displs[r] = (as_v ? st->p - 1 - r : r) * n;
    }
    pick = (call / BURST_EVERY) % (members > 0 ? members : 1);
    for (int r = 0; r < st->p; r++)
        if ((st->s >> r) & 1u && pick-- == 0)
            root = r;
    const bool at_root = st->rank == root;
    for (size_t i = 0; i < (size_t)n * (size_t)st->p; i++)
        all[i] = UNTOUCHED;
    long long *own = in_place && at_root ? all + displs[st->rank] : send;
    for (int i = 0; i < n; i++)
        own[i] = gather_element(call, st->rank, i);
    const void *from = in_place && at_root ? MPI_IN_PLACE : send;
    const char *name = as_v ? "MPI_Gatherv" : "MPI_Gather";
    const int rc = as_v ? MPI_Gatherv(from, n, MPI_LONG_LONG, all, counts, displs, MPI_LONG_LONG,
                                      root, the_comm)
                        : MPI_Gather(from, n, MPI_LONG_LONG, all, n, MPI_LONG_LONG, root,
                                     the_comm);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "ERROR rank %d call %d: %s to %d returned %d\n", st->rank, call, name,
                root, rc);
        st->errors++;
        return;
    }
    if (at_root)
        check_gathered(st, call, name, all, displs, n, false);
}

/* The root of the gather at `call`, a rank of the last S. */
static int root_in_s(const run_state *st, int call)
{
    int members = 0, root = 0;
    for (int r = 0; r < st->p; r++)
        members += (st->s >> r) & 1u;
    int pick = (call / BURST_EVERY) % (members > 0 ? members : 1);
    for (int r = 0; r < st->p; r++)
        if ((st->s >> r) & 1u && pick-- == 0)
            root = r;
    return root;
}

/* MPI_Scatterv from a rank of the last S: rank r gets r + 1 (times 1, 3,
 * 10, 30 in turn) long longs; the root's blocks in reverse rank order (a
 * layout past MAX_LENGTH on many ranks: no scatterv, on every rank). */
static void scatter(run_state *st, int call, long long *all, long long *mine)
{
    const int scale = (int[]){ 1, 3, 10, 30 }[(call / BURST_EVERY) % 4];
    const int root = root_in_s(st, call);
    int counts[MAX_RANKS], displs[MAX_RANKS], at = 0;
    for (int r = st->p - 1; r >= 0; r--) {
        counts[r] = (r + 1) * scale;
        displs[r] = at;
        at += counts[r];
    }
    if ((size_t)at > MAX_LENGTH)
        return;
    for (int r = 0; r < st->p; r++)
        for (int i = 0; i < counts[r]; i++)
            all[displs[r] + i] = gather_element(call, r, i);
    const int n = counts[st->rank];
    for (int i = 0; i <= n && i < MAX_LENGTH; i++)
        mine[i] = UNTOUCHED;
    const bool as_v = (call / BURST_EVERY / 4) % 2;   /* else an MPI_Scatter of `scale` each */
    const int rc = as_v ? MPI_Scatterv(all, counts, displs, MPI_LONG_LONG, mine, n, MPI_LONG_LONG,
                                       root, the_comm)
                        : MPI_Scatter(all, scale, MPI_LONG_LONG, mine, scale, MPI_LONG_LONG, root,
                                      the_comm);
    int error_class = rc;
    MPI_Error_class(rc, &error_class);
    if (rc != MPI_SUCCESS && (error_class != MPIX_ERR_PROC_FAILED || st->rank == root)) {
        fprintf(stderr, "ERROR rank %d call %d: %s from %d returned %d\n", st->rank, call,
                as_v ? "MPI_Scatterv" : "MPI_Scatter", root, rc);
        st->errors++;
        return;
    }
    if (rc != MPI_SUCCESS) {
        st->lost_root = root;
        return;
    }
    const int got = as_v ? n : scale;   /* MPI_Scatter: block r is `scale` elements at r x scale */
    for (int i = 0; i <= got && i < MAX_LENGTH; i++) {
        const long long want = i == got ? UNTOUCHED
                             : as_v ? gather_element(call, st->rank, i)
                                    : all[st->rank * scale + i];
        if (mine[i] != want) {
            fprintf(stderr, "MISMATCH rank %d call %d: %s from %d, element %d: %lld, "
                    "expected %lld\n", st->rank, call, as_v ? "MPI_Scatterv" : "MPI_Scatter",
                    root, i, mine[i], want);
            st->wrong++;
            return;
        }
    }
}

/* ---- alltoalls ----------------------------------------------------------------------- */

/* MPI_Alltoall of 1, 100 or 1000 long longs a block, every other one in
 * place; every other pair an MPI_Alltoallv of them in reverse rank order.
 * Checked as an allgather's (each block addressed to this rank), and at
 * the next allreduce. */
static void alltoall(run_state *st, int call, long long *send, long long *all)
{
    static const int lengths[] = { 1, 100, 1000 };
    const int n = lengths[(call / BURST_EVERY) % 3], in_place = (call / BURST_EVERY) % 2;
    const bool as_v = (call / BURST_EVERY) % 4 >= 2;
    const char *name = as_v ? "MPI_Alltoallv" : "MPI_Alltoall";
    int counts[MAX_RANKS], displs[MAX_RANKS];
    for (int r = 0; r < st->p; r++) {
        counts[r] = n;
        displs[r] = (as_v ? st->p - 1 - r : r) * n;
    }
    long long *from = in_place ? all : send;
    for (int r = 0; r < st->p; r++)
        for (int i = 0; i < n; i++)
            from[displs[r] + i] = addressed_element(call, st->rank, r, i);
    if (!in_place)
        for (size_t i = 0; i < (size_t)n * (size_t)st->p; i++)
            all[i] = UNTOUCHED;
    const void *sendbuf = in_place ? MPI_IN_PLACE : send;
    const int rc = as_v ? MPI_Alltoallv(sendbuf, counts, displs, MPI_LONG_LONG, all, counts,
                                        displs, MPI_LONG_LONG, the_comm)
                        : MPI_Alltoall(sendbuf, n, MPI_LONG_LONG, all, n, MPI_LONG_LONG,
                                       the_comm);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "ERROR rank %d call %d: %s returned %d\n", st->rank, call, name, rc);
        st->errors++;
        return;
    }
    /* in place, a dead rank's block may still hold, in whole or part, this
     * rank's block for it: counted as untouched */
    for (int r = 0; r < st->p && in_place; r++)
        for (int i = 0; i < n && r != st->rank; i++)
            if (all[displs[r] + i] == addressed_element(call, st->rank, r, i))
                all[displs[r] + i] = UNTOUCHED;
    check_gathered(st, call, name, all, displs, n, true);
}

/* MPI_Reduce of the allreduce's inputs (1, 100 or 1000 of them) to a rank
 * of the last S, in place there every other time: the root checks every
 * element as the allreduce's, and two allreduces later that its S holds
 * every rank alive then; the others check only MPI_SUCCESS. */
static void reduce(run_state *st, int call, long long *send, long long *recv)
{
    const int n = (int[]){ 1, 100, 1000 }[(call / BURST_EVERY) % 3];
    const int root = root_in_s(st, call + BURST_EVERY / 2);
    const bool in_place = st->rank == root && (call / BURST_EVERY) % 2 == 0;
    long long *input = in_place ? recv : send;
    for (int i = 0; i < n; i++)
        input[i] = factor_of(call, i) * (1LL << (2 * st->rank));
    const int rc = MPI_Reduce(in_place ? MPI_IN_PLACE : send, recv, n, MPI_LONG_LONG, MPI_SUM,
                              root, the_comm);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "ERROR rank %d call %d: MPI_Reduce to %d returned %d\n", st->rank, call,
                root, rc);
        st->errors++;
        return;
    }
    if (st->rank != root)
        return;
    st->reduced = check_result(st, call, recv, 0, n);
    st->reduced_call = call;
}

/* MPI_Reduce_scatter_block of the allreduce's inputs, blocks of 1, 100 or
 * 1000, in place every other time; every other pair an MPI_Reduce_scatter
 * whose odd ranks get one more. Every rank checks every element of its
 * block as the allreduce's (they name its S), and two allreduces later
 * that its S holds every rank alive then. */
static void reduce_scatter(run_state *st, int call, long long *send, long long *recv)
{
    const int k = (int[]){ 1, 100, 1000 }[(call / BURST_EVERY) % 3];
    const bool in_place = (call / BURST_EVERY) % 2 == 0;
    const bool as_block = (call / BURST_EVERY) % 4 < 2;
    int counts[MAX_RANKS], first = 0, length = 0;
    for (int r = 0; r < st->p; r++) {
        counts[r] = as_block ? k : k + r % 2;
        first += r < st->rank ? counts[r] : 0;
        length += counts[r];
    }
    long long *input = in_place ? recv : send;
    for (int i = 0; i < length; i++)
        input[i] = factor_of(call, i) * (1LL << (2 * st->rank));
    const void *from = in_place ? MPI_IN_PLACE : send;
    const int rc = as_block
        ? MPI_Reduce_scatter_block(from, recv, k, MPI_LONG_LONG, MPI_SUM, the_comm)
        : MPI_Reduce_scatter(from, recv, counts, MPI_LONG_LONG, MPI_SUM, the_comm);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "ERROR rank %d call %d: %s returned %d\n", st->rank, call,
                as_block ? "MPI_Reduce_scatter_block" : "MPI_Reduce_scatter", rc);
        st->errors++;
        return;
    }
    st->reduced = check_result(st, call, recv, first, counts[st->rank]);
    st->reduced_call = call;
}

/* MPI_Scan of the allreduce's inputs (every other pair MPI_Exscan), 1, 100
 * or 1000 of them, in place every other time. Every element must name the
 * same set, within the ranks up to this one (exscan: before it), holding
 * this rank for a scan; two allreduces later, that set must hold every
 * rank of the prefix alive then. An exscan left as it was (no rank before
 * this one in S) names none. The sets differ between ranks: not in the
 * digest. */
static void scan(run_state *st, int call, long long *send, long long *recv)
{
    const int k = (int[]){ 1, 100, 1000 }[(call / BURST_EVERY) % 3];
    const bool in_place = (call / BURST_EVERY) % 2 == 0;
    const bool exclusive = (call / BURST_EVERY) % 4 >= 2;
    long long *input = in_place ? recv : send;
    for (int i = 0; i < k; i++) {
        input[i] = factor_of(call, i) * (1LL << (2 * st->rank));
        if (!in_place)
            recv[i] = 0;   /* as it was: names no rank */
    }
    const void *from = in_place ? MPI_IN_PLACE : send;
    const int rc = exclusive ? MPI_Exscan(from, recv, k, MPI_LONG_LONG, MPI_SUM, the_comm)
                             : MPI_Scan(from, recv, k, MPI_LONG_LONG, MPI_SUM, the_comm);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "ERROR rank %d call %d: %s returned %d\n", st->rank, call,
                exclusive ? "MPI_Exscan" : "MPI_Scan", rc);
        st->errors++;
        return;
    }
    if (exclusive && st->rank == 0)
        return;   /* its recvbuf is undefined */
    const uint64_t prefix = (1ULL << (exclusive ? st->rank : st->rank + 1)) - 1;
    /* an exscan with no rank of S before this one leaves recvbuf as it was */
    const long long own = 1LL << (2 * st->rank);
    const bool untouched = exclusive && recv[0] == (in_place ? factor_of(call, 0) * own : 0);
    int bad = 0;
    const uint64_t named = untouched ? 0 : set_of(recv[0], factor_of(call, 0), st->p);
    for (int i = 0; i < k; i++) {
        const long long before = in_place ? factor_of(call, i) * own : 0;
        const uint64_t here = untouched ? (recv[i] == before ? 0 : UINT64_MAX)
                                        : set_of(recv[i], factor_of(call, i), st->p);
        const char *why = here == UINT64_MAX                   ? "not c times 0/1 base-4 digits"
                          : here != named                      ? "names another set than element 0"
                          : (here & ~prefix) != 0              ? "names a rank past the prefix"
                          : !exclusive && !(here >> st->rank & 1u) ? "lacks this rank"
                                                               : NULL;
        if (why && bad++ < MAX_REPORTED)
            fprintf(stderr, "MISMATCH rank %d call %d %s k %d element %d: %lld %s\n", st->rank,
                    call, exclusive ? "exscan" : "scan", k, i, recv[i], why);
    }
    st->wrong += bad != 0;
    if (!bad) {   /* ranks past the prefix are no business of this call's */
        st->reduced = named | ~prefix;
        st->reduced_call = call;
    }
}

/* TORTURE_COMM=churn: every CHURN_EVERY calls, a duplicate of
 * MPI_COMM_WORLD made, used by one MPI_Barrier and freed, until a death
 * fails the making (then, over a dead rank, every later one would fail).
 * Deaths then come inside constructors too: the making must succeed on
 * every survivor or fail on every one (MPIX_ERR_PROC_FAILED), which the
 * digest compares. */
static bool churning;

static void churn(run_state *st, int call)
{
    MPI_Comm made = MPI_COMM_NULL;
    int rc = MPI_Comm_dup(MPI_COMM_WORLD, &made);
    int class = MPI_SUCCESS;
    MPI_Error_class(rc, &class);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Barrier(made);
        if (rc == MPI_SUCCESS)
            rc = MPI_Comm_free(&made);
        if (rc != MPI_SUCCESS) {
            fprintf(stderr, "ERROR rank %d call %d: a duplicate's barrier or free returned %d\n",
                    st->rank, call, rc);
            st->errors++;
        }
    } else if (class != MPIX_ERR_PROC_FAILED || made != MPI_COMM_NULL) {
        fprintf(stderr, "ERROR rank %d call %d: MPI_Comm_dup returned %d (class %d)\n", st->rank,
                call, rc, class);
        st->errors++;
    }
    churning = rc == MPI_SUCCESS;
    const int outcome[2] = { call, rc == MPI_SUCCESS };
    st->digest = torture_digest_add(st->digest, outcome, sizeof(outcome));
}

/* MPI_COMM_WORLD, its duplicate, or a communicator split from it
 * (TORTURE_COMM); "late": the duplicate, made now, taken at half the
 * calls (made_comm). */
static int open_the_comm(void)
{
    const char *which = getenv("TORTURE_COMM");
    the_comm = MPI_COMM_WORLD;
    churning = which && strcmp(which, "churn") == 0;
    if (!which || !*which || strcmp(which, "world") == 0 || churning)
        return MPI_SUCCESS;
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const bool late = strcmp(which, "late") == 0;
    const int rc = strcmp(which, "dup") == 0 || late ? MPI_Comm_dup(MPI_COMM_WORLD, &made_comm)
                   : strcmp(which, "split") == 0
                       ? MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &made_comm)
                       : MPI_ERR_ARG;
    if (rc != MPI_SUCCESS)
        fprintf(stderr, "torture_pmpi: TORTURE_COMM=%s: no such communicator\n", which);
    else if (!late)
        the_comm = made_comm;
    return rc;
}

/* Freed through the layer, with every survivor, after the deaths. */
static void close_the_comm(run_state *st)
{
    if (made_comm == MPI_COMM_NULL)
        return;
    const int rc = MPI_Comm_free(&made_comm);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "ERROR rank %d: MPI_Comm_free returned %d\n", st->rank, rc);
        st->errors++;
    }
}

/* The survivors' digests, compared by one more (fault-tolerant) allreduce. */
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    run_state st = { .digest = TORTURE_DIGEST_START, .calls = argc > 1 ? atoi(argv[1]) : 100,
                     .lost_root = -1 };
    MPI_Comm_rank(MPI_COMM_WORLD, &st.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &st.p);
    if (argc > 3 && strcmp(argv[2], "--length") == 0)
        st.fixed_length = atoi(argv[3]);
    if (st.calls < 1 || st.p > MAX_RANKS || st.fixed_length < 0 || st.fixed_length > MAX_LENGTH) {
        if (st.rank == 0)
            fprintf(stderr, "usage: torture_pmpi CALLS [--length 1..%d] (at most %d ranks)\n",
                    MAX_LENGTH, MAX_RANKS);
        MPI_Finalize();
        return 2;
    }
    /* Errors come back as return codes, to be counted, not as an abort. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (open_the_comm() != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 2);
    st.s = (1ULL << st.p) - 1;
    torture_write_pid_file(st.rank);
    torture_map_progress(st.rank);
    long long *send = malloc(MAX_LENGTH * sizeof(long long));
    long long *recv = malloc(MAX_LENGTH * sizeof(long long));
    if (!send || !recv)
        MPI_Abort(MPI_COMM_WORLD, 2);

    /* Nobody is killed before every pid is on file and every rank is here. */
    MPI_Barrier(MPI_COMM_WORLD);
    torture_mark_started(st.rank);
    const double start = MPI_Wtime();
    for (int call = 1; call <= st.calls; call++) {
        torture_progress(call);
        if (call == st.calls / 2 + 1 && made_comm != MPI_COMM_NULL)
            the_comm = made_comm;   /* "late": its first collective, maybe after deaths */
        if (churning && call % CHURN_EVERY == 0)
            churn(&st, call);
        if (torture_call(&st, call, send, recv) != 0)
            break;
        if (call % BURST_EVERY == 0)
            burst(&st, call, send);
        if (call % BURST_EVERY == SCAN_AT)
            scan(&st, call, send, recv);
        if (call % BURST_EVERY == REDUCE_AT)
            reduce(&st, call, send, recv);
        if (call % BURST_EVERY == REDUCE_SCATTER_AT)
            reduce_scatter(&st, call, send, recv);
        if (call % BURST_EVERY == GATHER_AT)
            gather(&st, call, send, recv);
        if (call % BURST_EVERY == ALLTOALL_AT)
            alltoall(&st, call, send, recv);
        if (call % BURST_EVERY == GATHER_TO_ROOT_AT)
            gather_to_root(&st, call, send, recv);
        if (call % BURST_EVERY == SCATTER_AT)
            scatter(&st, call, send, recv);
        if (st.errors)
            break;
    }
    st.loop_seconds = MPI_Wtime() - start;
    if (st.errors == 0) {
        int outcome = torture_compare_digests(st.digest, the_comm, st.rank);
        st.errors += outcome < 0;
        st.wrong += outcome > 0;
    }
    close_the_comm(&st);

    printf("torture rank=%d p=%d calls=%d done=%d wrong=%d errors=%d digest=%016llx "
           "last_failure_call=%d dead=- S=%llx loop_s=%.3f\n",
           st.rank, st.p, st.calls, st.done, st.wrong, st.errors, (unsigned long long)st.digest,
           st.last_change_call, (unsigned long long)st.s, st.loop_seconds);
    fflush(stdout);
    fflush(stderr);
    free(send);
    free(recv);
    MPI_Finalize();   /* the layer's: it leaves without MPI's fence after a failure */
    return st.wrong || st.errors ? 1 : 0;
}
