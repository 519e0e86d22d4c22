/*
 * ftc_allgather over the live ranks, and its end after a failure (ULFM):
 * the plan allgather.c picked runs while nothing fails, the allreduce
 * engine's recovery when something does, so that every survivor ends alike.
 *
 *   attempt   the plan for the n live ranks over the epoch's communicator
 *             (the live ranks, in order) with the call's tag: into the
 *             user's buffer while every rank of the communicator lives;
 *             once some have died, into a slot per live rank, then each
 *             slot to its owner's place (deliver), the dead ranks' slots
 *             left as they are
 *   failure   every wait includes the layer's sentinel: each survivor
 *             stops within milliseconds
 *   recovery  the call becomes the engine's (ftc_allreduce_resume): the p
 *             blocks packed side by side into 8-byte words, zeros where
 *             not held, op MPI_BOR, holdings {this rank}; a rank that had
 *             completed the call serves what it kept (holdings: every rank
 *             live at the call). The round gives every survivor the union
 *             of what the survivors hold, and its S says which blocks that
 *             is: every survivor's, and a dead rank's when a survivor had
 *             completed the call (it held every block)
 *   return    a rank completes the attempt only once every live rank's
 *             block reached it, so every live rank entered the call: the
 *             window of kept calls starts afresh here. With three or more
 *             live ranks the result is kept, packed, for a rank still
 *             inside the call at a meeting
 *   confirm   where that copy would be 128 KiB or more (the allreduce's
 *             rule), a dissemination barrier of empty messages on the
 *             call's tag instead, entered once this rank holds every
 *             block: a rank that completes it knows that every live rank
 *             holds every block, so nothing is kept, and a rank still
 *             inside the barrier at a meeting brings every block itself
 *
 *   p = 4, rank 2 dies in a ring after passing block 1 to rank 3:
 *   rank 0 holds {0}  rank 1 holds {1}  rank 3 holds {3} (it reports only
 *   itself)  ->  S = {0,1,3}: blocks 0, 1, 3 in every survivor's buffer,
 *   slot 2 as it was or partly written, reported not valid
 *
 * Cost without failure: the plan's, plus with three or more live ranks a
 * packed copy of the p blocks, or from 128 KiB ceil(log2 n) alpha and a
 * wait for every rank; once ranks have died, one local copy of the blocks
 * (gathered slots to their owners).
 */
#include "ft_allgather.h"

#include <limits.h>
#include <string.h>

#include "../allreduce/ft_engine.h"
#include "../allreduce/select.h"
#include "../error.h"
#include "../ft/ft.h"
#include "../p2p.h"
#include "state.h"

/* ---- where the attempt gathers ----------------------------------------------------------- */

bool ftc_allgather_gathers_apart(const ftc_allgather_call *a, int rotation)
{
    return rotation != 0 || ftc_ft_live_count(a->comm->ft) < a->comm->size;
}

int ftc_allgather_attempt_slots(const ftc_allgather_call *a, bool apart, ftc_slots *slots)
{
    *slots = (ftc_slots){ .base = a->recv, .stride = a->stride, .count = a->count,
                          .type = a->type, .contiguous = a->contiguous,
                          .slot_bytes = a->block_bytes };
    if (!apart)
        return MPI_SUCCESS;
    MPI_Aint lb, extent, true_lb, true_extent;
    MPI_Type_get_extent(a->type, &lb, &extent);
    MPI_Type_get_true_extent(a->type, &true_lb, &true_extent);
    const int n = ftc_ft_live_count(a->comm->ft);
    /* the bytes the n slots touch, from the first slot's start (extents may
     * be negative: slots and elements then run downwards) */
    const MPI_Aint last_slot = (MPI_Aint)(n - 1) * a->stride;
    const MPI_Aint last_element = a->count > 0 ? (MPI_Aint)(a->count - 1) * extent : 0;
    const MPI_Aint low = (last_slot < 0 ? last_slot : 0) + (last_element < 0 ? last_element : 0)
                       + true_lb;
    const MPI_Aint high = (last_slot > 0 ? last_slot : 0) + (last_element > 0 ? last_element : 0)
                        + true_lb + true_extent;
    struct ftc_allgather_state *s = a->comm->allgather;
    const size_t bytes = a->count > 0 ? (size_t)(high - low) : 0;
    const int rc = ftc_ensure_capacity(&s->gathered, &s->gathered_capacity, bytes > 0 ? bytes : 1);
    slots->base = s->gathered - low;
    return rc;
}

/* Dense slots: each one's bytes. */
static void deliver_bytes(const ftc_allgather_call *a, const ftc_slots *gathered, const int *owner,
                          int n, int rotation)
{
    for (int s = 0; s < n; s++)
        memcpy(a->recv + (MPI_Aint)owner[(s + rotation) % n] * a->stride, ftc_slot(gathered, s),
               a->block_bytes);
}

/* Slots with gaps: all of them packed at once, each unpacked at its owner's
 * place, which leaves the gaps of the user's buffer as they were. */
static int deliver_typed(const ftc_allgather_call *a, const ftc_slots *gathered, const int *owner,
                         int n, int rotation)
{
    ftc_comm_t comm = a->comm;
    int packed_size = 0;
    int rc = MPI_Pack_size(n * a->count, a->type, comm->comm, &packed_size);
    if (rc != MPI_SUCCESS || packed_size < 0)
        return ftc_fail(rc != MPI_SUCCESS ? rc : MPI_ERR_COUNT, "ftc_allgather: cannot pack the "
                        "%d gathered blocks to move them to their owners", n);
    rc = ftc_ensure_capacity(&comm->scratch, &comm->scratch_size,
                             packed_size > 0 ? (size_t)packed_size : 1);
    int position = 0;
    if (rc == MPI_SUCCESS)
        rc = MPI_Pack(gathered->base, n * a->count, a->type, comm->scratch, packed_size,
                      &position, comm->comm);
    int from = 0;
    for (int s = 0; rc == MPI_SUCCESS && s < n; s++)
        rc = MPI_Unpack(comm->scratch, position, &from,
                        a->recv + (MPI_Aint)owner[(s + rotation) % n] * a->stride, a->count,
                        a->type, comm->comm);
    return rc == MPI_SUCCESS ? MPI_SUCCESS
                             : ftc_fail_mpi(rc, "ftc_allgather: moving the blocks failed");
}

int ftc_allgather_deliver(const ftc_allgather_call *a, const ftc_slots *gathered, int rotation)
{
    const int n = ftc_ft_live_count(a->comm->ft);
    const int *live = ftc_ft_live_ranks(a->comm->ft);
    if (a->block_bytes == 0)
        return MPI_SUCCESS;
    if (a->contiguous) {   /* one layout on both sides: its bytes are exact */
        deliver_bytes(a, gathered, live, n, rotation);
        return MPI_SUCCESS;
    }
    return deliver_typed(a, gathered, live, n, rotation);
}

/* ---- the blocks as the engine's recovery sees them: whole 8-byte words -------------------- */

typedef struct {
    int width;     /* bytes of one packed block: block r at r x width */
    int words;     /* the p blocks, padded to whole words */
    bool bytes;    /* a block of the receive type packs as its bytes (packs_as_bytes) */
} word_layout;

/* A block packs as its bytes: a dense predefined type (a dense derived one
 * may list its elements out of memory order, as MPI_Pack would not). */
static bool packs_as_bytes(MPI_Datatype type, bool contiguous)
{
    return contiguous && ftc_type_is_predefined(type);
}

static int layout_of(const ftc_allgather_call *a, word_layout *layout)
{
    long long width = (long long)a->block_bytes;
    const bool bytes = packs_as_bytes(a->type, a->contiguous);
    if (!bytes) {
        int packed = 0;
        const int rc = MPI_Pack_size(a->count, a->type, a->comm->comm, &packed);
        if (rc != MPI_SUCCESS)
            return ftc_fail_mpi(rc, "ftc_allgather: cannot size a packed block");
        width = packed < 0 ? LLONG_MAX / 2 : packed;   /* MPI_Pack_size wraps past 2 GiB */
    }
    if (width > FTC_ALLGATHER_MAX_BYTES / a->comm->size)
        return ftc_fail(MPI_ERR_COUNT, "ftc_allgather: %d blocks of %lld bytes exceed the 2 GiB "
                        "that the recovery after a failure can carry", a->comm->size, width);
    *layout = (word_layout){ (int)width, (int)((width * a->comm->size + 7) / 8), bytes };
    return MPI_SUCCESS;
}

static size_t word_bytes(const word_layout *layout) { return (size_t)layout->words * 8; }

/* `count` x `type` at `from`, packed into `to` (`width` bytes); `as_bytes`:
 * the type packs as its bytes (packs_as_bytes). */
static int pack_block(const ftc_allgather_call *a, const void *from, int count, MPI_Datatype type,
                      bool as_bytes, char *to, int width)
{
    if (as_bytes) {
        if (a->block_bytes > 0)
            memcpy(to, from, a->block_bytes);
        return MPI_SUCCESS;
    }
    int position = 0;
    const int rc = MPI_Pack(from, count, type, to, width, &position, a->comm->comm);
    return rc == MPI_SUCCESS ? MPI_SUCCESS
                             : ftc_fail_mpi(rc, "ftc_allgather: packing a block failed");
}

static int unpack_block(const ftc_allgather_call *a, const char *from,
                        const word_layout *layout, int rank)
{
    char *to = a->recv + (MPI_Aint)rank * a->stride;
    if (layout->bytes) {
        if (a->block_bytes > 0)
            memcpy(to, from, a->block_bytes);
        return MPI_SUCCESS;
    }
    int position = 0;
    const int rc = MPI_Unpack(from, layout->width, &position, to, a->count, a->type,
                              a->comm->comm);
    return rc == MPI_SUCCESS ? MPI_SUCCESS
                             : ftc_fail_mpi(rc, "ftc_allgather: unpacking a block failed");
}

/* The user's slots of the live ranks, packed into `words` (zeros elsewhere). */
static int pack_live_blocks(const ftc_allgather_call *a, const word_layout *layout, char *words)
{
    ftc_comm_t comm = a->comm;
    const int n = ftc_ft_live_count(comm->ft);
    if (n == comm->size && layout->bytes) {   /* slot r at r x width */
        const size_t bytes = a->block_bytes * (size_t)n;
        if (bytes > 0)   /* the buffer may be NULL then */
            memcpy(words, a->recv, bytes);
        memset(words + bytes, 0, word_bytes(layout) - bytes);
        return MPI_SUCCESS;
    }
    memset(words, 0, word_bytes(layout));
    const int *live = ftc_ft_live_ranks(comm->ft);
    int rc = MPI_SUCCESS;
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
        rc = pack_block(a, a->recv + (MPI_Aint)live[i] * a->stride, a->count, a->type,
                        layout->bytes, words + (size_t)live[i] * (size_t)layout->width,
                        layout->width);
    return rc;
}

/* ---- the end of a call -------------------------------------------------------------------- */

bool ftc_allgather_confirms(const ftc_allgather_call *a)
{
    return ftc_ft_keeps_results(a->comm->ft)
        && ftc_allreduce_confirms((size_t)a->comm->size * a->block_bytes);
}

int ftc_allgather_confirm(const ftc_allgather_call *a)
{
    static const char token_out = 0;
    char token_in = 0;   /* an empty message: nothing is written */
    ftc_comm_t comm = a->comm;
    ftc_ft *ft = comm->ft;
    const int n = ftc_ft_live_count(ft), me = ftc_ft_live_index(ft);
    const MPI_Comm epoch = ftc_ft_epoch_comm(ft);
    const int tag = ftc_ft_call_tag(ft, a->number), expected[2] = { 0, -1 };
    int step = FTC_ALLGATHER_CONFIRM_STEP;
    for (int distance = 1; distance < n; distance *= 2, step++) {
        const int to = (me + distance) % n, from = (me - distance + n) % n;
        MPI_Request r[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
        ftc_allreduce_injection_point(comm, a->number, step, FTC_INJECT_BEFORE_SEND, NULL);
        ftc_watch_progress(&comm->watch, step, "confirming with", from);
        int rc = ftc_p2p_irecv(&token_in, 0, MPI_BYTE, from, tag, epoch, &r[0]);
        if (rc == MPI_SUCCESS)
            rc = ftc_p2p_isend(&token_out, 0, MPI_BYTE, to, tag, epoch, &r[1]);
        if (rc == MPI_SUCCESS)
            rc = ftc_ft_wait(ft, r, expected, 2);
        else
            ftc_ft_abandon(r, expected, 2);
        if (rc == FTC_DETECTED || ftc_ft_is_process_failure(rc))
            return FTC_DETECTED;
        if (rc != MPI_SUCCESS)
            return ftc_fail_mpi(rc, "ftc_allgather: confirming with ranks %d and %d failed",
                                ftc_ft_live_ranks(ft)[from], ftc_ft_live_ranks(ft)[to]);
    }
    return MPI_SUCCESS;
}

int ftc_allgather_complete(const ftc_allgather_call *a, bool confirmed)
{
    ftc_comm_t comm = a->comm;
    word_layout layout = { 0, 0, false };   /* sized only when the result is kept */
    int rc = ftc_ft_keeps_results(comm->ft) ? layout_of(a, &layout) : MPI_SUCCESS;
    char *keep_into = NULL;
    if (rc == MPI_SUCCESS)
        rc = ftc_allreduce_attempt_completed(comm, a->number, ftc_ft_live_set(comm->ft),
                                             layout.words, MPI_UINT64_T, word_bytes(&layout),
                                             confirmed ? FTC_EVERYONE_HOLDS
                                                       : FTC_EVERYONE_ENTERED, &keep_into);
    if (rc == MPI_SUCCESS && keep_into) {
        rc = pack_live_blocks(a, &layout, keep_into);
        if (rc != MPI_SUCCESS)
            ftc_ft_drop_kept(comm->ft);
    }
    return rc;
}

/* This rank's own block, packed into its place in `words`. */
static int pack_own_block(const ftc_allgather_call *a, const word_layout *layout, char *words)
{
    char *to = words + (size_t)a->comm->rank * (size_t)layout->width;
    return pack_block(a, a->send, a->send_count, a->send_type,
                      packs_as_bytes(a->send_type, a->send_contiguous), to, layout->width);
}

int ftc_allgather_recover(const ftc_allgather_call *a, bool holds_every_block)
{
    ftc_comm_t comm = a->comm;
    word_layout layout;
    int rc = layout_of(a, &layout);
    const size_t bytes = word_bytes(&layout);
    if (rc == MPI_SUCCESS)
        rc = ftc_ensure_capacity(&comm->packed, &comm->packed_size, bytes > 0 ? bytes : 1);
    if (rc != MPI_SUCCESS)
        return rc;
    char *words = comm->packed;
    ftc_holdings *held = ftc_allreduce_call_holdings(comm);
    if (holds_every_block) {
        rc = pack_live_blocks(a, &layout, words);
        ftc_holdings_copy(held, ftc_ft_live_set(comm->ft));
    } else {
        memset(words, 0, bytes);
        rc = pack_own_block(a, &layout, words);
        ftc_holdings_clear(held);
        ftc_holdings_add(held, comm->rank);
    }
    if (rc == MPI_SUCCESS)
        rc = ftc_allreduce_resume(comm, a->number, words, layout.words, MPI_UINT64_T, MPI_BOR,
                                  bytes, held);
    for (int r = 0; rc == MPI_SUCCESS && r < comm->size; r++)
        if (ftc_allreduce_result_includes(comm, r))
            rc = unpack_block(a, words + (size_t)r * (size_t)layout.width, &layout, r);
    return rc;
}
