/*
 * The end of a call of the allgather family (ftc_allgather,
 * ftc_allgatherv) over the live ranks (ULFM): the plan runs while nothing
 * fails (attempt.c), the allreduce engine's recovery when something does,
 * so that every survivor ends alike.
 *
 *   attempt   the plan for the n live ranks (attempt.c)
 *   failure   every wait includes the layer's sentinel: each survivor
 *             stops within milliseconds
 *   recovery  the call becomes the engine's (ftc_allreduce_resume): the p
 *             blocks packed side by side into 8-byte words (each block
 *             its own width: an allgatherv's differ), zeros where
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

int ftc_allgather_check_total(const char *call, int p, long long all_bytes)
{
    if (FTC_FT_SURVIVES && all_bytes > FTC_ALLGATHER_MAX_BYTES)
        return ftc_fail(MPI_ERR_COUNT, "%s: the %d blocks come to %lld bytes; the recovery "
                        "after a failure carries at most %d", call, p, all_bytes,
                        FTC_ALLGATHER_MAX_BYTES);
    return MPI_SUCCESS;
}

/* ---- the blocks as the engine's recovery sees them: whole 8-byte words -------------------- */

typedef struct {
    const size_t *at;   /* block r packed at at[r], up to at[r + 1]... */
    size_t width;       /* ...or, NULL, at r x width (blocks of one size) */
    int words;          /* the p blocks, padded to whole words */
    bool bytes;         /* a block of the receive type packs as its bytes (packs_as_bytes) */
} word_layout;

static size_t packed_at(const word_layout *layout, int rank)
{
    return layout->at ? layout->at[rank] : (size_t)rank * layout->width;
}

static int packed_width(const word_layout *layout, int rank)
{
    return (int)(packed_at(layout, rank + 1) - packed_at(layout, rank));
}

/* A block packs as its bytes: a dense predefined type (a dense derived one
 * may list its elements out of memory order, as MPI_Pack would not). */
static bool packs_as_bytes(MPI_Datatype type, bool contiguous)
{
    return contiguous && ftc_type_is_predefined(type);
}

/* The bytes `count` x the call's type packs into (past 2 GiB: more than
 * the recovery carries). */
static int packed_bytes(const ftc_allgather_call *a, int count, bool bytes, long long *out)
{
    if (bytes) {
        *out = (long long)count * a->type_size;
        return MPI_SUCCESS;
    }
    int packed = 0;
    const int rc = MPI_Pack_size(count, a->type, a->comm->comm, &packed);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "%s: cannot size a packed block", a->name);
    *out = packed < 0 ? LLONG_MAX / 4 : packed;   /* MPI_Pack_size wraps past 2 GiB */
    return MPI_SUCCESS;
}

static int too_large(const ftc_allgather_call *a, long long total)
{
    return ftc_fail(MPI_ERR_COUNT, "%s: %d blocks packed come to %lld bytes, more than the 2 GiB "
                    "that the recovery after a failure can carry", a->name, a->comm->size, total);
}

/* Blocks of their own sizes: where each starts, into the module's array. */
static int layout_each(const ftc_allgather_call *a, word_layout *layout)
{
    size_t *at = a->scratch->packed_at;
    long long total = 0;
    at[0] = 0;
    for (int r = 0; r < a->comm->size; r++) {
        long long width = 0;
        const int rc = packed_bytes(a, a->counts[r], layout->bytes, &width);
        if (rc != MPI_SUCCESS)
            return rc;
        total += width;
        if (total > FTC_ALLGATHER_MAX_BYTES)
            return too_large(a, total);
        at[r + 1] = (size_t)total;
    }
    layout->at = at;
    layout->words = (int)((total + 7) / 8);
    return MPI_SUCCESS;
}

static int layout_of(const ftc_allgather_call *a, word_layout *layout)
{
    *layout = (word_layout){ NULL, 0, 0, packs_as_bytes(a->type, a->contiguous) };
    if (a->counts)
        return layout_each(a, layout);
    long long width = 0;
    const int rc = packed_bytes(a, a->count, layout->bytes, &width);
    if (rc != MPI_SUCCESS)
        return rc;
    if (width > FTC_ALLGATHER_MAX_BYTES / a->comm->size)
        return too_large(a, width > LLONG_MAX / a->comm->size ? LLONG_MAX
                                                              : width * a->comm->size);
    layout->width = (size_t)width;
    layout->words = (int)((width * a->comm->size + 7) / 8);
    return MPI_SUCCESS;
}

static size_t word_bytes(const word_layout *layout) { return (size_t)layout->words * 8; }

/* `count` x `type` at `from` (`bytes` of payload), packed into `to`
 * (`width` bytes); `as_bytes`: the type packs as its bytes (packs_as_bytes). */
static int pack_block(const ftc_allgather_call *a, const void *from, int count, MPI_Datatype type,
                      bool as_bytes, size_t bytes, char *to, int width)
{
    if (as_bytes) {
        if (bytes > 0)
            memcpy(to, from, bytes);
        return MPI_SUCCESS;
    }
    int position = 0;
    const int rc = MPI_Pack(from, count, type, to, width, &position, a->comm->comm);
    return rc == MPI_SUCCESS ? MPI_SUCCESS
                             : ftc_fail_mpi(rc, "%s: packing a block failed", a->name);
}

static int unpack_block(const ftc_allgather_call *a, const char *words,
                        const word_layout *layout, int rank)
{
    const char *from = words + packed_at(layout, rank);
    char *to = ftc_allgather_block_of(a, rank);
    if (layout->bytes) {
        const size_t bytes = ftc_allgather_bytes_of(a, rank);
        if (bytes > 0)
            memcpy(to, from, bytes);
        return MPI_SUCCESS;
    }
    int position = 0;
    const int rc = MPI_Unpack(from, packed_width(layout, rank), &position, to,
                              ftc_allgather_count_of(a, rank), a->type, a->comm->comm);
    return rc == MPI_SUCCESS ? MPI_SUCCESS
                             : ftc_fail_mpi(rc, "%s: unpacking a block failed", a->name);
}

/* The user's slots of the live ranks, packed into `words` (zeros elsewhere). */
static int pack_live_blocks(const ftc_allgather_call *a, const word_layout *layout, char *words)
{
    ftc_comm_t comm = a->comm;
    const int n = ftc_ft_live_count(comm->ft);
    if (n == comm->size && layout->bytes && !a->counts) {   /* slot r at r x width */
        if (a->all_bytes > 0)   /* the buffer may be NULL then */
            memcpy(words, a->recv, a->all_bytes);
        memset(words + a->all_bytes, 0, word_bytes(layout) - a->all_bytes);
        return MPI_SUCCESS;
    }
    memset(words, 0, word_bytes(layout));
    const int *live = ftc_ft_live_ranks(comm->ft);
    int rc = MPI_SUCCESS;
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
        const int r = live[i];
        rc = pack_block(a, ftc_allgather_block_of(a, r), ftc_allgather_count_of(a, r), a->type,
                        layout->bytes, ftc_allgather_bytes_of(a, r), words + packed_at(layout, r),
                        packed_width(layout, r));
    }
    return rc;
}

/* ---- the end of a call -------------------------------------------------------------------- */

bool ftc_allgather_confirms(const ftc_allgather_call *a)
{
    return ftc_ft_keeps_results(a->comm->ft)
        && ftc_allreduce_confirms(a->all_bytes);
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
            return ftc_fail_mpi(rc, "%s: confirming with ranks %d and %d failed", a->name,
                                ftc_ft_live_ranks(ft)[from], ftc_ft_live_ranks(ft)[to]);
    }
    return MPI_SUCCESS;
}

int ftc_allgather_complete(const ftc_allgather_call *a, bool confirmed)
{
    ftc_comm_t comm = a->comm;
    word_layout layout = { NULL, 0, 0, false };   /* sized only when the result is kept */
    int rc = ftc_ft_keeps_results(comm->ft) ? layout_of(a, &layout) : MPI_SUCCESS;
    char *keep_into = NULL;
    if (rc == MPI_SUCCESS)
        rc = ftc_allreduce_attempt_completed(comm, a->number, ftc_ft_live_set(comm->ft),
                                             layout.words, MPI_UINT64_T, word_bytes(&layout),
                                             confirmed ? FTC_EVERYONE_HOLDS
                                                       : FTC_EVERYONE_ENTERED,
                                             NULL, &keep_into);
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
    const int me = a->comm->rank;
    return pack_block(a, a->send, a->send_count, a->send_type,
                      packs_as_bytes(a->send_type, a->send_contiguous),
                      ftc_allgather_bytes_of(a, me), words + packed_at(layout, me),
                      packed_width(layout, me));
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
            rc = unpack_block(a, words, &layout, r);
    return rc;
}
