/*
 * An unmodified MPI program (no ftcoll header, no ftcoll call) that checks
 * what the PMPI layer must keep exactly as MPI defines it, run under
 * ftcrun: every element of every buffer, on every rank.
 *
 *   - MPI_Allreduce: in place and not, several types and ops, MAXLOC on a
 *     pair type, count 0, a non-commutative user op (left to MPI: the
 *     result is the product in rank order), MPI_COMM_SELF
 *   - MPI_Reduce: to every root, in place and not, sums and MAXLOC on a
 *     pair type, a non-commutative user op and a derived type (both left
 *     to MPI), count 0; the other ranks' recvbuf untouched
 *   - MPI_Allgather: in place, a strided receive type, a derived send type
 *   - MPI_Allgatherv: counts with zeros, blocks in reverse order with gaps,
 *     in place
 *   - MPI_Bcast: from every root, a strided type, count 0
 *   - sub-communicators made and freed in a loop; an intercommunicator
 *   - errors with MPI_ERRORS_RETURN: the same class MPI gives; a scan
 *     whose last rank alone passes MPI_OP_NULL, then exact sums
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

static int rank, size, failures;

static void expect(int ok, const char *what, long got, long want)
{
    if (!ok) {
        failures++;
        if (failures < 10)
            printf("FAIL rank %d: %s: got %ld, expected %ld\n", rank, what, got, want);
    }
}

/* ---- allreduce ---------------------------------------------------------- */

/* 2x2 matrices of unsigned ints: associative, not commutative. */
static void matrix_product(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    unsigned *a = in, *b = inout;
    for (int m = 0; m < *len; m++, a += 4, b += 4) {
        const unsigned r[4] = { a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                                a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3] };
        memcpy(b, r, sizeof(r));
    }
}

static void matrix_of(int r, unsigned m[4])
{
    m[0] = (unsigned)r + 1; m[1] = 2; m[2] = (unsigned)(r % 3); m[3] = 1;
}

/* M_0 x M_1 x ... x M_(p-1), in rank order: what MPI's non-commutative
 * reductions give. */
static void product_in_rank_order(int p, unsigned want[4])
{
    const unsigned identity[4] = { 1, 0, 0, 1 };
    memcpy(want, identity, sizeof(identity));
    for (int r = 0; r < p; r++) {
        unsigned m[4];
        matrix_of(r, m);
        int one = 1;
        matrix_product(want, m, &one, NULL);
        memcpy(want, m, sizeof(m));
    }
}

static void check_allreduce(MPI_Comm comm, const char *name)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    enum { N = 1000 };
    int *ints = malloc(sizeof(int) * N), *sums = malloc(sizeof(int) * N);
    for (int i = 0; i < N; i++)
        ints[i] = me * N + i;
    MPI_Allreduce(ints, sums, N, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < N; i++)
        expect(sums[i] == N * p * (p - 1) / 2 + p * i, name, sums[i], N * p * (p - 1) / 2 + p * i);
    MPI_Allreduce(MPI_IN_PLACE, ints, N, MPI_INT, MPI_MAX, comm);
    for (int i = 0; i < N; i++)
        expect(ints[i] == (p - 1) * N + i, "allreduce in place MAX", ints[i], (p - 1) * N + i);

    double value = 0.5 * me, high;
    MPI_Allreduce(&value, &high, 1, MPI_DOUBLE, MPI_MAX, comm);
    expect(high == 0.5 * (p - 1), "allreduce MAX double", (long)(high * 2), p - 1);

    struct { double value; int rank; } pair = { (double)(me % 3), me }, best;
    MPI_Allreduce(&pair, &best, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
    const int top = p >= 3 ? 2 : p - 1;   /* the lowest rank holding the maximum */
    expect(best.value == (double)(top % 3) && best.rank == top, "allreduce MAXLOC",
           best.rank, top);

    MPI_Allreduce(ints, sums, 0, MPI_INT, MPI_SUM, comm);   /* count 0 */

    MPI_Op product;
    MPI_Op_create(matrix_product, 0, &product);
    MPI_Datatype matrix;
    MPI_Type_contiguous(4, MPI_UNSIGNED, &matrix);
    MPI_Type_commit(&matrix);
    unsigned mine[4], all[4], want[4];
    matrix_of(me, mine);
    MPI_Allreduce(mine, all, 1, matrix, product, comm);
    product_in_rank_order(p, want);
    for (int i = 0; i < 4; i++)
        expect(all[i] == want[i], "allreduce non-commutative user op", all[i], want[i]);
    MPI_Op_free(&product);
    MPI_Type_free(&matrix);
    free(ints);
    free(sums);
}

/* ---- allgather ---------------------------------------------------------- */

static void check_allgather(MPI_Comm comm)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    enum { B = 5 };
    int *all = malloc(sizeof(int) * (size_t)(B * p)), mine[B];
    for (int i = 0; i < B; i++)
        mine[i] = me * 100 + i;
    MPI_Allgather(mine, B, MPI_INT, all, B, MPI_INT, comm);
    for (int r = 0; r < p; r++)
        for (int i = 0; i < B; i++)
            expect(all[r * B + i] == r * 100 + i, "allgather", all[r * B + i], r * 100 + i);

    for (int i = 0; i < B * p; i++)
        all[i] = -1;
    memcpy(all + me * B, mine, sizeof(mine));
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, B, MPI_INT, comm);
    for (int r = 0; r < p; r++)
        for (int i = 0; i < B; i++)
            expect(all[r * B + i] == r * 100 + i, "allgather in place", all[r * B + i],
                   r * 100 + i);

    /* every other int of the receive buffer; the send side a contiguous type */
    MPI_Datatype strided, block;
    MPI_Type_vector(B, 1, 2, MPI_INT, &strided);
    MPI_Aint lb, extent;
    MPI_Type_get_extent(strided, &lb, &extent);
    MPI_Datatype slot;
    MPI_Type_create_resized(strided, 0, 2 * B * (MPI_Aint)sizeof(int), &slot);
    MPI_Type_commit(&slot);
    MPI_Type_contiguous(B, MPI_INT, &block);
    MPI_Type_commit(&block);
    int *wide = malloc(sizeof(int) * (size_t)(2 * B * p));
    for (int i = 0; i < 2 * B * p; i++)
        wide[i] = -7;
    MPI_Allgather(mine, 1, block, wide, 1, slot, comm);
    for (int r = 0; r < p; r++)
        for (int i = 0; i < 2 * B; i++) {
            const int want = i % 2 ? -7 : r * 100 + i / 2;
            expect(wide[r * 2 * B + i] == want, "allgather strided", wide[r * 2 * B + i], want);
        }
    MPI_Type_free(&strided);
    MPI_Type_free(&slot);
    MPI_Type_free(&block);
    free(wide);
    free(all);
}

/* Rank r's block: r + 1 ints, none for r = 1 mod 3, in reverse rank order
 * with a gap of two ints before each block. */
static void check_allgatherv(MPI_Comm comm)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int *counts = malloc(sizeof(int) * (size_t)p), *displs = malloc(sizeof(int) * (size_t)p);
    int at = 0;
    for (int r = p - 1; r >= 0; r--) {
        counts[r] = r % 3 == 1 ? 0 : r + 1;
        displs[r] = at + 2;
        at += 2 + counts[r];
    }
    int *all = malloc(sizeof(int) * (size_t)(at + 1)), mine[64];
    for (int i = 0; i < counts[me]; i++)
        mine[i] = me * 100 + i;
    for (int in_place = 0; in_place < 2; in_place++) {
        for (int i = 0; i < at; i++)
            all[i] = -7;
        if (in_place)
            memcpy(all + displs[me], mine, sizeof(int) * (size_t)counts[me]);
        MPI_Allgatherv(in_place ? MPI_IN_PLACE : mine, counts[me], MPI_INT, all, counts, displs,
                       MPI_INT, comm);
        for (int r = 0; r < p; r++) {
            for (int i = -2; i < counts[r]; i++) {
                const int want = i < 0 ? -7 : r * 100 + i;
                expect(all[displs[r] + i] == want, in_place ? "allgatherv in place" : "allgatherv",
                       all[displs[r] + i], want);
            }
        }
    }
    free(all);
    free(counts);
    free(displs);
}

/* ---- gather --------------------------------------------------------------- */

/* MPI_Gather to every root, in place and not: the root's blocks exact, a
 * margin past them untouched, no other rank's buffer written. */
static void check_gather(MPI_Comm comm)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    enum { N = 3 };
    int *all = malloc(sizeof(int) * (size_t)(N * p + 2)), mine[N];
    for (int i = 0; i < N; i++)
        mine[i] = me * 100 + i;
    for (int root = 0; root < p; root++) {
        for (int in_place = 0; in_place < 2; in_place++) {
            for (int i = 0; i < N * p + 2; i++)
                all[i] = -7;
            const bool here_in_place = in_place && me == root;
            if (here_in_place)
                memcpy(all + N * me, mine, sizeof(mine));
            MPI_Gather(here_in_place ? MPI_IN_PLACE : mine, N, MPI_INT, all, N, MPI_INT, root,
                       comm);
            for (int i = 0; i < N * p + 2; i++) {
                const int want = me == root && i < N * p ? (i / N) * 100 + i % N : -7;
                expect(all[i] == want, in_place ? "gather in place" : "gather", all[i], want);
            }
        }
    }
    free(all);
}

/* MPI_Gatherv to every root, blocks of rank + 1 ints in reverse rank order
 * with a gap before each, in place and not: the root's blocks exact, the
 * gaps untouched, no other rank's buffer written. */
static void check_gatherv(MPI_Comm comm)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int *counts = malloc(sizeof(int) * (size_t)p), *displs = malloc(sizeof(int) * (size_t)p);
    int at = 0;
    for (int r = p - 1; r >= 0; r--) {
        counts[r] = r + 1;
        displs[r] = at + 1;
        at += r + 2;
    }
    int *all = malloc(sizeof(int) * (size_t)(at + 1)), *mine = malloc(sizeof(int) * (size_t)p);
    for (int i = 0; i <= me; i++)
        mine[i] = me * 100 + i;
    for (int root = 0; root < p; root++) {
        for (int in_place = 0; in_place < 2; in_place++) {
            for (int i = 0; i <= at; i++)
                all[i] = -7;
            const bool here_in_place = in_place && me == root;
            if (here_in_place)
                memcpy(all + displs[me], mine, sizeof(int) * (size_t)(me + 1));
            MPI_Gatherv(here_in_place ? MPI_IN_PLACE : mine, me + 1, MPI_INT, all, counts, displs,
                        MPI_INT, root, comm);
            for (int r = 0; r < p; r++)
                for (int i = -1; i < counts[r]; i++) {
                    const int want = me == root && i >= 0 ? r * 100 + i : -7;
                    expect(all[displs[r] + i] == want, in_place ? "gatherv in place" : "gatherv",
                           all[displs[r] + i], want);
                }
        }
    }
    free(all);
    free(mine);
    free(counts);
    free(displs);
}

/* ---- scatterv ------------------------------------------------------------ */

/* ---- reduce ------------------------------------------------------------- */

/* A user's commutative op on pairs of ints (a derived type). */
static void sum_of_pairs(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < 2 * *len; i++)
        b[i] += a[i];
}

/* MPI_Reduce_scatter_block and MPI_Reduce_scatter (zero counts among
 * them), in place and not. */
static void check_reduce_scatter(MPI_Comm comm)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    enum { N = 3, MAX = 64 };
    if (p > MAX)
        return;
    int send[N * MAX + MAX], recv[N * MAX + MAX], counts[MAX];
    for (int in_place = 0; in_place < 2; in_place++) {
        for (int i = 0; i < N * p; i++)
            send[i] = recv[i] = me * 7 + i;
        MPI_Reduce_scatter_block(in_place ? MPI_IN_PLACE : send, recv, N, MPI_INT, MPI_SUM,
                                 comm);
        for (int i = 0; i < N; i++) {
            const int j = me * N + i, want = 7 * p * (p - 1) / 2 + p * j;
            expect(recv[i] == want, in_place ? "reduce_scatter_block in place"
                                             : "reduce_scatter_block", recv[i], want);
        }
        int total = 0, first = 0;
        for (int r = 0; r < p; r++) {
            counts[r] = (r + in_place) % 3;   /* zeros among them */
            first += r < me ? counts[r] : 0;
            total += counts[r];
        }
        for (int i = 0; i < total; i++)
            send[i] = recv[i] = me * 7 + i;
        MPI_Reduce_scatter(in_place ? MPI_IN_PLACE : send, recv, counts, MPI_INT, MPI_MAX, comm);
        for (int i = 0; i < counts[me]; i++) {
            const int want = (p - 1) * 7 + first + i;
            expect(recv[i] == want, in_place ? "reduce_scatter in place" : "reduce_scatter",
                   recv[i], want);
        }
    }
}

/* A user's op that is not commutative: x -> a x + b maps (a pair of
 * ints), composed in rank order. */
static void compose_maps(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const int *first = in;
    int *then = inout;
    for (int i = 0; i + 1 < *len; i += 2) {
        const int a = first[i] * then[i], b = then[i] * first[i + 1] + then[i + 1];
        then[i] = a % 1009;
        then[i + 1] = b % 1009;
    }
}

/* MPI_Scan and MPI_Exscan, in place and not; an op that is not commutative. */
static void check_scan(MPI_Comm comm)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    enum { N = 3 };
    int send[N], recv[N];
    for (int in_place = 0; in_place < 2; in_place++) {
        for (int i = 0; i < N; i++)
            send[i] = recv[i] = me * 7 + i;
        MPI_Scan(in_place ? MPI_IN_PLACE : send, recv, N, MPI_INT, MPI_SUM, comm);
        for (int i = 0; i < N; i++) {
            const int want = 7 * me * (me + 1) / 2 + (me + 1) * i;
            expect(recv[i] == want, in_place ? "scan in place" : "scan", recv[i], want);
        }
        for (int i = 0; i < N; i++)
            send[i] = recv[i] = me * 7 + i;
        MPI_Exscan(in_place ? MPI_IN_PLACE : send, recv, N, MPI_INT, MPI_MAX, comm);
        for (int i = 0; i < N && me > 0; i++) {
            const int want = (me - 1) * 7 + i;
            expect(recv[i] == want, in_place ? "exscan in place" : "exscan", recv[i], want);
        }
    }
    MPI_Op compose;
    MPI_Op_create(compose_maps, 0, &compose);
    int map[2] = { me % 5 + 2, me + 1 }, prefix[2];
    MPI_Scan(map, prefix, 2, MPI_INT, compose, comm);
    int want[2] = { 2, 1 };   /* rank 0's map, then each next one's */
    for (int r = 1; r <= me; r++) {
        const int a = r % 5 + 2, b = r + 1;
        want[1] = (a * want[1] + b) % 1009;
        want[0] = (want[0] * a) % 1009;
    }
    expect(prefix[0] == want[0] && prefix[1] == want[1], "scan of maps in rank order",
           prefix[1], want[1]);
    MPI_Op_free(&compose);
}

/* MPI_Alltoall and MPI_Alltoallv, in place and not; a derived type too. */
static void check_alltoall(MPI_Comm comm)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    enum { N = 3, MAX = 64 };
    if (p > MAX)
        return;
    int send[N * MAX], recv[N * MAX], counts[MAX], displs[MAX];
    for (int in_place = 0; in_place < 2; in_place++) {
        for (int r = 0; r < p; r++)
            for (int i = 0; i < N; i++) {
                send[r * N + i] = (me * 100 + r) * 10 + i;
                recv[r * N + i] = in_place ? send[r * N + i] : -5;
            }
        MPI_Alltoall(in_place ? MPI_IN_PLACE : send, N, MPI_INT, recv, N, MPI_INT, comm);
        for (int r = 0; r < p; r++)
            for (int i = 0; i < N; i++)
                expect(recv[r * N + i] == (r * 100 + me) * 10 + i,
                       in_place ? "alltoall in place" : "alltoall", recv[r * N + i],
                       (r * 100 + me) * 10 + i);
        /* rank r gets (me + r) % N ints from this rank, at places in reverse order */
        for (int r = 0, at = 0; r < p; r++) {
            const int q = p - 1 - r;
            counts[q] = (me + q) % N;
            displs[q] = at;
            at += N;
        }
        for (int r = 0; r < p; r++)
            for (int i = 0; i < N; i++) {
                send[displs[r] + i] = (me * 100 + r) * 10 + i;
                recv[displs[r] + i] = in_place && i < counts[r] ? send[displs[r] + i] : -5;
            }
        MPI_Alltoallv(in_place ? MPI_IN_PLACE : send, counts, displs, MPI_INT, recv, counts,
                      displs, MPI_INT, comm);
        for (int r = 0; r < p; r++)
            for (int i = 0; i < N; i++) {
                const int want = i < counts[r] ? (r * 100 + me) * 10 + i : -5;
                expect(recv[displs[r] + i] == want,
                       in_place ? "alltoallv in place" : "alltoallv", recv[displs[r] + i], want);
            }
    }
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    for (int i = 0; i < 2 * p; i++)
        send[i] = me * 1000 + i;
    MPI_Alltoall(send, 1, pair, recv, 2, MPI_INT, comm);
    for (int r = 0; r < p; r++)
        for (int i = 0; i < 2; i++)
            expect(recv[2 * r + i] == r * 1000 + 2 * me + i, "alltoall pair", recv[2 * r + i],
                   r * 1000 + 2 * me + i);
    MPI_Type_free(&pair);
}

static void check_reduce(MPI_Comm comm)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    enum { N = 700 };
    int ints[N], sums[N];
    struct { double value; int index; } pairs[3], best[3];
    MPI_Op product, pair_sum;
    MPI_Op_create(matrix_product, 0, &product);
    MPI_Op_create(sum_of_pairs, 1, &pair_sum);
    MPI_Datatype two_ints, matrix;
    MPI_Type_contiguous(2, MPI_INT, &two_ints);
    MPI_Type_commit(&two_ints);
    MPI_Type_contiguous(4, MPI_UNSIGNED, &matrix);
    MPI_Type_commit(&matrix);
    for (int root = 0; root < p; root++) {
        for (int in_place = 0; in_place < 2; in_place++) {
            const bool here_in_place = in_place && me == root;
            for (int i = 0; i < N; i++) {
                ints[i] = me * 3 + i;
                sums[i] = here_in_place ? ints[i] : -5;
            }
            MPI_Reduce(here_in_place ? MPI_IN_PLACE : ints, sums, N, MPI_INT, MPI_SUM, root, comm);
            for (int i = 0; i < N; i++) {
                const int want = me == root ? 3 * p * (p - 1) / 2 + p * i : -5;
                expect(sums[i] == want, in_place ? "reduce in place" : "reduce", sums[i], want);
            }
        }
        for (int k = 0; k < 3; k++)
            pairs[k].value = (double)((me + k) % p), pairs[k].index = me;
        MPI_Reduce(pairs, best, 3, MPI_DOUBLE_INT, MPI_MAXLOC, root, comm);
        for (int k = 0; k < 3 && me == root; k++) {
            const int want = (p - 1 - k + p) % p;   /* the rank whose (rank + k) % p is p - 1 */
            expect(best[k].index == want && best[k].value == p - 1, "reduce maxloc",
                   best[k].index, want);
        }
        unsigned mine[4], all[4], want[4];
        matrix_of(me, mine);
        MPI_Reduce(mine, all, 1, matrix, product, root, comm);   /* left to MPI */
        product_in_rank_order(p, want);
        for (int i = 0; i < 4 && me == root; i++)
            expect(all[i] == want[i], "reduce non-commutative user op", all[i], want[i]);
        sums[0] = sums[1] = -5;
        const int two[2] = { me, 1 };
        MPI_Reduce(two, sums, 1, two_ints, pair_sum, root, comm);   /* not ftcoll's */
        if (me == root)
            expect(sums[0] == p * (p - 1) / 2 && sums[1] == p, "reduce of a derived type",
                   sums[0], p * (p - 1) / 2);
    }
    MPI_Reduce(ints, sums, 0, MPI_INT, MPI_SUM, 0, comm);
    MPI_Type_free(&two_ints);
    MPI_Type_free(&matrix);
    MPI_Op_free(&product);
    MPI_Op_free(&pair_sum);
}

/* The int at index `i` of check_scatterv's root buffer. */
static int all_value(const int *counts, const int *displs, int p, int i)
{
    for (int r = 0; r < p; r++)
        if (i >= displs[r] && i < displs[r] + counts[r])
            return r * 100 + i - displs[r];
    return -9;   /* a gap */
}

/* Every root scatters rank r's r + 1 ints from its blocks in reverse rank
 * order with a gap before each, in place and not; each rank checks its
 * block and the int past it. */
static void check_scatterv(MPI_Comm comm)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int *counts = malloc(sizeof(int) * (size_t)p), *displs = malloc(sizeof(int) * (size_t)p);
    int at = 0;
    for (int r = p - 1; r >= 0; r--) {
        counts[r] = r + 1;
        displs[r] = at + 1;
        at += r + 2;
    }
    int *all = malloc(sizeof(int) * (size_t)(at + 1));
    int *mine = malloc(sizeof(int) * (size_t)(p + 1));
    for (int i = 0; i <= at; i++)
        all[i] = -9;
    for (int r = 0; r < p; r++)
        for (int i = 0; i < counts[r]; i++)
            all[displs[r] + i] = r * 100 + i;
    for (int root = 0; root < p; root++) {
        for (int in_place = 0; in_place < 2; in_place++) {
            for (int i = 0; i <= p; i++)
                mine[i] = -7;
            const bool here_in_place = in_place && me == root;
            MPI_Scatterv(me == root ? all : NULL, me == root ? counts : NULL,
                         me == root ? displs : NULL, MPI_INT, here_in_place ? MPI_IN_PLACE : mine,
                         me + 1, MPI_INT, root, comm);
            const int *got = here_in_place ? all + displs[me] : mine;
            for (int i = 0; i <= me; i++)
                expect(got[i] == me * 100 + i, in_place ? "scatterv in place" : "scatterv",
                       got[i], me * 100 + i);
            expect(here_in_place || mine[me + 1] == -7, "scatterv past its block", mine[me + 1],
                   -7);
            /* and MPI_Scatter of the first p ints, one to a rank */
            mine[0] = mine[1] = -7;
            const int rc = MPI_Scatter(me == root ? all : NULL, 1, MPI_INT,
                                       here_in_place ? MPI_IN_PLACE : mine, 1, MPI_INT, root,
                                       comm);
            expect(rc == MPI_SUCCESS, "scatter's return", rc, MPI_SUCCESS);
            const int scattered = here_in_place ? all[me] : mine[0];
            expect(scattered == all_value(counts, displs, p, me), "scatter", scattered,
                   all_value(counts, displs, p, me));
            expect(here_in_place || mine[1] == -7, "scatter past its block", mine[1], -7);
        }
    }
    free(all);
    free(mine);
    free(counts);
    free(displs);
}

/* ---- bcast -------------------------------------------------------------- */

static void check_bcast(MPI_Comm comm)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    enum { N = 300 };
    double data[N];
    int gaps[2 * N];
    MPI_Datatype every_other;
    MPI_Type_vector(N, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    for (int root = 0; root < p; root++) {
        for (int i = 0; i < N; i++)
            data[i] = me == root ? root + i * 0.25 : -1;
        MPI_Bcast(data, N, MPI_DOUBLE, root, comm);
        for (int i = 0; i < N; i++)
            expect(data[i] == root + i * 0.25, "bcast", (long)(data[i] * 4), (root + i * 0.25) * 4);
        for (int i = 0; i < 2 * N; i++)
            gaps[i] = me == root ? root * 1000 + i : -3;
        MPI_Bcast(gaps, 1, every_other, root, comm);
        for (int i = 0; i < 2 * N; i++) {
            const int want = i % 2 == 0 || me == root ? root * 1000 + i : -3;
            expect(gaps[i] == want, "bcast strided", gaps[i], want);
        }
    }
    MPI_Bcast(data, 0, MPI_DOUBLE, 0, comm);
    MPI_Type_free(&every_other);
}

/* ---- communicators and errors --------------------------------------------- */

static void check_communicators(void)
{
    for (int round = 0; round < 10; round++) {
        MPI_Comm half, copy;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);   /* reversed order */
        check_allreduce(half, "allreduce on a split");
        check_allgather(half);
        check_allgatherv(half);
        check_gather(half);
        check_gatherv(half);
        check_scatterv(half);
        check_reduce(half);
        check_alltoall(half);
        check_reduce_scatter(half);
        check_scan(half);
        MPI_Comm_dup(half, &copy);
        check_bcast(copy);
        MPI_Barrier(copy);
        MPI_Comm_free(&copy);
        MPI_Comm_free(&half);
    }
    check_allreduce(MPI_COMM_SELF, "allreduce on MPI_COMM_SELF");
    if (size < 2)
        return;
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 99, &inter);
    int remote;
    MPI_Comm_remote_size(inter, &remote);
    int *theirs = malloc(sizeof(int) * (size_t)remote);
    MPI_Allgather(&rank, 1, MPI_INT, theirs, 1, MPI_INT, inter);
    for (int i = 0; i < remote; i++)   /* the other group's world ranks, in order */
        expect(theirs[i] == 2 * i + (rank % 2 ? 0 : 1), "allgather on an intercommunicator",
               theirs[i], 2 * i + (rank % 2 ? 0 : 1));
    free(theirs);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

static void check_errors(void)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int in = 1, out = 0, error_class = MPI_SUCCESS;
    int rc = MPI_Allreduce(&in, &out, -1, MPI_INT, MPI_SUM, comm);
    MPI_Error_class(rc, &error_class);
    expect(error_class == MPI_ERR_COUNT, "allreduce count -1: error class", error_class,
           MPI_ERR_COUNT);
    rc = MPI_Bcast(&in, 1, MPI_INT, size, comm);
    MPI_Error_class(rc, &error_class);
    expect(error_class == MPI_ERR_ROOT, "bcast root = size: error class", error_class,
           MPI_ERR_ROOT);
    rc = MPI_Reduce(&in, &out, 1, MPI_INT, MPI_SUM, -1, comm);
    MPI_Error_class(rc, &error_class);
    expect(error_class == MPI_ERR_ROOT, "reduce root = -1: error class", error_class,
           MPI_ERR_ROOT);
    MPI_Comm_free(&comm);
}

/* The last rank alone names MPI_OP_NULL in a scan: it returns MPI_ERR_OP
 * and the others complete the scan (the chain's last rank sends nothing).
 * The sums after it must be exact on every rank: the layer leaves a null
 * op to ftcoll, not to MPI, so that rank's call numbers stay the others'. */
static void check_null_op_at_the_last_rank(void)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    const bool last = rank == size - 1;
    int in = rank + 1, prefix = -1, error_class = MPI_SUCCESS;
    const int rc = MPI_Scan(&in, &prefix, 1, MPI_INT, last ? MPI_OP_NULL : MPI_SUM, comm);
    MPI_Error_class(rc, &error_class);
    if (last)
        expect(error_class == MPI_ERR_OP, "scan with MPI_OP_NULL at the last rank: error class",
               error_class, MPI_ERR_OP);
    else
        expect(rc == MPI_SUCCESS && prefix == (rank + 1) * (rank + 2) / 2,
               "scan past a last rank that named MPI_OP_NULL", prefix,
               (rank + 1) * (rank + 2) / 2);
    for (int call = 0; call < 50; call++) {
        long value = rank + call, sum = -1;
        const long expected = (long)size * (size - 1) / 2 + (long)size * call;
        MPI_Allreduce(&value, &sum, 1, MPI_LONG, MPI_SUM, comm);
        expect(sum == expected, "allreduce after a scan one rank left", sum, expected);
    }
    MPI_Comm_free(&comm);
}

/* `test_pmpi badarg R`: rank R passes a negative count to MPI_Allreduce,
 * the others a valid one (a guarded run stops every rank cleanly). */
static void pass_bad_argument(int bad_rank)
{
    int in = 1, out = 0;
    MPI_Allreduce(&in, &out, rank == bad_rank ? -1 : 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d: returned from MPI_Allreduce\n", rank);
}

/* `test_pmpi rootdiffers R`: rank R broadcasts from the last rank, the
 * others from rank 0 (erroneous: unguarded it can hang or deliver the
 * wrong buffer; a guarded run stops every rank cleanly, naming R). */
static void pass_another_root(int odd_rank)
{
    int value = rank;
    MPI_Bcast(&value, 1, MPI_INT, rank == odd_rank ? size - 1 : 0, MPI_COMM_WORLD);
    printf("rank %d: returned from MPI_Bcast\n", rank);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 2 && strcmp(argv[1], "badarg") == 0)
        pass_bad_argument(atoi(argv[2]));
    if (argc > 2 && strcmp(argv[1], "rootdiffers") == 0)
        pass_another_root(atoi(argv[2]));
    check_allreduce(MPI_COMM_WORLD, "allreduce");
    check_allgather(MPI_COMM_WORLD);
    check_allgatherv(MPI_COMM_WORLD);
    check_reduce(MPI_COMM_WORLD);
    check_alltoall(MPI_COMM_WORLD);
    check_reduce_scatter(MPI_COMM_WORLD);
    check_scan(MPI_COMM_WORLD);
    check_bcast(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    check_communicators();
    check_errors();
    check_null_op_at_the_last_rank();
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("pmpi p=%d: %s\n", size, total ? "FAIL" : "all checks passed");
    MPI_Finalize();
    return total ? 1 : 0;
}
