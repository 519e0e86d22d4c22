/* The rooted collectives' real-kill runs (rooted_kill.h). */
#include "rooted_kill.h"

#include <stdio.h>

#include "harness.h"

int rooted_root_of(int call, int p) { return (3 * call) % p; }

int rooted_element(int rank, int call, int i) { return rank * 1000000 + call * 100000 + i; }

bool rooted_in_place(int call) { return call == 3 || call == 6; }

int rooted_stride_of(int call) { return call == 4 ? 2 : 1; }

int rooted_send_stride_of(int call) { return call == 2 ? 2 : 1; }

MPI_Datatype rooted_strided_int(void)
{
    MPI_Datatype type;
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &type);
    MPI_Type_commit(&type);
    return type;
}

MPI_Datatype rooted_recv_type_of(int call)
{
    MPI_Datatype type = MPI_INT;
    if (call == 4) {
        type = rooted_strided_int();
    } else if (call == 6) {
        MPI_Type_contiguous(1, MPI_INT, &type);
        MPI_Type_commit(&type);
    }
    return type;
}

static long recovered_before = 0;   /* check_recovered_calls' count (one communicator) */

int rooted_check_outcome(ftc_comm_t comm, int rc, int rank, int p, int call, int root,
                         uint64_t dead_before, uint64_t *valid)
{
    *valid = 0;
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "FAIL rank %d call %d: returned %s: %s\n", rank, call,
                class_name(class_of(rc)), ftc_error_message());
        return 1;
    }
    int wrong = reported_set(comm, &recovered_before, rank, p, call, valid);
    if (!(dead_before >> root & 1) && !(*valid >> rank & 1)) {
        fprintf(stderr, "FAIL rank %d call %d: reports S = %llx without its own block\n", rank,
                call, (unsigned long long)*valid);
        wrong++;
    }
    return wrong;
}

/* The calls whose root survived and whose blocks missed a survivor. */
static int check_survivors(int rank, bool reporter, int p, const uint64_t *valid,
                           const uint64_t *united, uint64_t alive, rooted_direction direction)
{
    int wrong = 0;
    for (int call = 1; call <= ROOTED_CALLS; call++) {
        const int root = rooted_root_of(call, p);
        if (!(alive >> root & 1))
            continue;
        const uint64_t got = direction == ROOTED_TO_ROOT ? valid[call - 1] : united[call - 1];
        if ((direction == ROOTED_TO_ROOT ? rank == root : reporter) && (got & alive) != alive) {
            fprintf(stderr, "FAIL rank %d call %d: S = %llx misses survivors %llx\n", rank, call,
                    (unsigned long long)got, (unsigned long long)alive);
            wrong++;
        }
    }
    return wrong;
}

_Noreturn void rooted_kill_run(const char *name, rooted_check check, rooted_direction direction)
{
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (p > ROOTED_MAX_RANKS)
        die("at most 64 ranks");
    ftc_comm_t comm;
    if (ftc_comm_create(MPI_COMM_WORLD, &comm) != MPI_SUCCESS)
        die(ftc_error_message());
    int wrong = 0;
    uint64_t valid[ROOTED_CALLS];
    for (int call = 1; call <= ROOTED_CALLS; call++)
        wrong += check(comm, rank, p, call, &valid[call - 1]);

    MPI_Comm survivors;
    if (ftc_comm_survivors(comm, &survivors) != MPI_SUCCESS)
        die(ftc_error_message());
    int n, reporter, total_wrong = 0;
    uint64_t at_roots[ROOTED_CALLS];
    MPI_Comm_size(survivors, &n);
    MPI_Comm_rank(survivors, &reporter);
    const uint64_t alive = survivor_ranks(survivors);
    MPI_Allreduce(valid, at_roots, ROOTED_CALLS, MPI_UINT64_T, MPI_BOR, survivors);
    wrong += check_survivors(rank, reporter == 0, p, valid, at_roots, alive, direction);
    MPI_Allreduce(&wrong, &total_wrong, 1, MPI_INT, MPI_SUM, survivors);
    if (reporter == 0) {
        printf("%s p=%d survivors=%d calls=%d wrong=%d S=[", name, p, n, ROOTED_CALLS,
               total_wrong);
        for (int call = 0; call < ROOTED_CALLS; call++)
            printf("%s%llx", call ? " " : "", (unsigned long long)at_roots[call]);
        printf("]: %s\n", total_wrong ? "FAIL" : "PASS");
    }
    MPI_Comm_free(&survivors);
    ftc_comm_free(&comm);
    leave_without_finalize(total_wrong ? 1 : 0);
}
