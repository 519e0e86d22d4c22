/*
 * An unmodified MPI program (no ftcoll call) that makes its communicators
 * first and uses them later, run under ftcrun, where a rank may die in
 * between: every communicator made before a death must serve its
 * survivors' collectives after it.
 *
 *   make    MPI_Comm_dup and _dup_with_info, MPI_Comm_split (two halves,
 *           reversed order), MPI_Cart_create (a 2-D grid) and MPI_Cart_sub
 *           (its rows), a ring by MPI_Graph_create, MPI_Dist_graph_create
 *           and MPI_Dist_graph_create_adjacent, MPI_Comm_create (every rank
 *           but the last), MPI_Comm_create_group (the even ranks),
 *           MPI_Comm_split_type (shared memory) and MPI_Intercomm_merge of
 *           the halves' intercommunicator
 *   then    ROUNDS MPI_Allreduce on MPI_COMM_WORLD (ftcrun --inject kills
 *           a rank in one of them); their last one names S, the survivors
 *           (rank r adds 4^r: the sum's base-4 digits)
 *   use     on each communicator, its first collectives: MPI_Allreduce of
 *           4^(world rank), which must name exactly its members in S;
 *           MPI_Bcast from its lowest member in S, which every member gets;
 *           MPI_Allgather of world ranks, every block of a member in S
 *           exact; MPI_Barrier; then MPI_Comm_free
 *
 * Usage: test_pmpi_comms [rounds]. Prints "pmpi_comms p=P: all checks
 * passed, S=HEX" on the lowest survivor; exit status 1 on a failed check.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

enum { MAX_RANKS = 31, COMMS = 16 };   /* 4^30 fits a long long */

static int rank, size, failures;

static void expect(int ok, const char *comm, const char *what, long long got, long long want)
{
    if (!ok && failures++ < 10)
        printf("FAIL rank %d on %s: %s: got %lld, expected %lld\n", rank, comm, what, got, want);
}

static void expect_success(int rc, const char *comm, const char *call)
{
    if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int length = 0;
        MPI_Error_string(rc, text, &length);
        if (failures++ < 10)
            printf("FAIL rank %d on %s: %s returned %d: %s\n", rank, comm, call, rc, text);
    }
}

/* The set of world ranks a sum of 4^r names; -1 when it names none. */
static int64_t set_of(long long sum)
{
    int64_t s = 0;
    for (int r = 0; sum > 0; r++, sum /= 4) {
        if (sum % 4 > 1)
            return -1;
        s |= (int64_t)(sum % 4) << r;
    }
    return sum == 0 ? s : -1;
}

/* ---- making them ------------------------------------------------------- */

typedef struct {
    const char *name;
    MPI_Comm comm;
} made_comm;

static int made_count;
static made_comm made[COMMS];

static void keep(const char *name, MPI_Comm comm, int rc)
{
    expect_success(rc, name, "making it");
    if (rc == MPI_SUCCESS && comm != MPI_COMM_NULL)
        made[made_count++] = (made_comm){ name, comm };
}

static void make_communicators(void)
{
    MPI_Comm c, half, inter;
    int rc = MPI_Comm_dup(MPI_COMM_WORLD, &c);
    keep("a duplicate", c, rc);
    rc = MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &c);
    keep("a duplicate with info", c, rc);
    rc = MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
    keep("a half", half, rc);
    /* a grid of dims[0] x dims[1] ranks, dims[0] >= dims[1], and its rows */
    int dims[2] = { 0, 0 }, periods[2] = { 1, 0 }, keep_rows[2] = { 1, 0 };
    MPI_Dims_create(size, 2, dims);
    rc = MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c);
    keep("a grid", c, rc);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Cart_sub(c, keep_rows, &c);
        keep("a grid's row", c, rc);
    }
    /* a ring, three ways */
    const int left = (rank + size - 1) % size, right = (rank + 1) % size, weight = 1;
    int index[MAX_RANKS], edges[2 * MAX_RANKS];
    for (int r = 0; r < size; r++) {
        index[r] = 2 * (r + 1);
        edges[2 * r] = (r + size - 1) % size;
        edges[2 * r + 1] = (r + 1) % size;
    }
    rc = MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &c);
    keep("a ring graph", c, rc);
    rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, &weight, 1, &right, &weight,
                                        MPI_INFO_NULL, 0, &c);
    keep("an adjacent ring graph", c, rc);
    const int degree = 1;
    rc = MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &degree, &right, &weight,
                               MPI_INFO_NULL, 0, &c);
    keep("a distributed ring graph", c, rc);
    /* groups: every rank but the last; the even ranks */
    MPI_Group world, all_but_last, evens;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    const int last[1] = { size - 1 };
    int even_ranks[1][3] = { { 0, size - 1, 2 } };
    MPI_Group_excl(world, size > 1 ? 1 : 0, last, &all_but_last);
    rc = MPI_Comm_create(MPI_COMM_WORLD, all_but_last, &c);
    keep("every rank but the last", c, rc);
    MPI_Group_range_incl(world, 1, even_ranks, &evens);
    if (rank % 2 == 0) {
        rc = MPI_Comm_create_group(MPI_COMM_WORLD, evens, 5, &c);
        keep("the even ranks", c, rc);
    }
    MPI_Group_free(&evens);
    MPI_Group_free(&all_but_last);
    MPI_Group_free(&world);
    rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c);
    keep("a node", c, rc);
    if (size > 1) {
        /* each half's leader, its rank 0, is its highest world rank */
        const int even_leader = (size - 1) - (size - 1) % 2, odd_leader = (size - 1) - size % 2;
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? even_leader : odd_leader, 7,
                             &inter);
        rc = MPI_Intercomm_merge(inter, rank % 2, &c);
        keep("the halves merged", c, rc);
        MPI_Comm_free(&inter);
    }
}

/* ---- using them -------------------------------------------------------- */

/* World ranks of comm's members, in comm's rank order. */
static int members_of(MPI_Comm comm, int *world_ranks)
{
    MPI_Group group, world;
    int n = 0;
    MPI_Comm_group(comm, &group);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_size(group, &n);
    int ranks[MAX_RANKS];
    for (int i = 0; i < n; i++)
        ranks[i] = i;
    MPI_Group_translate_ranks(group, n, ranks, world, world_ranks);
    MPI_Group_free(&group);
    MPI_Group_free(&world);
    return n;
}

static void use(const made_comm *m, int64_t alive)
{
    int members[MAX_RANKS];
    const int n = members_of(m->comm, members);
    int64_t live_members = 0;
    int root = -1;
    for (int i = 0; i < n; i++) {
        if (alive >> members[i] & 1) {
            live_members |= (int64_t)1 << members[i];
            root = root < 0 ? i : root;
        }
    }
    long long mine = 1LL << (2 * rank), sum = 0;
    expect_success(MPI_Allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, m->comm), m->name,
                   "MPI_Allreduce");
    expect(set_of(sum) == live_members, m->name, "the allreduce's set", set_of(sum),
           live_members);
    long long word = rank;
    expect_success(MPI_Bcast(&word, 1, MPI_LONG_LONG, root, m->comm), m->name, "MPI_Bcast");
    expect(word == members[root], m->name, "the broadcast's word", word, members[root]);
    long long blocks[MAX_RANKS];
    for (int i = 0; i < n; i++)
        blocks[i] = -1;
    mine = rank;
    expect_success(MPI_Allgather(&mine, 1, MPI_LONG_LONG, blocks, 1, MPI_LONG_LONG, m->comm),
                   m->name, "MPI_Allgather");
    for (int i = 0; i < n; i++)
        if (alive >> members[i] & 1)
            expect(blocks[i] == members[i], m->name, "an allgather's block", blocks[i],
                   members[i]);
    expect_success(MPI_Barrier(m->comm), m->name, "MPI_Barrier");
    expect_success(MPI_Comm_free(&made[m - made].comm), m->name, "MPI_Comm_free");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int rounds = argc > 1 ? atoi(argv[1]) : 10;
    if (size > MAX_RANKS || rounds < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: test_pmpi_comms [rounds >= 1] (at most %d ranks)\n",
                    MAX_RANKS);
        MPI_Finalize();
        return 2;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);   /* inherited by each */
    make_communicators();
    long long mine = 1LL << (2 * rank), sum = 0;
    for (int round = 0; round < rounds; round++)
        expect_success(MPI_Allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD),
                       "MPI_COMM_WORLD", "MPI_Allreduce");
    const int64_t alive = set_of(sum);
    expect(alive >> rank & 1, "MPI_COMM_WORLD", "this rank in S", alive, 1);
    for (int i = 0; i < made_count; i++)
        use(&made[i], alive);
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int lowest = 0;
    while (lowest < size && !(alive >> lowest & 1))
        lowest++;
    if (rank == lowest)
        printf("pmpi_comms p=%d: %s, S=%llx\n", size, total ? "FAIL" : "all checks passed",
               (unsigned long long)alive);
    MPI_Finalize();
    return total ? 1 : 0;
}
