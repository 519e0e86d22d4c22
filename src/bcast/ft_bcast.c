/*
 * ftc_bcast with ULFM: a real broadcast while nothing fails, the allreduce
 * engine's recovery when something does, so that every survivor ends alike.
 *
 *   attempt   dissemination.h's broadcast over the epoch's communicator
 *             (the live ranks, in order), with the call's tag, on the
 *             user's buffer and datatype: no packing, no copy
 *   failure   every wait includes the layer's sentinel (ftc_ft_wait): each
 *             survivor stops within milliseconds and holds the root's data
 *             exactly when it is the root or its data message arrived
 *   recovery  the call becomes the engine's (ftc_allreduce_resume): the
 *             data packed into 8-byte words, zeros where not held, op
 *             MPI_BOR, holdings {root} or {}; the round gives every
 *             survivor the root's words when any survivor held them, and
 *             its S says whether it did: S = {root}, or S = {} and every
 *             survivor returns MPIX_ERR_PROC_FAILED
 *   return    the value is kept as the engine keeps its own (packed words,
 *             holdings S = {root}): a rank still in this call when others
 *             completed it gets the data from them in a meeting
 *
 * Cost without failure: dissemination.h's, ceil(log2 p) steps, plus the
 * packed copy kept for late ranks.
 */
#include "ft_bcast.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <mpi.h>

#include "../buffer.h"
#include "../error.h"
#include "../ft/ft.h"
#include "../p2p.h"
#include "../allreduce/ft_engine.h"
#include "dissemination.h"

typedef struct {
    ftc_comm_t comm;
    ftc_ft *ft;
    void *buf;
    int count;
    MPI_Datatype type;
    int root;              /* a rank of the communicator */
    int wire_bytes;        /* count x size of type: what a data message carries */
    long number;           /* the call's number in the engine's numbering */
    bool holds_data;       /* the root, or its data arrived here */
} bcast_call;

/* The data as the engine's recovery sees it: whole 8-byte words. */
typedef struct {
    int packed_bytes;
    int words;
} word_layout;

static int layout_of(const bcast_call *b, word_layout *layout)
{
    const int rc = MPI_Pack_size(b->count, b->type, b->comm->comm, &layout->packed_bytes);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "ftc_bcast: cannot size the packed data");
    layout->words = (int)(((size_t)layout->packed_bytes + 7) / 8);
    return MPI_SUCCESS;
}

static size_t word_bytes(const word_layout *layout) { return (size_t)layout->words * 8; }

/* The data packed into `into` and padded with zeros to whole words. */
static int pack_words(const bcast_call *b, const word_layout *layout, char *into)
{
    memset(into, 0, word_bytes(layout));
    int position = 0;
    const int rc = MPI_Pack(b->buf, b->count, b->type, into, layout->packed_bytes, &position,
                            b->comm->comm);
    return rc == MPI_SUCCESS ? MPI_SUCCESS
                             : ftc_fail_mpi(rc, "ftc_bcast: packing the root's data failed");
}

/* ---- the failure-free attempt ------------------------------------------------------------ */

static void report_progress(const bcast_call *b, int step, int peer)
{
    ftc_watch_progress(&b->comm->watch, step, "broadcasting with", peer);
}

/* One step: the data or a token to one participant, from another. */
static int exchange(bcast_call *b, const ftc_dissemination_step *s, int step)
{
    char token_in = 0, token_out = 0;   /* empty messages: nothing is read or written */
    MPI_Request r[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    const int expected[2] = { s->receives_data ? b->wire_bytes : 0, -1 };
    const MPI_Comm comm = ftc_ft_epoch_comm(b->ft);
    const int tag = ftc_ft_call_tag(b->ft, b->number);
    int rc = s->receives_data
        ? ftc_p2p_irecv(b->buf, b->count, b->type, s->receive_from, tag, comm, &r[0])
        : ftc_p2p_irecv(&token_in, 0, MPI_BYTE, s->receive_from, tag, comm, &r[0]);
    if (rc == MPI_SUCCESS) {
        ftc_allreduce_injection_point(b->comm, b->number, step, FTC_INJECT_BEFORE_SEND, NULL);
        rc = s->sends_data
            ? ftc_p2p_isend(b->buf, b->count, b->type, s->send_to, tag, comm, &r[1])
            : ftc_p2p_isend(&token_out, 0, MPI_BYTE, s->send_to, tag, comm, &r[1]);
        if (rc == MPI_SUCCESS)
            ftc_allreduce_injection_point(b->comm, b->number, step, FTC_INJECT_AFTER_SEND, &r[1]);
    }
    if (rc != MPI_SUCCESS) {
        ftc_ft_abandon(r, expected, 2);
        return ftc_ft_is_process_failure(rc)
            ? FTC_DETECTED : ftc_fail_mpi(rc, "ftc_bcast: posting step %d failed", step);
    }
    report_progress(b, step, s->receives_data ? s->receive_from : s->send_to);
    rc = ftc_ft_wait(b->ft, r, expected, 2);
    if (rc == MPI_SUCCESS && s->receives_data)
        b->holds_data = true;
    return rc == MPI_SUCCESS || rc == FTC_DETECTED
        ? rc : ftc_fail_mpi(rc, "ftc_bcast: step %d with ranks %d and %d failed", step,
                            s->receive_from, s->send_to);
}

/* With the root dead since an earlier call, every survivor knows that
 * nobody can hold its data, yet the steps still run, tokens only: a rank
 * that skipped them could complete this call and the next while another
 * rank is still in the previous one. */
static int run_attempt(bcast_call *b)
{
    const int n = ftc_ft_live_count(b->ft), me = ftc_ft_live_index(b->ft);
    const bool root_alive = ftc_ft_is_alive(b->ft, b->root);
    const int root = root_alive ? ftc_ft_epoch_rank(b->ft, b->root) : 0;
    for (int step = 0; step < ftc_dissemination_steps(n); step++) {
        ftc_dissemination_step s = ftc_dissemination_step_of(me, root, n, step);
        s.sends_data = s.sends_data && root_alive;
        s.receives_data = s.receives_data && root_alive;
        const int rc = exchange(b, &s, step);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* ---- the end of a call ------------------------------------------------------------------- */

/* What this rank's value holds: the root's data, or nothing. */
static ftc_holdings *holdings_of(const bcast_call *b)
{
    ftc_holdings *held = ftc_allreduce_call_holdings(b->comm);
    ftc_holdings_clear(held);
    if (b->holds_data)
        ftc_holdings_add(held, b->root);
    return held;
}

static int root_lost(const bcast_call *b)
{
    return ftc_fail(ftc_ft_failed_class(), "ftc_bcast: root %d died before its data reached "
                                           "any survivor", b->root);
}

/* The call is over here without a meeting: reported, its value kept. */
static int complete(const bcast_call *b)
{
    word_layout layout;
    int rc = layout_of(b, &layout);
    char *keep_into = NULL;
    if (rc == MPI_SUCCESS)
        rc = ftc_allreduce_attempt_completed(b->comm, b->number, holdings_of(b), layout.words,
                                             MPI_UINT64_T, word_bytes(&layout), &keep_into);
    if (rc == MPI_SUCCESS && keep_into) {
        if (b->holds_data)
            rc = pack_words(b, &layout, keep_into);
        else
            memset(keep_into, 0, word_bytes(&layout));
    }
    if (rc == MPI_SUCCESS && !b->holds_data)
        rc = root_lost(b);
    return rc;
}

/* After a failure: the survivors finish the call with the engine's recovery. */
static int recover(bcast_call *b)
{
    word_layout layout;
    int rc = layout_of(b, &layout);
    const size_t bytes = word_bytes(&layout);
    if (rc == MPI_SUCCESS)
        rc = ftc_ensure_capacity(&b->comm->packed, &b->comm->packed_size, bytes > 0 ? bytes : 1);
    if (rc != MPI_SUCCESS)
        return rc;
    char *words = b->comm->packed;
    if (b->holds_data)
        rc = pack_words(b, &layout, words);
    else
        memset(words, 0, bytes);
    if (rc == MPI_SUCCESS)
        rc = ftc_allreduce_resume(b->comm, b->number, words, layout.words, MPI_UINT64_T, MPI_BOR,
                                  bytes, holdings_of(b));
    if (rc != MPI_SUCCESS)
        return rc;
    if (!ftc_allreduce_result_includes(b->comm, b->root))
        return root_lost(b);
    if (b->holds_data)
        return MPI_SUCCESS;
    int position = 0;
    rc = MPI_Unpack(words, layout.packed_bytes, &position, b->buf, b->count, b->type,
                    b->comm->comm);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : ftc_fail_mpi(rc, "ftc_bcast: unpacking failed");
}

int ftc_bcast_fault_tolerant(void *buf, int count, MPI_Datatype type, int root, ftc_comm_t comm)
{
    int type_size = 0;
    MPI_Type_size(type, &type_size);
    bcast_call b = { .comm = comm, .ft = comm->ft, .buf = buf, .count = count, .type = type,
                     .root = root, .wire_bytes = type_size * count,
                     .number = ftc_ft_begin_call(comm->ft), .holds_data = comm->rank == root };
    /* a rank others wait for in a meeting goes there first */
    const int rc = ftc_ft_owes_meeting(comm->ft) ? FTC_DETECTED : run_attempt(&b);
    if (rc == FTC_DETECTED)
        return recover(&b);
    return rc == MPI_SUCCESS ? complete(&b) : rc;
}
