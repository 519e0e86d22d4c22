/*
 * A call of the allgather family over the live ranks: the plan its caller
 * chose runs over the epoch's communicator with the call's tag, so that no
 * message of another call, or of an epoch a failure ended, can match.
 *
 *   every rank of the communicator lives, plan not rotated:
 *     place own block -> run the plan in the user's buffer
 *   ranks have died, or the plan rotates its buffer (Bruck), allgather:
 *     place own block -> run the plan in a buffer of the module's, one slot
 *     per live rank (slot s: block of live rank (s + rotation) mod n)
 *     -> each slot to its owner's place; the dead ranks' places untouched
 *   allgatherv, always:
 *     place own block -> run the plan in the user's buffer, slot s the
 *     place and count of live rank (s + rotation) mod n's block
 *   then: confirm or keep (ft_allgather.c), or after a failure recover
 *
 * A transfer of several slots is one message: one run of elements where
 * they lie end to end, else a datatype made for it (schedule_exec.c).
 *
 * Cost: the plan's; an allgather gathering apart adds one local copy of
 * the blocks.
 */
#include <stdlib.h>
#include <string.h>

#include "../allreduce/ft_engine.h"
#include "../error.h"
#include "../ft/ft.h"
#include "../schedule_exec.h"
#include "algorithms.h"
#include "ft_allgather.h"

/* ---- memory kept from call to call --------------------------------------------------------- */

static int grow(void **array, size_t entry, int entries)
{
    void *grown = realloc(*array, entry * (size_t)entries);
    if (!grown)
        return ftc_fail(MPI_ERR_NO_MEM, "ftc_allgatherv: out of memory for %d blocks", entries);
    *array = grown;
    return MPI_SUCCESS;
}

int ftc_allgather_scratch_reserve(ftc_allgather_scratch *s, int p)
{
    if (p <= s->capacity)
        return MPI_SUCCESS;
    int rc = grow((void **)&s->block_offsets, sizeof(MPI_Aint), p + 1);
    if (rc == MPI_SUCCESS)
        rc = grow((void **)&s->slot_counts, sizeof(int), p + 1);
    if (rc == MPI_SUCCESS)
        rc = grow((void **)&s->slot_offsets, sizeof(MPI_Aint), p + 1);
    if (rc == MPI_SUCCESS)
        rc = grow((void **)&s->elements_before, sizeof(long long), p + 1);
    if (rc == MPI_SUCCESS)
        rc = grow((void **)&s->run_last, sizeof(int), p + 1);
    if (rc == MPI_SUCCESS)
        rc = grow((void **)&s->packed_at, sizeof(size_t), p + 1);
    if (rc == MPI_SUCCESS)
        s->capacity = p;
    return rc;
}

void ftc_allgather_scratch_free(ftc_allgather_scratch *s)
{
    free(s->gathered);
    free(s->block_offsets);
    free(s->slot_counts);
    free(s->slot_offsets);
    free(s->elements_before);
    free(s->run_last);
    free(s->packed_at);
    *s = (ftc_allgather_scratch){ 0 };
}

/* ---- plans ----------------------------------------------------------------------------------- */

static void drop_plan(ftc_allgather_plans *cache, ftc_allgather_algorithm algorithm)
{
    ftc_schedule_destroy(cache->plans[algorithm]);
    free(cache->plans[algorithm]);
    cache->plans[algorithm] = NULL;
}

int ftc_allgather_plan_for(ftc_allgather_plans *cache, ftc_allgather_algorithm algorithm, int me,
                           int n, const ftc_schedule **out)
{
    ftc_schedule *plan = cache->plans[algorithm];
    if (plan && (plan->rank != me || plan->size != n))
        drop_plan(cache, algorithm);
    if (!cache->plans[algorithm]) {
        plan = malloc(sizeof(*plan));
        if (!plan)
            return ftc_fail(MPI_ERR_NO_MEM, "out of memory planning an allgather");
        ftc_schedule_init(plan, me, n);
        cache->plans[algorithm] = plan;
        if (!ftc_allgather_build_plan(algorithm, plan)) {
            drop_plan(cache, algorithm);
            return ftc_fail(MPI_ERR_NO_MEM, "out of memory planning %s",
                            ftc_allgather_algorithm_name(algorithm));
        }
        cache->own_block_alone[algorithm] = ftc_schedule_sends_own_block_alone(plan);
    }
    *out = cache->plans[algorithm];
    return MPI_SUCCESS;
}

void ftc_allgather_plans_free(ftc_allgather_plans *cache)
{
    for (int i = 0; i < FTC_ALLGATHER_ALGORITHM_COUNT; i++)
        if (cache->plans[i])
            drop_plan(cache, (ftc_allgather_algorithm)i);
}

/* ---- where the attempt gathers ----------------------------------------------------------- */

/* Once ranks have died the user's slots are the communicator's ranks, the
 * plan's the live ones; a rotated plan would put other ranks' blocks in a
 * dead rank's slot. Then an allgather gathers apart: the user's buffer is
 * written only once every block arrived, and only in the live ranks'
 * slots. An allgatherv never needs to: its slots carry their places, so
 * each slot is its owner's block in the user's buffer, whatever the plan's
 * order (Open MPI's Bruck allgatherv likewise rotates by datatypes). */
static bool gathers_apart(const ftc_allgather_call *a, int rotation)
{
    return !a->counts && (rotation != 0 || ftc_ft_live_count(a->comm->ft) < a->comm->size);
}

/* n slots of `count` elements, slot s at s x stride: the module's buffer
 * sized to them, and `base` placed in it. */
static int gathering_buffer(const ftc_allgather_call *a, int n, char **base)
{
    return ftc_slots_room(a->type, a->count, a->extent, n, &a->scratch->gathered,
                          &a->scratch->gathered_capacity, base);
}

/* The engine's view of n slots of their own counts and places: the
 * elements before each slot, and where each one's run end to end stops
 * (found once a call, so that a transfer of many slots costs no scan). */
static void index_slots(ftc_allgather_scratch *scratch, ftc_slots *slots, int n, MPI_Aint extent)
{
    scratch->elements_before[0] = 0;
    for (int s = 0; s < n; s++)
        scratch->elements_before[s + 1] = scratch->elements_before[s] + slots->counts[s];
    for (int s = n - 1; s >= 0; s--) {
        const bool joins_next = s + 1 < n && slots->offsets[s + 1]
                                    == slots->offsets[s] + (MPI_Aint)slots->counts[s] * extent;
        scratch->run_last[s] = joins_next ? scratch->run_last[s + 1] : s;
    }
    slots->before = scratch->elements_before;
    slots->run_last = scratch->run_last;
}

/* An allgatherv's slots: slot s is the block of live rank (s + rotation)
 * mod n, in its place in the user's buffer. */
static void v_slots(const ftc_allgather_call *a, int rotation, ftc_slots *slots)
{
    const int n = ftc_ft_live_count(a->comm->ft);
    ftc_allgather_scratch *scratch = a->scratch;
    if (rotation != 0 || n < a->comm->size) {
        const int *live = ftc_ft_live_ranks(a->comm->ft);
        for (int s = 0; s < n; s++) {
            const int owner = live[(s + rotation) % n];
            scratch->slot_counts[s] = a->counts[owner];
            scratch->slot_offsets[s] = a->offsets[owner];
        }
        slots->counts = scratch->slot_counts;
        slots->offsets = scratch->slot_offsets;
    }
    index_slots(scratch, slots, n, a->extent);
}

/* Where the attempt gathers: the user's buffer, or, apart, one slot per
 * live rank in the module's buffer. */
static int attempt_slots(const ftc_allgather_call *a, int rotation, bool apart, ftc_slots *slots)
{
    *slots = (ftc_slots){ .base = a->recv, .stride = a->stride, .count = a->count,
                          .type = a->type, .contiguous = a->contiguous,
                          .slot_bytes = (size_t)a->count * (size_t)a->type_size,
                          .counts = a->counts, .offsets = a->offsets };
    if (a->counts)
        v_slots(a, rotation, slots);
    else if (apart)
        return gathering_buffer(a, ftc_ft_live_count(a->comm->ft), &slots->base);
    return MPI_SUCCESS;
}

/* ---- gathered apart: each slot to its owner's place ------------------------------------------ */

/* Dense blocks of one size: each one's bytes. */
static void deliver_bytes(const ftc_allgather_call *a, const ftc_slots *gathered, const int *owner,
                          int n, int rotation)
{
    const size_t bytes = (size_t)a->count * (size_t)a->type_size;
    for (int s = 0; s < n; s++)
        memcpy(ftc_allgather_block_of(a, owner[(s + rotation) % n]), ftc_slot(gathered, s), bytes);
}

/* Blocks of one size with gaps: all of them packed at once, each unpacked
 * at its owner's place, which leaves the gaps of the user's buffer as they
 * were. */
static int deliver_typed(const ftc_allgather_call *a, const ftc_slots *gathered, const int *owner,
                         int n, int rotation)
{
    ftc_comm_t comm = a->comm;
    int packed_size = 0;
    int rc = MPI_Pack_size(n * a->count, a->type, comm->comm, &packed_size);
    if (rc != MPI_SUCCESS || packed_size < 0)
        return ftc_fail(rc != MPI_SUCCESS ? rc : MPI_ERR_COUNT, "%s: cannot pack the %d "
                        "gathered blocks to move them to their owners", a->name, n);
    rc = ftc_ensure_capacity(&comm->scratch, &comm->scratch_size,
                             packed_size > 0 ? (size_t)packed_size : 1);
    int position = 0;
    if (rc == MPI_SUCCESS)
        rc = MPI_Pack(gathered->base, n * a->count, a->type, comm->scratch, packed_size,
                      &position, comm->comm);
    int from = 0;
    for (int s = 0; rc == MPI_SUCCESS && s < n; s++)
        rc = MPI_Unpack(comm->scratch, position, &from,
                        ftc_allgather_block_of(a, owner[(s + rotation) % n]), a->count, a->type,
                        comm->comm);
    return rc == MPI_SUCCESS ? MPI_SUCCESS
                             : ftc_fail_mpi(rc, "%s: moving the blocks failed", a->name);
}

static int deliver(const ftc_allgather_call *a, const ftc_slots *gathered, int rotation)
{
    const int n = ftc_ft_live_count(a->comm->ft);
    const int *live = ftc_ft_live_ranks(a->comm->ft);
    if (a->all_bytes == 0)
        return MPI_SUCCESS;
    if (a->contiguous) {   /* one layout on both sides: its bytes are exact */
        deliver_bytes(a, gathered, live, n, rotation);
        return MPI_SUCCESS;
    }
    return deliver_typed(a, gathered, live, n, rotation);
}

/* ---- the attempt ----------------------------------------------------------------------------- */

/* Puts this rank's block where the plan expects it (slot own_slot). */
static int place_own_block(const ftc_allgather_call *a, const ftc_schedule *plan,
                           bool from_own_slot, const ftc_slots *slots)
{
    char *target = ftc_slot(slots, plan->own_slot);
    const int count = ftc_slot_count(slots, plan->own_slot);
    if (from_own_slot && target == a->send)
        return MPI_SUCCESS;   /* in place, where the plan wants it */
    return ftc_typed_copy(a->send, a->send_count, a->send_type, a->send_contiguous, target, count,
                          slots->type, slots->contiguous, a->comm->comm);
}

/*
 * Places the own block and runs the plan. Where the plan sends the own
 * block only on its own (two-proc, ring), it goes out straight from the
 * send buffer and is placed after the run, as Open MPI does: placing it
 * first puts a copy of the whole block before the first message, on every
 * rank's critical path (at p = 2 and 1 MiB, half again the call's time).
 * *ran: the plan ran (every step, whatever their errors).
 */
static int gather_blocks(const ftc_allgather_call *a, const ftc_schedule *plan, bool in_place,
                         ftc_slots *slots, const char *algorithm, bool own_block_alone, bool *ran)
{
    ftc_comm_t comm = a->comm;
    const bool own_block_after = !in_place && own_block_alone;
    const ftc_own_block own = { plan->own_slot, a->send, a->send_count, a->send_type };
    slots->own = own_block_after ? &own : NULL;
    int rc = own_block_after ? MPI_SUCCESS : place_own_block(a, plan, in_place, slots);
    ftc_allreduce_injection_point(comm, a->number, 0, FTC_INJECT_BEFORE_SEND, NULL);
    if (rc == MPI_SUCCESS) {
        rc = ftc_schedule_run(plan, slots, ftc_ft_epoch_comm(comm->ft),
                              ftc_ft_call_tag(comm->ft, a->number), &comm->exec, algorithm,
                              ftc_ft_exec_watch(comm->ft));
        *ran = rc != FTC_EXEC_INTERRUPTED;
    }
    slots->own = NULL;
    if (rc == MPI_SUCCESS)   /* every block arrived here; the others may still wait */
        ftc_allreduce_injection_point(comm, a->number, 1, FTC_INJECT_BEFORE_SEND, NULL);
    if (rc == MPI_SUCCESS && own_block_after)
        rc = place_own_block(a, plan, false, slots);
    return rc;
}

/* The attempt: every block in the user's buffer, the dead ranks' slots as
 * they were. */
static int run_attempt(const ftc_allgather_call *a, const ftc_schedule *plan,
                       const char *algorithm, bool own_block_alone, bool *ran)
{
    const bool apart = gathers_apart(a, plan->rotation);
    ftc_slots slots;
    int rc = attempt_slots(a, plan->rotation, apart, &slots);
    if (rc == MPI_SUCCESS && ftc_ft_failure_known(a->comm->ft))
        rc = FTC_EXEC_INTERRUPTED;
    if (rc == MPI_SUCCESS)
        rc = gather_blocks(a, plan, a->in_place && !apart, &slots, algorithm, own_block_alone,
                           ran);
    if (rc == MPI_SUCCESS && apart)
        rc = deliver(a, &slots, plan->rotation);
    return rc;
}

/* A failure stopped the attempt or the confirmation: the survivors end the call. */
static bool interrupted(int rc)
{
    return FTC_FT_SURVIVES
        && (rc == FTC_EXEC_INTERRUPTED || rc == FTC_DETECTED || ftc_ft_is_process_failure(rc));
}

/*
 * Even an empty block runs the schedule (of empty messages): returning at
 * once would leave waiting any rank that passed a larger block.
 */
int ftc_allgather_run(ftc_allgather_call *a, const ftc_schedule *plan, const char *algorithm,
                      bool own_block_alone)
{
    ftc_comm_t comm = a->comm;
    /* a rank others wait for in a meeting goes there first */
    bool plan_ran = false;
    int rc = ftc_ft_owes_meeting(comm->ft)
        ? FTC_EXEC_INTERRUPTED : run_attempt(a, plan, algorithm, own_block_alone, &plan_ran);
    const bool holds_every_block = rc == MPI_SUCCESS, confirms = ftc_allgather_confirms(a);
    int confirmed = MPI_SUCCESS;
    /* after an error of its own in the plan (a block of the wrong size), a
     * rank still takes part, so that the others do not wait for its tokens
     * (ranks that passed blocks of sizes on both sides of the threshold
     * decide differently, and those that confirm wait) */
    if (confirms && plan_ran && !interrupted(rc))
        confirmed = ftc_allgather_confirm(a);
    if (rc == MPI_SUCCESS)
        rc = confirmed;
    if (rc == MPI_SUCCESS)
        return ftc_allgather_complete(a, confirms);
    if (interrupted(rc) || interrupted(confirmed)) {
        const int recovered = ftc_allgather_recover(a, holds_every_block);
        return interrupted(rc) ? recovered : rc;
    }
    return rc;
}
