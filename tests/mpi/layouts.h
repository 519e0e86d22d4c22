/*
 * The data layouts and block placements the gather-family tests share:
 * every element's value says whose it is and where it belongs, and every
 * int a call must not write holds UNTOUCHED.
 */
#ifndef FTCOLL_TEST_LAYOUTS_H
#define FTCOLL_TEST_LAYOUTS_H

#include <stdbool.h>
#include <stddef.h>

#include <mpi.h>

enum { UNTOUCHED = -7 };

/* ints; doubles; ints received every other int (sent dense) */
typedef enum { LAYOUT_INTS, LAYOUT_DOUBLES, LAYOUT_STRIDED, LAYOUTS } layout;

/* Ints of a receive buffer one element takes (a double, or an int and its gap: two). */
int layout_ints_per_element(layout l);

/* The receive type (free it with layout_free_type). */
MPI_Datatype layout_recv_type(layout l);
void layout_free_type(layout l, MPI_Datatype *type);

/* The send type: dense, of the same signature. */
MPI_Datatype layout_send_type(layout l);

/* Element i of `owner`'s block written at `to` as layout l stores it. */
void layout_store(layout l, int *to, int owner, int i);
bool layout_holds(layout l, const int *at, int owner, int i);

/* ---- blocks of their own sizes at their own places (the v collectives) ---- */

typedef enum { COUNTS_EQUAL, COUNTS_ZEROS, COUNTS_RISING, COUNTS_NONE, COUNTS_LARGE,
               COUNT_PATTERNS } count_pattern;

typedef struct {
    int p, rank;
    int *counts, *displs;   /* displs in elements of the receive type */
    size_t ints;            /* the receive buffer */
} vblocks;

void vblocks_init(vblocks *s, MPI_Comm comm);
void vblocks_destroy(vblocks *s);

/* Displacements in rank order end to end, or in reverse order with gaps
 * before each block. */
void vblocks_place(vblocks *s, count_pattern pattern, bool reversed);

/* A buffer of s->ints ints, all UNTOUCHED. */
int *vblocks_buffer(const vblocks *s);

/* Every int of the buffer: its block's element, or outside every block
 * untouched; 0 if so, else 1 with a MISMATCH line naming `what`. A block
 * for which `want(ctx, owner)` is false is not checked (`want` NULL: every
 * block is). */
int vblocks_check(const vblocks *s, layout l, const int *buf, const char *what,
                  bool (*want)(const void *ctx, int owner), const void *ctx);

#endif
