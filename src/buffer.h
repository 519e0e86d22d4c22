/* Local data movement between typed buffers (no communication). */
#ifndef FTCOLL_BUFFER_H
#define FTCOLL_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <mpi.h>

/* This rank's own block where the caller has it (its send buffer, in its
 * own count and type), for sends that read it from there rather than from
 * its slot. */
typedef struct {
    int slot;          /* the slot the block belongs in */
    const void *buf;
    int count;
    MPI_Datatype type;
} ftc_own_block;

/* Slots in a typed buffer: slot i starts at base + i * stride and holds
 * `count` elements of `type`; or, where `counts` is set (an allgatherv's
 * blocks), at base + offsets[i] with counts[i] elements. */
typedef struct {
    char *base;
    MPI_Aint stride;
    int count;
    MPI_Datatype type;
    bool contiguous;   /* `count` elements of `type` are one dense run of bytes */
    size_t slot_bytes; /* count * size of type: the payload of one slot */
    const ftc_own_block *own;   /* NULL: every send reads its slots; else a send of
                                 * own->slot alone reads own->buf (not yet in its slot) */
    const int *counts;          /* NULL: every slot holds `count` elements */
    const MPI_Aint *offsets;    /* with counts: slot i at base + offsets[i] bytes, */
    const long long *before;    /* the elements of slots 0..i-1 (i up to the slots' number), */
    const int *run_last;        /* and the last slot of the run end to end from slot i */
} ftc_slots;

static inline char *ftc_slot(const ftc_slots *s, int i)
{
    return s->base + (s->counts ? s->offsets[i] : (MPI_Aint)i * s->stride);
}

static inline int ftc_slot_count(const ftc_slots *s, int i)
{
    return s->counts ? s->counts[i] : s->count;
}

/*
 * True when `type` is dense: no gaps, lower bound 0, extent == size. Dense
 * says nothing about the order of the elements (a struct may list the int at
 * offset 4 before the one at 0), so bytes may be copied as they are only
 * between two dense layouts known to be the same: see ftc_typed_copy.
 */
int ftc_type_is_contiguous(MPI_Datatype type, bool *contiguous);

/* A datatype's size and extent, and whether it is contiguous as above: one
 * set of queries for callers that need all three. */
typedef struct {
    int size;
    MPI_Aint extent;
    bool contiguous;
} ftc_type_shape;

int ftc_type_shape_of(MPI_Datatype type, ftc_type_shape *shape);

/* A predefined (named) datatype: its elements are in memory order. */
bool ftc_type_is_predefined(MPI_Datatype type);

/* False for a derived type that was never committed (`comm` returns errors). */
bool ftc_type_is_committed(MPI_Datatype type, MPI_Comm comm);

/* Grows *buffer to at least `bytes` (never shrinks it); MPI_ERR_NO_MEM with
 * a message if memory runs out, the old buffer then left as it was. */
int ftc_ensure_capacity(char **buffer, size_t *capacity, size_t bytes);

/* Grows *requests to at least n entries (never shrinks it), as
 * ftc_ensure_capacity; `call` names the caller in the message. */
int ftc_ensure_requests(MPI_Request **requests, int *capacity, int n, const char *call);

/* Room in *buffer (grown as ftc_ensure_capacity) for n slots of `count` x
 * `type` (of extent `extent`), slot i at *base + i x count x extent: a
 * type may reach below its start or run downwards, so *base need not be
 * *buffer. */
int ftc_slots_room(MPI_Datatype type, int count, MPI_Aint extent, int n, char **buffer,
                   size_t *capacity, char **base);

/*
 * Copies `scount` x `stype` at src into `rcount` x `rtype` at dst; the two
 * must have the same type signature. Gaps of the destination type are kept.
 * `comm` is only where MPI reports packing errors: pass ftcoll's private
 * communicator, whose handler returns them (MPI_COMM_SELF's would abort).
 */
int ftc_typed_copy(const void *src, int scount, MPI_Datatype stype, bool scontiguous,
                   void *dst, int rcount, MPI_Datatype rtype, bool rcontiguous, MPI_Comm comm);

/*
 * One block between its typed place and `bytes` packed bytes: a copy
 * where the caller knows the type dense (its bytes are the packed form),
 * else MPI_Pack or MPI_Unpack through `comm` (as ftc_typed_copy's).
 * Returns MPI's code; the caller says which block failed.
 */
int ftc_pack_block(const void *from, int count, MPI_Datatype type, bool dense, void *into,
                   size_t bytes, MPI_Comm comm);
int ftc_unpack_block(const void *from, size_t bytes, void *to, int count, MPI_Datatype type,
                     bool dense, MPI_Comm comm);

#endif
