/*
 * FNV-1a over 64 bits: ranks compare what each of them read (a topology
 * file, a host name) by exchanging a hash of it instead of the text. Fast
 * and well spread for short keys; not meant to resist a chosen collision.
 */
#ifndef FTCOLL_HASH_H
#define FTCOLL_HASH_H

#include <stddef.h>
#include <stdint.h>

/* The hash of nothing: start from it, then add bytes. */
#define FTC_HASH_START UINT64_C(14695981039346656037)

/* `h` with `n` more bytes added. */
uint64_t ftc_hash_bytes(uint64_t h, const void *bytes, size_t n);

/* The hash of a NUL-terminated string (its bytes, not the NUL). */
uint64_t ftc_hash_text(const char *text);

/* The hash of this host's name: equal on the ranks that share a host. */
uint64_t ftc_hash_host(void);

/* `h` folded to 31 bits: a non-negative int, for comparing through MPI_INT. */
int ftc_hash_int(uint64_t h);

#endif
