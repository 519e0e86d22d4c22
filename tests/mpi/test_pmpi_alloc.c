/*
 * One rank runs out of memory while the layer makes a communicator's
 * ftcoll communicator: every rank must come out of the constructor (or,
 * without ULFM, the first collective, where the layer makes it) alike,
 * none hangs or crashes, and the program's collectives keep their results.
 *
 *   sweep   for n = 1, 2, ...: on rank `victim` only, the n-th allocation
 *           that ftcoll's own code makes (malloc, calloc or realloc called
 *           from libftcoll-pmpi) fails, in MPI_Comm_dup(MPI_COMM_WORLD) and
 *           an MPI_Barrier on the dup (the layer's first collective there,
 *           which makes the ftcoll communicator where MPI_Comm_dup does not:
 *           without ULFM). Then the failure is disarmed. Ends at the
 *           first n that no allocation reached: every allocation of the
 *           making has failed once.
 *   check   the dup succeeded on every rank or failed on every rank (the
 *           layer fails it alike, or absorbs an allocation's failure);
 *           where it succeeded, two MPI_Allreduce of 2^rank on the dup give
 *           2^p - 1 on every rank; so does one on MPI_COMM_WORLD after each n
 *
 * The allocation functions are this program's own: they pass every call to
 * glibc's, and fail one only when armed and called from ftcoll's library
 * (its address, by dladdr). Not for sanitizer or valgrind builds, which
 * replace the allocator themselves.
 *
 * Usage: test_pmpi_alloc [victim] (default: the last rank). Prints
 * "pmpi_alloc p=P: N allocations failed in turn, all checks passed" on rank
 * 0; exit status 1 on a failed check, and a hang (the test's timeout) where
 * a rank leaves the others inside the making. With FTCOLL_TEST_ALLOC_TRACE
 * set, each failed allocation's stack goes to stderr.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *old, size_t size);

static bool armed;          /* counting ftcoll's allocations on this rank */
static long to_fail;        /* the count of the one that fails */
static long counted;        /* ftcoll's allocations since armed */
static bool in_check;       /* dladdr itself may allocate */
static bool trace;          /* FTCOLL_TEST_ALLOC_TRACE set: each failed one's stack */

/* Whether the allocation called from `caller` fails. */
static bool fails(const void *caller)
{
    if (!armed || in_check)
        return false;
    in_check = true;
    Dl_info info;
    const bool ours = dladdr(caller, &info) && info.dli_fname
                      && strstr(info.dli_fname, "libftcoll");
    in_check = false;
    const bool fail = ours && ++counted == to_fail;
    if (fail && trace) {   /* which allocation: addr2line on the library's offsets */
        void *frames[12];
        backtrace_symbols_fd(frames, backtrace(frames, 12), 2);
    }
    return fail;
}

void *malloc(size_t size)
{
    return fails(__builtin_return_address(0)) ? NULL : __libc_malloc(size);
}

void *calloc(size_t count, size_t size)
{
    return fails(__builtin_return_address(0)) ? NULL : __libc_calloc(count, size);
}

void *realloc(void *old, size_t size)
{
    return fails(__builtin_return_address(0)) ? NULL : __libc_realloc(old, size);
}

static int rank, size, failures;

static void expect(bool ok, long n, const char *what, long long got, long long want)
{
    if (!ok && failures++ < 10)
        printf("FAIL rank %d, allocation %ld failed: %s: got %lld, expected %lld\n", rank, n,
               what, got, want);
}

/* The sum of 2^r over the ranks of `comm`, which must be every rank. */
static void check_sum(MPI_Comm comm, long n, const char *what)
{
    long long mine = 1LL << rank, sum = -1;
    const int rc = MPI_Allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, comm);
    expect(rc == MPI_SUCCESS, n, what, rc, MPI_SUCCESS);
    expect(sum == (1LL << size) - 1, n, what, sum, (1LL << size) - 1);
}

/* Fails ftcoll's n-th allocation on the victim while it makes a duplicate
 * of MPI_COMM_WORLD; returns whether that allocation was reached. */
static bool fail_allocation(long n, int victim)
{
    MPI_Comm dup = MPI_COMM_NULL;
    counted = 0;
    to_fail = n;
    armed = rank == victim;
    int rc = MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (rc == MPI_SUCCESS)
        rc = MPI_Barrier(dup);
    armed = false;
    long long sum = -1, mine = 1LL << rank;
    if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, dup);
    const bool reached = counted >= n;

    /* every rank succeeded, or every rank failed */
    int succeeded = rc == MPI_SUCCESS, everywhere = succeeded, somewhere = succeeded;
    MPI_Allreduce(MPI_IN_PLACE, &everywhere, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &somewhere, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    expect(everywhere == somewhere, n, "succeeded on some ranks only (here)", succeeded, 1);
    if (rc == MPI_SUCCESS) {
        expect(sum == (1LL << size) - 1, n, "the dup's allreduce", sum, (1LL << size) - 1);
        check_sum(dup, n, "the dup's second allreduce");
    }
    if (dup != MPI_COMM_NULL) {
        const int free_rc = MPI_Comm_free(&dup);
        expect(free_rc == MPI_SUCCESS, n, "MPI_Comm_free", free_rc, MPI_SUCCESS);
    }
    check_sum(MPI_COMM_WORLD, n, "MPI_COMM_WORLD's allreduce");

    int any_reached = reached;
    MPI_Allreduce(MPI_IN_PLACE, &any_reached, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    return any_reached;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    trace = getenv("FTCOLL_TEST_ALLOC_TRACE") != NULL;
    void *frames[2];
    backtrace(frames, 2);   /* loads what backtrace needs, before any allocation fails */
    const int victim = argc > 1 ? atoi(argv[1]) % size : size - 1;
    enum { MOST = 10000 };   /* a making with more is a runaway */
    long n = 1;
    while (n < MOST && fail_allocation(n, victim))
        n++;
    expect(n > 1, n, "no allocation of ftcoll's reached (is the layer linked?)", n, 2);
    expect(n < MOST, n, "the allocations never ran out", n, MOST);
    int all = failures;
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("pmpi_alloc p=%d: %ld allocations failed in turn, all checks passed\n", size,
               n - 1);
    MPI_Finalize();
    return all == 0 ? 0 : 1;
}
