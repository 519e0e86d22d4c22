#include "simulate.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allgather/algorithms.h"
#include "schedule.h"

#define EMPTY (-1)

typedef struct {
    int p;
    ftc_schedule *plans;   /* one per rank */
    int *slots;            /* slots[r * p + s]: block held in slot s of rank r, or EMPTY */
    simulation result;
} world;

static bool fail(world *w, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(w->result.why, sizeof(w->result.why), format, args);
    va_end(args);
    w->result.ok = false;
    return false;
}

static int *slot_of(world *w, int rank, int slot) { return &w->slots[rank * w->p + slot]; }

/* Places every rank's own block, as the engine does before step 0. */
static bool place_own_blocks(world *w)
{
    for (int r = 0; r < w->p; r++) {
        const ftc_schedule *s = &w->plans[r];
        if (s->own_slot < 0 || s->own_slot >= w->p
            || ftc_schedule_block_of_slot(s, s->own_slot) != r)
            return fail(w, "rank %d: own block is not in slot %d", r, s->own_slot);
        *slot_of(w, r, s->own_slot) = r;
        w->result.rewrites_held_blocks |= s->rewrites_held_blocks;
        if (s->nsteps > w->result.steps)
            w->result.steps = s->nsteps;
    }
    return true;
}

static bool check_xfer_shape(world *w, int r, int step, const ftc_xfer *x)
{
    if (x->peer < 0 || x->peer >= w->p)
        return fail(w, "rank %d step %d: peer %d out of range", r, step, x->peer);
    if (x->peer == r)
        return fail(w, "rank %d step %d: sends to or receives from itself", r, step);
    if (x->count < 1 || x->first < 0 || x->first + x->count > w->p)
        return fail(w, "rank %d step %d: slots [%d, +%d) out of the buffer", r, step, x->first,
                    x->count);
    return true;
}

/* The n-th transfer of `kind` between `from` and `to` in a step, or NULL. */
static const ftc_xfer *nth_xfer(const ftc_schedule *s, int step, ftc_xfer_kind kind, int peer,
                                int n)
{
    if (step >= s->nsteps)
        return NULL;
    const ftc_xfer *x = ftc_schedule_step_xfers(s, step);
    for (int i = 0; i < ftc_schedule_step_size(s, step); i++)
        if (x[i].kind == kind && x[i].peer == peer && n-- == 0)
            return &x[i];
    return NULL;
}

static int count_xfers(const ftc_schedule *s, int step, ftc_xfer_kind kind, int peer)
{
    int n = 0;
    while (nth_xfer(s, step, kind, peer, n))
        n++;
    return n;
}

/* Every send of the step has its receive, in the same order and size, and
 * moves blocks the sender holds into empty slots that expect exactly them. */
static bool match_sends(world *w, int step, int *incoming)
{
    for (int from = 0; from < w->p; from++) {
        const ftc_schedule *s = &w->plans[from];
        if (step >= s->nsteps)
            continue;
        const ftc_xfer *x = ftc_schedule_step_xfers(s, step);
        for (int i = 0; i < ftc_schedule_step_size(s, step); i++) {
            if (!check_xfer_shape(w, from, step, &x[i]))
                return false;
            if (x[i].kind != FTC_XFER_SEND)
                continue;
            const int to = x[i].peer;
            int order = 0;
            for (int j = 0; j < i; j++)
                order += x[j].kind == FTC_XFER_SEND && x[j].peer == to;
            const ftc_xfer *rx = nth_xfer(&w->plans[to], step, FTC_XFER_RECV, from, order);
            if (!rx)
                return fail(w, "step %d: rank %d sends to %d, which never receives it (deadlock)",
                            step, from, to);
            if (rx->count != x[i].count)
                return fail(w, "step %d: rank %d sends %d blocks to %d, which expects %d", step,
                            from, x[i].count, to, rx->count);
            for (int k = 0; k < x[i].count; k++) {
                const int block = *slot_of(w, from, x[i].first + k);
                if (block == EMPTY)
                    return fail(w, "step %d: rank %d sends slot %d before holding it", step, from,
                                x[i].first + k);
                const int expected = ftc_schedule_block_of_slot(&w->plans[to], rx->first + k);
                if (block != expected)
                    return fail(w, "step %d: rank %d sends block %d into slot %d of rank %d, "
                                "which is for block %d", step, from, block, rx->first + k, to,
                                expected);
                incoming[to * w->p + rx->first + k] = block;
            }
            w->result.messages++;
            w->result.blocks_moved += x[i].count;
        }
    }
    return true;
}

/* Every receive of the step has its send (no rank waits forever). */
static bool match_receives(world *w, int step)
{
    for (int to = 0; to < w->p; to++) {
        for (int from = 0; from < w->p; from++) {
            const int recvs = count_xfers(&w->plans[to], step, FTC_XFER_RECV, from);
            const int sends = count_xfers(&w->plans[from], step, FTC_XFER_SEND, to);
            if (recvs != sends)
                return fail(w, "step %d: rank %d posts %d receives from %d, which sends %d "
                            "(deadlock)", step, to, recvs, from, sends);
        }
    }
    return true;
}

/* Deliver after the whole step: sends read the state from before the step. */
static bool deliver(world *w, int step, const int *incoming)
{
    for (int i = 0; i < w->p * w->p; i++) {
        if (incoming[i] == EMPTY)
            continue;
        const bool same_block_again = w->plans[i / w->p].rewrites_held_blocks
                                      && incoming[i] == w->slots[i];
        if (w->slots[i] != EMPTY && !same_block_again)
            return fail(w, "step %d: rank %d receives block %d twice (slot %d)", step, i / w->p,
                        incoming[i], i % w->p);
        w->slots[i] = incoming[i];
    }
    return true;
}

static bool run_steps(world *w)
{
    int *incoming = malloc(sizeof(int) * (size_t)(w->p * w->p));
    bool ok = incoming != NULL;
    for (int step = 0; ok && step < w->result.steps; step++) {
        for (int i = 0; i < w->p * w->p; i++)
            incoming[i] = EMPTY;
        ok = match_sends(w, step, incoming) && match_receives(w, step) && deliver(w, step, incoming);
    }
    free(incoming);
    return ok;
}

/* After the rotation every rank holds block b at position b, for every b. */
static bool check_final(world *w)
{
    for (int r = 0; r < w->p; r++) {
        for (int slot = 0; slot < w->p; slot++) {
            const int block = *slot_of(w, r, slot);
            const int expected = ftc_schedule_block_of_slot(&w->plans[r], slot);
            if (block == EMPTY)
                return fail(w, "rank %d never receives block %d", r, expected);
            if (block != expected)
                return fail(w, "rank %d slot %d holds block %d, expected %d", r, slot, block,
                            expected);
        }
    }
    return true;
}

simulation simulate_schedules(ftc_schedule *plans, int p)
{
    world w = { .p = p, .plans = plans };
    w.result.ok = true;
    w.slots = malloc(sizeof(int) * (size_t)(p * p));
    if (!w.slots) {
        fail(&w, "out of memory");
    } else {
        for (int i = 0; i < p * p; i++)
            w.slots[i] = EMPTY;
        if (place_own_blocks(&w) && run_steps(&w))
            check_final(&w);
    }
    free(w.slots);
    return w.result;
}

simulation simulate_allgather(ftc_allgather_algorithm alg, int p)
{
    simulation result = { .ok = false, .why = "out of memory" };
    ftc_schedule *plans = calloc((size_t)p, sizeof(*plans));
    if (!plans)
        return result;
    bool planned = true;
    for (int r = 0; r < p; r++) {
        ftc_schedule_init(&plans[r], r, p);
        planned = ftc_allgather_build_plan(alg, &plans[r]) && planned;
    }
    if (planned)
        result = simulate_schedules(plans, p);
    else
        snprintf(result.why, sizeof(result.why), "planning ran out of memory");
    for (int r = 0; r < p; r++)
        ftc_schedule_destroy(&plans[r]);
    free(plans);
    return result;
}
