#include "torture_digest.h"

#include <stdio.h>

static const int cycle_lengths[] = { 1, 3, 7, 64, 513, 1000, TORTURE_CYCLE_LONGEST };
enum { CYCLE_LENGTHS = sizeof(cycle_lengths) / sizeof(cycle_lengths[0]) };

int torture_cycle_length(int call)
{
    return cycle_lengths[call % CYCLE_LENGTHS];
}

uint64_t torture_digest_add(uint64_t digest, const void *bytes, size_t n)
{
    const unsigned char *b = bytes;
    for (size_t i = 0; i < n; i++) {
        digest ^= b[i];
        digest *= 0x100000001b3ULL;
    }
    return digest;
}

int torture_compare_digests(uint64_t digest, MPI_Comm comm, int rank)
{
    uint64_t low = 0, high = 0;
    int rc = MPI_Allreduce(&digest, &low, 1, MPI_UINT64_T, MPI_MIN, comm);
    if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(&digest, &high, 1, MPI_UINT64_T, MPI_MAX, comm);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "ERROR rank %d: the digests' MPI_Allreduce returned %d\n", rank, rc);
        return -1;
    }
    if (low != high) {
        fprintf(stderr, "FAIL rank %d: digests differ among the survivors: %016llx..%016llx\n",
                rank, (unsigned long long)low, (unsigned long long)high);
        return 1;
    }
    return 0;
}
