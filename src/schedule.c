/* Schedule storage and builders (see schedule.h). Pure C, no MPI. */
#include "schedule.h"

#include <stdlib.h>
#include <string.h>

void ftc_schedule_init(ftc_schedule *s, int rank, int size)
{
    memset(s, 0, sizeof(*s));
    s->rank = rank;
    s->size = size;
    s->own_slot = rank;
}

void ftc_schedule_destroy(ftc_schedule *s)
{
    free(s->step_begin);
    free(s->xfers);
    memset(s, 0, sizeof(*s));
}

/* Grows *array to hold at least `need` elements of `elem` bytes (doubling). */
static bool grow(void **array, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return true;
    int new_cap = *cap ? *cap : 8;
    while (new_cap < need)
        new_cap *= 2;
    void *bigger = realloc(*array, (size_t)new_cap * elem);
    if (!bigger)
        return false;
    *array = bigger;
    *cap = new_cap;
    return true;
}

void ftc_schedule_step(ftc_schedule *s)
{
    /* step_begin keeps nsteps + 1 entries: the last one closes the last step. */
    if (!grow((void **)&s->step_begin, &s->step_cap, s->nsteps + 2, sizeof(int))) {
        s->out_of_memory = true;
        return;
    }
    s->step_begin[s->nsteps] = s->nxfers;
    s->nsteps++;
    s->step_begin[s->nsteps] = s->nxfers;
}

static void add(ftc_schedule *s, ftc_xfer_kind kind, int peer, int first, int count)
{
    if (s->out_of_memory || s->nsteps == 0)
        return;
    if (!grow((void **)&s->xfers, &s->xfer_cap, s->nxfers + 1, sizeof(ftc_xfer))) {
        s->out_of_memory = true;
        return;
    }
    s->xfers[s->nxfers++] = (ftc_xfer){ .kind = kind, .peer = peer, .first = first, .count = count };
    s->step_begin[s->nsteps] = s->nxfers;
    int in_step = ftc_schedule_step_size(s, s->nsteps - 1);
    if (in_step > s->max_step_xfers)
        s->max_step_xfers = in_step;
}

void ftc_schedule_send(ftc_schedule *s, int peer, int first, int count)
{
    add(s, FTC_XFER_SEND, peer, first, count);
}

void ftc_schedule_recv(ftc_schedule *s, int peer, int first, int count)
{
    add(s, FTC_XFER_RECV, peer, first, count);
}

void ftc_schedule_exchange(ftc_schedule *s, int peer, int send_first, int recv_first, int count)
{
    ftc_schedule_recv(s, peer, recv_first, count);
    ftc_schedule_send(s, peer, send_first, count);
}

int ftc_floor_log2(int p)
{
    return p > 1 ? 31 - __builtin_clz((unsigned)p) : 0;   /* every call of a small collective asks */
}

int ftc_ceil_log2(int p)
{
    int k = ftc_floor_log2(p);
    return (1 << k) < p ? k + 1 : k;
}

static bool touches_slot(const ftc_xfer *x, int slot)
{
    return x->first <= slot && slot < x->first + x->count;
}

bool ftc_schedule_sends_own_block_alone(const ftc_schedule *s)
{
    for (int i = 0; i < s->nxfers; i++) {
        const ftc_xfer *x = &s->xfers[i];
        if (touches_slot(x, s->own_slot) && (x->kind != FTC_XFER_SEND || x->count != 1))
            return false;
    }
    return true;
}
