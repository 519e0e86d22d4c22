/*
 * A census taken round after round, as an unmodified MPI program would
 * take it, with every collective ftcoll makes fault-tolerant: rank 0
 * broadcasts the round (MPI_Bcast) and hands each rank its district
 * (MPI_Scatter); each rank counts its households; rank 0 collects the
 * counts (MPI_Gather), the households' records (MPI_Gatherv) and the
 * total (MPI_Reduce); every rank learns every count (MPI_Allgather, and
 * the records by MPI_Allgatherv) and the total (MPI_Allreduce); every
 * rank also hands every other rank its count (MPI_Alltoall) and its
 * records (MPI_Alltoallv), as districts swapping tallies, and every rank
 * gets the total in its own share of a table of totals
 * (MPI_Reduce_scatter_block, and MPI_Reduce_scatter for its records);
 * districts numbered in order learn the running total up to theirs
 * (MPI_Scan) and before it (MPI_Exscan); a barrier ends the round.
 *
 * Its own exact check: rank r counts (round mod 3 + 1) x 4^r households,
 * so every total names the ranks it counted (its base-4 digits, each 0 or
 * 1). Ranks may die under ftcrun. After each round an MPI_Allreduce of
 * the next round's counts names ranks that entered it, so were alive all
 * through the round: every count and record of the round must hold
 * theirs exactly, any other rank's block its own or left as it was (-1),
 * and the reduce's total at rank 0 must name them all; a running total
 * names only ranks up to this one (before it), and every one of them
 * alive all through the round. The named set never grows. Rank 0 must survive: it is the root.
 *
 * Usage: census [rounds]   (at most 31 ranks: 4^r fits a long long)
 */
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { MAX_RANKS = 31, MAX_RECORDS = 3, UNSET = -1 };

static int rank, size, failures;

static void fail(long round, const char *what, long long got, long long want)
{
    if (failures++ < 10)
        printf("census: FAIL rank %d round %ld: %s: %lld, expected %lld\n", rank, round, what,
               got, want);
}

static long long count_of(int r, long round) { return (round % 3 + 1) * (1LL << (2 * r)); }

/* A rank's records: 1 to 3 of them, each its count. */
static int records_of(int r) { return r % MAX_RECORDS + 1; }

/* The ranks a total names, or UINT64_MAX when it names none exactly. */
static uint64_t ranks_in(long long total, long round)
{
    const long long c = round % 3 + 1;
    if (total <= 0 || total % c != 0)
        return UINT64_MAX;
    uint64_t set = 0;
    unsigned long long digits = (unsigned long long)(total / c);
    for (int r = 0; r < size && digits != 0; r++, digits >>= 2) {
        if ((digits & 3u) > 1)
            return UINT64_MAX;
        set |= (uint64_t)(digits & 1u) << r;
    }
    return digits == 0 ? set : UINT64_MAX;
}

/* What a round collected, kept until the next round's total says which
 * ranks were alive all through it. */
typedef struct {
    long round;
    long long counts[MAX_RANKS], all_counts[MAX_RANKS];
    long long records[MAX_RANKS * MAX_RECORDS], all_records[MAX_RANKS * MAX_RECORDS];
    long long swapped[MAX_RANKS], swapped_records[MAX_RANKS * MAX_RECORDS];
    long long share, record_shares[MAX_RECORDS];   /* every one the total */
    long long running, before;                     /* totals up to and before this rank */
    int record_counts[MAX_RANKS], displs[MAX_RANKS];
    long long reduced;
} collected;

/* Rank r's block: exact where r was alive all through the round, else
 * exact or untouched. */
static void check_block(long round, const char *what, int r, const long long *block, int n,
                        uint64_t alive)
{
    for (int i = 0; i < n; i++) {
        const bool exact = block[i] == count_of(r, round);
        if (!exact && (alive >> r & 1 || block[i] != UNSET)) {
            fail(round, what, block[i], count_of(r, round));
            return;
        }
    }
}

/* A total naming every rank alive all through the round. */
static void check_total(long round, const char *what, long long total, uint64_t alive)
{
    const uint64_t named = ranks_in(total, round);
    if (named == UINT64_MAX || (alive & ~named) != 0)
        fail(round, what, total, (long long)alive);
}

/* A running total over ranks 0 .. upto - 1: only those, and every one of
 * them alive all through the round. */
static void check_running(long round, const char *what, long long total, int upto,
                          uint64_t alive)
{
    const uint64_t first = (1ULL << upto) - 1, named = ranks_in(total, round);
    if (named == UINT64_MAX || (named & ~first) != 0 || (alive & first & ~named) != 0)
        fail(round, what, total, (long long)(alive & first));
}

/* A round's blocks and totals against `alive`: ranks that entered a later
 * round's last collective, so alive all through this one (a rank dying
 * inside an allreduce may still be in its total: never in a later one). */
static void check_round(const collected *c, uint64_t alive)
{
    for (int r = 0; r < size; r++) {
        check_block(c->round, "a count by MPI_Allgather", r, &c->all_counts[r], 1, alive);
        check_block(c->round, "a record by MPI_Allgatherv", r, &c->all_records[c->displs[r]],
                    records_of(r), alive);
        check_block(c->round, "a count by MPI_Alltoall", r, &c->swapped[r], 1, alive);
        check_block(c->round, "a record by MPI_Alltoallv", r,
                    &c->swapped_records[c->displs[r]], records_of(r), alive);
        if (rank != 0)
            continue;
        check_block(c->round, "a count by MPI_Gather", r, &c->counts[r], 1, alive);
        check_block(c->round, "a record by MPI_Gatherv", r, &c->records[c->displs[r]],
                    records_of(r), alive);
    }
    check_total(c->round, "MPI_Reduce_scatter_block's total", c->share, alive);
    for (int i = 0; i < records_of(rank); i++)
        check_total(c->round, "MPI_Reduce_scatter's total", c->record_shares[i], alive);
    check_running(c->round, "MPI_Scan's running total", c->running, rank + 1, alive);
    if (rank > 0)
        check_running(c->round, "MPI_Exscan's running total", c->before, rank, alive);
    if (rank == 0)
        check_total(c->round, "MPI_Reduce's total", c->reduced, alive);
}

/* The round's total (MPI_Allreduce) and the ranks it names, checked: a
 * set holding this rank, within the last one. */
static uint64_t total_of(long round, uint64_t *alive_before)
{
    const long long mine = count_of(rank, round);
    long long total = UNSET;
    MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    const uint64_t alive = ranks_in(total, round);
    if (alive == UINT64_MAX || !(alive >> rank & 1) || (alive & ~*alive_before) != 0) {
        fail(round, "the total names no set holding this rank, within the last", total,
             (long long)*alive_before);
        return *alive_before;
    }
    *alive_before = alive;
    return alive;
}

/* Every rank gets the total: its share of a table of totals, and of a
 * table of its records' totals. */
static void share_totals(collected *c, long long mine)
{
    long long table[MAX_RANKS * MAX_RECORDS];
    for (int i = 0; i < size * MAX_RECORDS; i++)
        table[i] = mine;
    c->share = UNSET;
    MPI_Reduce_scatter_block(table, &c->share, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < MAX_RECORDS; i++)
        c->record_shares[i] = UNSET;
    MPI_Reduce_scatter(table, c->record_shares, c->record_counts, MPI_LONG_LONG, MPI_SUM,
                       MPI_COMM_WORLD);
}

/* Districts in order: the running total up to this one, and before it. */
static void run_totals(collected *c, long long mine)
{
    c->running = c->before = UNSET;
    MPI_Scan(&mine, &c->running, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Exscan(&mine, &c->before, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
}

/* Every rank hands every rank its count, and its records. */
static void swap_tallies(collected *c, long long mine)
{
    long long counts[MAX_RANKS], records[MAX_RANKS * MAX_RECORDS];
    int send_counts[MAX_RANKS], send_displs[MAX_RANKS];
    for (int q = 0; q < size; q++) {
        counts[q] = mine;
        send_counts[q] = records_of(rank);
        send_displs[q] = q * MAX_RECORDS;
        c->swapped[q] = UNSET;
    }
    for (int i = 0; i < size * MAX_RECORDS; i++) {
        records[i] = mine;
        c->swapped_records[i] = UNSET;
    }
    MPI_Alltoall(counts, 1, MPI_LONG_LONG, c->swapped, 1, MPI_LONG_LONG, MPI_COMM_WORLD);
    MPI_Alltoallv(records, send_counts, send_displs, MPI_LONG_LONG, c->swapped_records,
                  c->record_counts, c->displs, MPI_LONG_LONG, MPI_COMM_WORLD);
}

static void take_round(long round, collected *c)
{
    long announced = rank == 0 ? round : -1;
    MPI_Bcast(&announced, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (announced != round)
        fail(round, "the round broadcast", announced, round);
    long long districts[MAX_RANKS], district = UNSET;
    for (int r = 0; r < size; r++)
        districts[r] = round * 100 + r;
    MPI_Scatter(districts, 1, MPI_LONG_LONG, &district, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (district != round * 100 + rank)
        fail(round, "the district scattered", district, round * 100 + rank);

    const long long mine = count_of(rank, round);
    const long long records[MAX_RECORDS] = { mine, mine, mine };
    c->round = round;
    for (int r = 0, at = 0; r < size; at += records_of(r), r++) {
        c->record_counts[r] = records_of(r);
        c->displs[r] = at;
    }
    for (int i = 0; i < size * MAX_RECORDS; i++)
        c->records[i] = c->all_records[i] = UNSET;
    for (int r = 0; r < size; r++)
        c->counts[r] = c->all_counts[r] = UNSET;
    c->reduced = UNSET;
    MPI_Gather(&mine, 1, MPI_LONG_LONG, c->counts, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    MPI_Gatherv(records, records_of(rank), MPI_LONG_LONG, c->records, c->record_counts,
                c->displs, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine, &c->reduced, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Allgather(&mine, 1, MPI_LONG_LONG, c->all_counts, 1, MPI_LONG_LONG, MPI_COMM_WORLD);
    MPI_Allgatherv(records, records_of(rank), MPI_LONG_LONG, c->all_records, c->record_counts,
                   c->displs, MPI_LONG_LONG, MPI_COMM_WORLD);
    swap_tallies(c, mine);
    share_totals(c, mine);
    run_totals(c, mine);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const long rounds = argc > 1 ? atol(argv[1]) : 20;
    if (size > MAX_RANKS || rounds < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: census [rounds >= 1] (at most %d ranks)\n", MAX_RANKS);
        MPI_Finalize();
        return 2;
    }
    uint64_t alive = (1ULL << size) - 1;
    static collected last;
    for (long round = 1; round <= rounds; round++) {
        take_round(round, &last);
        check_round(&last, total_of(round + 1, &alive));
    }
    int counted = 0, all_failures = 0;
    for (int r = 0; r < size; r++)
        counted += (int)(alive >> r & 1);
    MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("census: %ld rounds, %d of %d ranks counted at the end: %s\n", rounds, counted,
               size, all_failures ? "FAILED" : "every check passed");
    MPI_Finalize();
    return all_failures ? 1 : 0;
}
