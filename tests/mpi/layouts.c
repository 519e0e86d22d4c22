/* The gather-family tests' layouts (layouts.h). */
#include "layouts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

enum { GAP = 3 };   /* elements before each block, when reversed */

int layout_ints_per_element(layout l) { return l == LAYOUT_INTS ? 1 : 2; }

static int value(int owner, int i) { return owner * 1000000 + i + 1; }

MPI_Datatype layout_recv_type(layout l)
{
    if (l == LAYOUT_DOUBLES)
        return MPI_DOUBLE;
    if (l == LAYOUT_INTS)
        return MPI_INT;
    MPI_Datatype strided;   /* an int, then a gap of one int */
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &strided);
    MPI_Type_commit(&strided);
    return strided;
}

void layout_free_type(layout l, MPI_Datatype *type)
{
    if (l == LAYOUT_STRIDED)
        MPI_Type_free(type);
}

MPI_Datatype layout_send_type(layout l) { return l == LAYOUT_DOUBLES ? MPI_DOUBLE : MPI_INT; }

void layout_store(layout l, int *to, int owner, int i)
{
    if (l == LAYOUT_DOUBLES) {
        const double v = value(owner, i);
        memcpy(to, &v, sizeof(v));
    } else {
        to[0] = value(owner, i);
    }
}

bool layout_holds(layout l, const int *at, int owner, int i)
{
    int want[2] = { UNTOUCHED, UNTOUCHED };
    layout_store(l, want, owner, i);
    return at[0] == want[0] && (l != LAYOUT_DOUBLES || at[1] == want[1]);
}

/* ---- vblocks ---------------------------------------------------------------- */

static int count_of(count_pattern pattern, int rank)
{
    switch (pattern) {
    case COUNTS_EQUAL: return 5;
    case COUNTS_ZEROS: return rank % 2 ? 0 : rank + 3;
    case COUNTS_RISING: return 7 * rank + 1;
    case COUNTS_NONE: return 0;
    default: return rank % 3 == 0 ? 40000 : 9000;
    }
}

void vblocks_init(vblocks *s, MPI_Comm comm)
{
    MPI_Comm_size(comm, &s->p);
    MPI_Comm_rank(comm, &s->rank);
    s->counts = checked_malloc(sizeof(int) * (size_t)s->p);
    s->displs = checked_malloc(sizeof(int) * (size_t)s->p);
    s->ints = 0;
}

void vblocks_destroy(vblocks *s)
{
    free(s->counts);
    free(s->displs);
}

void vblocks_place(vblocks *s, count_pattern pattern, bool reversed)
{
    int at = 0;
    for (int k = 0; k < s->p; k++) {
        const int r = reversed ? s->p - 1 - k : k;
        s->counts[r] = count_of(pattern, r);
        at += reversed ? GAP : 0;
        s->displs[r] = at;
        at += s->counts[r];
    }
    s->ints = (size_t)(at + GAP) * 2;   /* two ints an element at most, and a margin */
}

int *vblocks_buffer(const vblocks *s)
{
    int *buf = checked_malloc(s->ints * sizeof(int) + 1);
    for (size_t i = 0; i < s->ints; i++)
        buf[i] = UNTOUCHED;
    return buf;
}

int vblocks_check(const vblocks *s, layout l, const int *buf, const char *what,
                  bool (*want)(const void *ctx, int owner), const void *ctx)
{
    const int step = layout_ints_per_element(l);
    bool *in_block = calloc(s->ints + 1, sizeof(bool));
    if (!in_block)
        die("out of memory");
    int wrong = 0;
    for (int r = 0; r < s->p && !wrong; r++) {
        const bool checked = !want || want(ctx, r);
        for (int i = 0; i < s->counts[r] && !wrong; i++) {
            const size_t at = (size_t)(s->displs[r] + i) * (size_t)step;
            in_block[at] = true;
            if (l == LAYOUT_DOUBLES)
                in_block[at + 1] = true;
            if (checked && !layout_holds(l, buf + at, r, i)) {
                fprintf(stderr, "MISMATCH rank %d %s: block %d element %d\n", s->rank, what, r, i);
                wrong = 1;
            }
        }
    }
    for (size_t i = 0; i < s->ints && !wrong; i++) {
        if (!in_block[i] && buf[i] != UNTOUCHED) {
            fprintf(stderr, "MISMATCH rank %d %s: int %zu outside the blocks was written\n",
                    s->rank, what, i);
            wrong = 1;
        }
    }
    free(in_block);
    return wrong;
}
