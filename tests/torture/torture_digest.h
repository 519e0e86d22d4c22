/* What both torture programs compute alike: the vector lengths they cycle
 * through, the digest of every call's outcome, and the survivors' comparison
 * of their digests. */
#ifndef FTCOLL_TORTURE_DIGEST_H
#define FTCOLL_TORTURE_DIGEST_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* --length's longest: 32768 long longs (256 KiB), where an allreduce on
 * three or more ranks confirms instead of keeping a copy; the cycle stops
 * at 8192. */
enum { TORTURE_MAX_LENGTH = 32768, TORTURE_CYCLE_LONGEST = 8192 };

#define TORTURE_DIGEST_START 0xcbf29ce484222325ULL   /* FNV-1a's offset basis */

/* Call `call`'s length when none is fixed: 1, 3, 7, 64, 513, 1000, 8192, ... */
int torture_cycle_length(int call);

/* FNV-1a over `bytes`, continuing from `digest`. Its own copy, not
 * src/hash.h's: the digest judges the library's results, so it must not rest
 * on the library's code, and torture_pmpi, an unmodified MPI program, links
 * no ftcoll at all. */
uint64_t torture_digest_add(uint64_t digest, const void *bytes, size_t n);

/* Every rank of `comm` compares `digest` with the others'. 0: all equal;
 * 1: they differ (FAIL printed); -1: the comparison's MPI_Allreduce failed
 * (ERROR printed). */
int torture_compare_digests(uint64_t digest, MPI_Comm comm, int rank);

#endif
