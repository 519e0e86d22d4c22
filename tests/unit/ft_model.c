/*
 * A protocol model of the fault-tolerant allreduce, without MPI.
 *
 * What is modelled, and how (the code in src/ is the reference):
 *
 *   ranks      p of them, each a state machine that runs call 1 and call 2
 *              of the allreduce (lengths 3 and 7 by default), then
 *              ftc_comm_survivors (a settling meeting, place BETWEEN_CALLS,
 *              then a shrink of the epoch's communicator) and
 *              ftc_comm_free (a settling meeting, place LEAVING): settling
 *              operations that ranks late in call 2 reach after the others
 *              have settled in them and left. Every
 *              communication step of a rank is one *event*: posting a
 *              receive, posting a send, returning from a wait, entering and
 *              leaving a collective. Local computation between two such
 *              steps is part of the step before it: a death in the middle
 *              of it is the same as a death at its end.
 *   network    a message is matched by (epoch communicator, tag, source,
 *              destination), first sent first matched. A send completes at
 *              once (eager), later at any instant, or only once matched
 *              (rendezvous); a matched receive completes at once or later.
 *              These, like who moves next, are the scheduler's choices.
 *   values     a count vector of contributions (the "data"), beside the
 *              holdings the code believes the value has. Combining adds
 *              count vectors; a count above 1 is a contribution counted
 *              twice.
 *   failures   a rank dies between any two events. A survivor notices it
 *              (the sentinel, or a receive from the dead rank failing) at
 *              any later instant at which it is in a wait that is not
 *              complete and a rank of its current epoch is dead (only
 *              then: the sentinel's group is every rank, and the code
 *              re-arms it for a death outside the epoch, ft.c's
 *              sentinel_answered); the
 *              scheduler decides when, but it must before the survivor
 *              would block forever. A stopped wait cancels its receive (a
 *              receive already matched completes instead: its data lands in
 *              its buffer) and releases its send (the message stays in the
 *              network, matchable by a later receive with the same key).
 *   attempt    recursive doubling over the epoch's live ranks with the
 *              fold of the spares (ftc_rd_actives, ftc_rd_fold_partner,
 *              ftc_rd_partner), tag = base + call mod window; on a detection
 *              the holdings come from ftc_rd_holdings and the rank meets.
 *              Every receive lands in scratch space; the value takes it
 *              only once the whole exchange succeeded.
 *   meeting    (ftc_ft_meet) one shrink of the epoch's communicator: its
 *              result is the next epoch (the sentinel's twin of the whole
 *              communicator serves every epoch, ft.c). A shrink completes
 *              once every member entered it or is dead; a member that died
 *              after it began may be in the new group (and is dead there)
 *              or not. Then the records exchange (Bruck,
 *              watched waits), ftc_ft_reconcile, the round
 *              (ftc_allreduce_round: ftc_recovery_plan_build over the
 *              participants' starting holdings, the masters' recursive
 *              doubling with the header and disjointness checks of
 *              ft_recovery.c, the hand-out), and MPIX_Comm_agree of the
 *              outcome: a uniform AND over the survivors' flags and,
 *              possibly, those of ranks that died after entering it.
 *
 * What is checked, on every schedule:
 *   1. a receive never matches a message of another call, another epoch,
 *      another kind or another length;
 *   2. no value ever counts a contribution twice;
 *   3. every survivor returns from both calls, with a value whose
 *      contributions are exactly its S, the same S on every survivor, S
 *      holding every survivor and everything a survivor held when it
 *      detected a failure in that call;
 *   4. no deadlock: the run ends only when every survivor is done;
 *   5. a bounded number of meetings per rank, and of events;
 *   and every error the code itself would raise (reconcile's ERROR, a
 *   planning failure, a header or disjointness check, a collective entered
 *   by some ranks and not others) is a violation too.
 *
 * Beside the checks, a diagnostic: each time a rank records its value in a
 * meeting, whether the value's data has exactly the contributions its
 * holdings say (ftm_outcome.belief_differs). A difference is the root of
 * most wrong results, but not one by itself: a hand-out may overwrite it.
 *
 * The scheduler (ftm_scenario): who moves next (lowest rank first,
 * round-robin, or random), when survivors notice a death (as late as they
 * may, as early as they may, or like any event), whether the network
 * completes requests like any event or only when no rank can move (long
 * windows of matched, incomplete receives), and, in random orders, the
 * network's and the collectives' choices. Deaths come at given event
 * counts.
 *
 * The NEGATIVE control (isolate_epochs false) matches messages whatever the
 * epoch they were sent in: the meetings no longer isolate what an
 * interrupted epoch left behind; with a tag window of 1 the checker must
 * see a violation.
 *
 * Not modelled: the guard's periodic check-in (src/guard), ftc_allgather
 * (a call every live rank enters before any completes it, as the
 * allreduce, whose recovery it runs), errors other than
 * process failures, a post that
 * MPI refuses at once for a dead peer (the wait's detection covers what it
 * does, and more), and a released send's buffer being read after the
 * sender moved on (a message is its data when sent; meeting.c explains
 * why nobody can match it after the sender changed the buffer).
 */
#include "ft_model.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allreduce/recovery.h"
#include "allreduce/recursive_doubling.h"
#include "ft/holdings.h"
#include "ft/reconcile.h"
#include "p2p.h"

typedef uint64_t set;   /* bit r: original rank r (or participant r of an epoch) */

#define BIT(r) (UINT64_C(1) << (r))

enum {
    MAX_P = FTM_MAX_P,
    MAX_COMMS = 192,        /* communicators of one run: two per epoch */
    MAX_COLL = 4,           /* collectives per communicator: an agreement, the next shrink, room */
    MAX_XFERS = MAX_P + 24, /* a master's hand-out to everyone, after its reduction */
    MAX_MSGS = 1 << 15,
    MAX_RECORDS = MAX_COMMS * MAX_P,
    MAX_OPEN = 32,          /* collectives in progress at once */
    MAX_EVENTS = 4 * MAX_P + MAX_OPEN,
    TEXT = 200,
};

enum { FLAG_FINISHED = 1, FLAG_NO_ERROR = 2 };   /* meeting.c's agreed flag */

/* ---- the world ----------------------------------------------------------- */

typedef struct {
    uint8_t n[MAX_P];
} counts;

typedef enum { MSG_ATTEMPT, MSG_RECORDS, MSG_ROUND } msg_kind;

typedef struct {
    int comm, tag, src, dst;   /* the matching key (comm: the sender's epoch) */
    int next;                  /* the next message to dst, in sending order */
    bool matched;
    msg_kind kind;
    long call, epoch;          /* the sender's; for a round, its header too */
    int len;                   /* elements; for records, how many */
    set held;                  /* a round's header holdings */
    set records;               /* whose records (participant indices) */
    counts data;
} message;

typedef struct {
    bool active, complete;
    bool lazy;                 /* completes by a later network event */
    bool rendezvous;           /* a send that completes only once matched */
    int msg;                   /* a receive's matched message (-1: none yet), a send's own */
} request;

/* What a completed transfer does (one per kind of step in the code). */
typedef enum {
    FX_NONE,
    FX_SPARE_SENT,         /* attempt: a spare's fold-in sent: folded */
    FX_FOLD_IN,            /* attempt: an active combines its spare's value */
    FX_STEP,               /* attempt: an exchange combined */
    FX_SPARE_RESULT,       /* attempt: a spare got the result */
    FX_RECORDS,            /* meeting: records received */
    FX_COMBINE,            /* round: unpack, check, combine (exchange_and_combine) */
    FX_MASTER_SPARE_RESULT,/* round: a spare master got the result (reduce_as_spare) */
    FX_RESULT,             /* round: the hand-out received (receive_result) */
    FX_MASTER_CHECK,       /* round: a master holds S before handing out (local) */
} effect;

typedef struct {
    int from, to, tag;     /* original ranks, -1: none; no rank at all: a local step */
    effect fx;
    int arg;
} xfer;

typedef enum {
    ST_ATTEMPT, ST_SHRINK, ST_RECORDS, ST_ROUND, ST_AGREE,
    ST_SURVIVORS, ST_DONE
} stage;

typedef enum { OP_NONE, OP_POST_RECV, OP_POST_SEND, OP_WAIT, OP_ENTER, OP_EXIT } op;

typedef struct {
    bool written;
    int place;
    long call, kept, epoch, op;
    set held, kept_held;
} record;

typedef enum { COLL_FREE, COLL_SHRINK, COLL_AGREE } coll_kind;

typedef struct {
    coll_kind kind;
    bool done;
    set entered, dead_at_start;
    set finished, no_error;    /* an agreement: entrants by flag */
    int result;                /* a shrink: the new communicator; an agreement: the flag */
} collective;

typedef struct {
    set group;
    int n;
    int ranks[MAX_P];
    int records;               /* its records in the pool, -1: none yet */
    collective coll[MAX_COLL];
} communicator;

typedef struct {
    int rank;
    bool alive, done;
    /* the layer (struct ftc_ft) */
    int comm;                  /* the epoch's data communicator */
    long epoch;
    int n, index;              /* live ranks, this rank's place among them */
    const int *live;
    set group;
    long calls, kept_call, ops, skip_op;
    set kept_held;
    counts kept_data;
    int kept_len;
    bool owes_meeting;
    uint8_t coll_seq[MAX_COMMS];
    /* the call in progress (ftc_ft_call) */
    bool in_call;
    int len;
    counts cur;
    set held;
    bool have_held;
    ftc_rd_progress progress;
    /* the meeting in progress */
    ftc_ft_place place;
    int meetings;
    ftc_ft_decision decision;
    int flag;
    set records_have;
    bool serving;              /* the round runs on the kept result (serve_kept) */
    set serve_held;
    set S;
    int nmasters, masters[MAX_P], master_of[MAX_P];
    /* where it is */
    stage st;
    op next;
    xfer xf[MAX_XFERS];
    int nxf, at;
    request recv, send;
    int recv_comm, recv_from, recv_tag, expect_len;
    long expect_call;
    msg_kind expect_kind;
    int coll_comm, coll_at;
    /* what it returned */
    bool returned[FTM_CALLS];
    set result[FTM_CALLS], seen[FTM_CALLS];
} proc;

enum { EV_COLL, EV_SEND_DONE, EV_RECV_DONE, EV_STEP, EV_DETECT };

typedef struct {
    int kind, rank, comm, seq;
} event;

typedef struct {
    ftm_scenario sc;
    int p;
    proc procs[MAX_P];
    communicator comms[MAX_COMMS];
    int ncomms;
    message msgs[MAX_MSGS];
    int nmsgs;
    int inbox_head[MAX_P], inbox_tail[MAX_P];
    record records[MAX_RECORDS];
    int nrecords;
    int open[MAX_OPEN][2];
    int nopen;
    set dead;
    long events, event_limit;
    int meeting_limit;
    bool killed[FTM_MAX_KILLS];
    int kills_done;
    uint32_t rng;
    int last_rank;
    bool failed;
    ftm_violation kind;
    char why[512];
    char *trace;
    size_t room, used;
    long belief_differs;
} world;

static world the_world;   /* a few MB: static, and reset per run */

/* ---- text ---------------------------------------------------------------- */

static void set_text(set s, char *out, size_t room)
{
    size_t used = 0;
    out[0] = '\0';
    used += (size_t)snprintf(out, room, "{");
    for (int r = 0; r < MAX_P && used < room; r++) {
        if (!(s & BIT(r)) || (r > 0 && (s & BIT(r - 1))))
            continue;
        int last = r;
        while (last + 1 < MAX_P && (s & BIT(last + 1)))
            last++;
        used += (size_t)snprintf(out + used, room - used, "%s%d", used > 1 ? "," : "", r);
        if (last > r && used < room)
            used += (size_t)snprintf(out + used, room - used, "-%d", last);
    }
    if (used < room)
        snprintf(out + used, room - used, "}");
}

static void counts_text(const counts *c, int p, char *out, size_t room)
{
    set once = 0, more = 0;
    for (int r = 0; r < p; r++) {
        once |= c->n[r] == 1 ? BIT(r) : 0;
        more |= c->n[r] > 1 ? BIT(r) : 0;
    }
    char a[TEXT], b[TEXT];
    set_text(once, a, sizeof(a));
    set_text(more, b, sizeof(b));
    snprintf(out, room, more ? "%s twice:%s" : "%s", a, b);
}

static const char *tag_text(int tag, char *out, size_t room)
{
    if (tag == FTC_TAG_FT_RECORDS)
        return "records";
    if (tag == FTC_TAG_FT_REDUCE)
        return "reduce";
    if (tag == FTC_TAG_FT_HANDOUT)
        return "handout";
    snprintf(out, room, "attempt+%d", tag - FTC_TAG_ALLREDUCE_BASE);
    return out;
}

static const char *stage_text(stage st)
{
    static const char *const names[] = { "attempt", "shrink", "records",
                                         "round", "agree", "survivors' shrink", "done" };
    return names[st];
}

#define TRACING(w) ((w)->trace != NULL)

static void append(world *w, const char *format, va_list args)
{
    if (w->used + 2 >= w->room)
        return;
    int k = snprintf(w->trace + w->used, w->room - w->used, "%6ld  ", w->events);
    w->used = k > 0 && (size_t)k < w->room - w->used ? w->used + (size_t)k : w->room - 1;
    if (w->used + 2 >= w->room)
        return;
    k = vsnprintf(w->trace + w->used, w->room - w->used, format, args);
    w->used = k > 0 && (size_t)k < w->room - w->used ? w->used + (size_t)k : w->room - 1;
    if (w->used + 2 < w->room) {
        w->trace[w->used++] = '\n';
        w->trace[w->used] = '\0';
    }
}

static void note(world *w, const char *format, ...)
{
    if (!TRACING(w))
        return;
    va_list args;
    va_start(args, format);
    append(w, format, args);
    va_end(args);
}

static void violation(world *w, ftm_violation kind, const char *format, ...)
{
    if (w->failed)
        return;
    w->failed = true;
    w->kind = kind;
    va_list args;
    va_start(args, format);
    vsnprintf(w->why, sizeof(w->why), format, args);
    va_end(args);
    note(w, "VIOLATION: %s", w->why);
}

/* ---- small things -------------------------------------------------------- */

static uint32_t next_random(world *w)
{
    w->rng ^= w->rng << 13;
    w->rng ^= w->rng >> 17;
    w->rng ^= w->rng << 5;
    return w->rng;
}

static ftm_order current_order(const world *w)
{
    return w->kills_done == 0 ? w->sc.prefix_order : w->sc.order;
}

/* The network's and the collectives' choices: random only in a random
 * order, so that the canonical orders stay canonical. */
static bool choose(world *w, bool canonical)
{
    return current_order(w) == FTM_ORDER_RANDOM ? (next_random(w) & 1u) != 0 : canonical;
}

static void counts_single(counts *c, int r)
{
    memset(c, 0, sizeof(*c));
    c->n[r] = 1;
}

/* Exactly the contributions of s, each once. */
static bool counts_are(const counts *c, set s, int p)
{
    for (int r = 0; r < p; r++)
        if (c->n[r] != ((s & BIT(r)) ? 1 : 0))
            return false;
    return true;
}

static ftc_holdings wrap(int p, set *s)
{
    return (ftc_holdings){ .size = p, .words = s };
}

static counts *ctx_data(proc *q) { return q->serving ? &q->kept_data : &q->cur; }
static set *ctx_held(proc *q) { return q->serving ? &q->serve_held : &q->held; }
static long ctx_call(const proc *q) { return q->serving ? q->decision.call : q->calls; }
static int ctx_len(const proc *q) { return q->serving ? q->kept_len : q->len; }

static void add_xfer(world *w, proc *q, int from, int to, int tag, effect fx, int arg)
{
    if (q->nxf == MAX_XFERS) {
        violation(w, FTM_MODEL_ERROR,
                  "model limit: more than %d transfers in one stage", MAX_XFERS);
        return;
    }
    q->xf[q->nxf++] = (xfer){ .from = from, .to = to, .tag = tag, .fx = fx, .arg = arg };
}

/* ---- communicators and collectives --------------------------------------- */

static int new_comm(world *w, set group)
{
    if (w->ncomms == MAX_COMMS) {
        violation(w, FTM_MODEL_ERROR, "model limit: more than %d communicators", MAX_COMMS);
        return 0;
    }
    const int id = w->ncomms++;
    communicator *c = &w->comms[id];
    memset(c, 0, sizeof(*c));
    c->group = group;
    c->records = -1;
    for (int r = 0; r < w->p; r++) {
        if (group & BIT(r))
            c->ranks[c->n++] = r;
        w->procs[r].coll_seq[id] = 0;
    }
    return id;
}

static void install(world *w, proc *q, int comm)
{
    const communicator *c = &w->comms[comm];
    q->comm = comm;
    q->group = c->group;
    q->n = c->n;
    q->live = c->ranks;
    for (int i = 0; i < c->n; i++)
        if (c->ranks[i] == q->rank)
            q->index = i;
}

static bool coll_ready(const world *w, int comm, int seq)
{
    const collective *c = &w->comms[comm].coll[seq];
    return c->kind != COLL_FREE && !c->done
        && (w->comms[comm].group & ~(c->entered | w->dead)) == 0;
}

static void note_entry(world *w, const proc *q, int comm, coll_kind kind)
{
    if (kind == COLL_AGREE)
        note(w, "r%d enters the agreement on comm %d with flag %s%s", q->rank, comm,
             q->flag & FLAG_FINISHED ? "finished" : "not-finished",
             q->flag & FLAG_NO_ERROR ? "" : "+error");
    else
        note(w, "r%d enters the shrink of comm %d", q->rank, comm);
}

/* A collective on `comm` is matched by its place in the sequence of the
 * collectives each rank made on it, as MPI matches them. */
static void coll_enter(world *w, proc *q, int comm, coll_kind kind)
{
    if (q->coll_seq[comm] >= MAX_COLL) {
        violation(w, FTM_MODEL_ERROR,
                  "model limit: more than %d collectives on comm %d", MAX_COLL, comm);
        return;
    }
    const int seq = q->coll_seq[comm]++;
    collective *c = &w->comms[comm].coll[seq];
    if (c->kind == COLL_FREE) {
        if (w->nopen == MAX_OPEN) {
            violation(w, FTM_MODEL_ERROR,
                      "model limit: more than %d collectives in progress", MAX_OPEN);
            return;
        }
        c->kind = kind;
        c->dead_at_start = w->comms[comm].group & w->dead;
        w->open[w->nopen][0] = comm;
        w->open[w->nopen++][1] = seq;
    } else if (c->kind != kind || c->done) {
        violation(w, FTM_CODE_ERROR,
                  "r%d entered %s #%d on comm %d, where the others %s %s: the ranks do not "
                  "make the same collective calls", q->rank,
                  kind == COLL_SHRINK ? "a shrink" : "an agreement", seq, comm,
                  c->done ? "completed" : "entered",
                  c->kind == COLL_SHRINK ? "a shrink" : "an agreement");
        return;
    }
    c->entered |= BIT(q->rank);
    if (kind == COLL_AGREE && (q->flag & FLAG_FINISHED))
        c->finished |= BIT(q->rank);
    if (kind == COLL_AGREE && (q->flag & FLAG_NO_ERROR))
        c->no_error |= BIT(q->rank);
    q->coll_comm = comm;
    q->coll_at = seq;
    q->next = OP_EXIT;
    note_entry(w, q, comm, kind);
}

static void complete_coll(world *w, int comm, int seq)
{
    communicator *cm = &w->comms[comm];
    collective *c = &cm->coll[seq];
    c->done = true;
    for (int i = 0; i < w->nopen; i++)
        if (w->open[i][0] == comm && w->open[i][1] == seq) {
            w->open[i][0] = w->open[w->nopen - 1][0];
            w->open[i][1] = w->open[--w->nopen][1];
            break;
        }
    char text[TEXT];
    if (c->kind == COLL_SHRINK) {
        /* a member that died while the shrink ran may still be in the result */
        set keep = c->entered & ~w->dead;
        const set late_dead = cm->group & w->dead & ~c->dead_at_start;
        for (int r = 0; r < w->p; r++)
            if ((late_dead & BIT(r)) && choose(w, false))
                keep |= BIT(r);
        c->result = new_comm(w, keep);
        if (TRACING(w)) {
            set_text(keep, text, sizeof(text));
            note(w, "the shrink of comm %d completes: comm %d = %s", comm, c->result, text);
        }
        return;
    }
    /* uniform on every survivor; the flag of a rank that died in it may count */
    set voters = c->entered & ~w->dead;
    for (int r = 0; r < w->p; r++)
        if ((c->entered & w->dead & BIT(r)) && choose(w, true))
            voters |= BIT(r);
    c->result = ((voters & ~c->finished) ? 0 : FLAG_FINISHED)
              | ((voters & ~c->no_error) ? 0 : FLAG_NO_ERROR);
    note(w, "the agreement on comm %d completes: %s", comm,
         c->result & FLAG_FINISHED ? "all finished" : "not all finished");
}

/* ---- the network --------------------------------------------------------- */

static bool same_key(const world *w, const message *m, int comm, int tag, int src)
{
    return m->tag == tag && m->src == src && (!w->sc.isolate_epochs || m->comm == comm);
}

/* Check 1: what a receive gets is what it was posted for. */
static void check_match(world *w, const proc *q, const message *m)
{
    char tag[32];
    const char *name = tag_text(m->tag, tag, sizeof(tag));
    if (m->kind != q->expect_kind)
        violation(w, FTM_MATCHED_WRONG,
                  "r%d's receive (%s from r%d) matched a message of another kind", q->rank,
                  name, m->src);
    else if (m->kind != MSG_RECORDS && m->call != q->expect_call)
        violation(w, FTM_MATCHED_OTHER_CALL,
                  "r%d's receive for call %ld (%s from r%d, comm %d) matched a message of "
                  "call %ld (sent on comm %d)", q->rank, q->expect_call, name, m->src,
                  q->recv_comm, m->call, m->comm);
    else if (m->comm != q->recv_comm)
        violation(w, FTM_MATCHED_OTHER_EPOCH,
                  "r%d's receive (%s from r%d) on comm %d (epoch %ld) matched a message of "
                  "another epoch (comm %d, epoch %ld)", q->rank, name, m->src, q->recv_comm,
                  q->epoch, m->comm, m->epoch);
    else if (m->len != q->expect_len)
        violation(w, FTM_MATCHED_WRONG,
                  "r%d's receive (%s from r%d) expected length %d and got %d", q->rank, name,
                  m->src, q->expect_len, m->len);
}

/* The transfer's receive completed, into scratch space: the value
 * changes only once the whole transfer succeeded (apply_effect). */
static void complete_recv(proc *q)
{
    q->recv.complete = true;
}

static void deliver(world *w, proc *q, int idx)
{
    message *m = &w->msgs[idx];
    m->matched = true;
    q->recv.msg = idx;
    note(w, "r%d's receive from r%d matches (call %ld, comm %d)%s", q->rank, m->src, m->call,
         m->comm, q->recv.lazy ? " [completes later]" : "");
    check_match(w, q, m);
    if (!q->recv.lazy)
        complete_recv(q);
}

static int find_in_inbox(const world *w, int dst, int comm, int tag, int src)
{
    for (int i = w->inbox_head[dst]; i >= 0; i = w->msgs[i].next)
        if (!w->msgs[i].matched && same_key(w, &w->msgs[i], comm, tag, src))
            return i;
    return -1;
}

static void to_inbox(world *w, int idx)
{
    const int dst = w->msgs[idx].dst;
    if (w->inbox_tail[dst] >= 0)
        w->msgs[w->inbox_tail[dst]].next = idx;
    else
        w->inbox_head[dst] = idx;
    w->inbox_tail[dst] = idx;
}

static void post_recv(world *w, proc *q, const xfer *x)
{
    q->recv = (request){ .active = true, .msg = -1, .lazy = choose(w, false) };
    q->recv_comm = q->comm;
    q->recv_from = x->from;
    q->recv_tag = x->tag;
    q->expect_kind = q->st == ST_ATTEMPT ? MSG_ATTEMPT
                   : q->st == ST_RECORDS ? MSG_RECORDS : MSG_ROUND;
    q->expect_call = q->st == ST_ATTEMPT ? q->calls : ctx_call(q);
    if (q->st == ST_RECORDS)
        q->expect_len = x->arg < q->n - x->arg ? x->arg : q->n - x->arg;
    else
        q->expect_len = q->st == ST_ATTEMPT ? q->len : ctx_len(q);
    if (TRACING(w)) {
        char tag[32];
        note(w, "r%d posts a receive from r%d (%s, comm %d)", q->rank, x->from,
             tag_text(x->tag, tag, sizeof(tag)), q->comm);
    }
    const int idx = find_in_inbox(w, q->rank, q->comm, x->tag, x->from);
    if (idx >= 0)
        deliver(w, q, idx);
}

static void fill_message(world *w, proc *q, const xfer *x, message *m)
{
    *m = (message){ .comm = q->comm, .tag = x->tag, .src = q->rank, .dst = x->to, .next = -1,
                    .epoch = q->epoch };
    if (q->st == ST_ATTEMPT) {
        m->kind = MSG_ATTEMPT;
        m->call = q->calls;
        m->len = q->len;
        m->data = q->cur;
    } else if (q->st == ST_RECORDS) {
        const int d = x->arg, count = d < q->n - d ? d : q->n - d;
        m->kind = MSG_RECORDS;
        m->len = count;
        for (int j = 0; j < count; j++)
            m->records |= BIT((q->index + j) % q->n);
        if (m->records & ~q->records_have)
            violation(w, FTM_MODEL_ERROR, "model: r%d forwards records it does not have", q->rank);
    } else {
        m->kind = MSG_ROUND;
        m->call = ctx_call(q);
        m->len = ctx_len(q);
        m->data = *ctx_data(q);
        m->held = *ctx_held(q);
    }
}

static void post_send(world *w, proc *q, const xfer *x)
{
    if (w->nmsgs == MAX_MSGS) {
        violation(w, FTM_MODEL_ERROR, "model limit: more than %d messages", MAX_MSGS);
        return;
    }
    const int idx = w->nmsgs++;
    message *m = &w->msgs[idx];
    fill_message(w, q, x, m);
    /* eager at once, eager later, or rendezvous */
    const uint32_t mode = current_order(w) == FTM_ORDER_RANDOM ? next_random(w) % 3 : 0;
    q->send = (request){ .active = true, .msg = idx, .complete = mode == 0,
                         .lazy = mode != 0, .rendezvous = mode == 2 };
    if (TRACING(w)) {
        char tag[32], text[TEXT], what[TEXT + 32];
        if (m->kind == MSG_RECORDS) {
            set_text(m->records, text, sizeof(text));
            snprintf(what, sizeof(what), "records of participants %s", text);
        } else {
            counts_text(&m->data, w->p, text, sizeof(text));
            snprintf(what, sizeof(what), "call %ld, data %s", m->call, text);
        }
        note(w, "r%d posts a send to r%d (%s, comm %d, %s)%s", q->rank, x->to,
             tag_text(x->tag, tag, sizeof(tag)), q->comm, what,
             mode == 0 ? "" : mode == 1 ? " [completes later]" : " [rendezvous]");
    }
    proc *d = &w->procs[x->to];
    if (d->alive && d->recv.active && d->recv.msg < 0 && d->recv_from == q->rank
        && same_key(w, m, d->recv_comm, d->recv_tag, q->rank))
        deliver(w, d, idx);
    else
        to_inbox(w, idx);
}

/* A wait stopped by a failure (ftc_ft_abandon): a matched receive
 * completes, an unmatched one is cancelled, the send is released. */
static void abandon(proc *q)
{
    if (q->recv.active && q->recv.msg >= 0 && !q->recv.complete)
        complete_recv(q);
    q->recv.active = false;
    q->send.active = false;
}

/* ---- the protocol: forward declarations of the stages' ends -------------- */

static void begin_call(world *w, proc *q);
static void finish_call(world *w, proc *q);
static void survivors_shrink(world *w, proc *q);
static void decide(world *w, proc *q);
static void round_done(world *w, proc *q);
static void enter_agree(world *w, proc *q, int flag);

static void become_done(world *w, proc *q)
{
    q->done = true;
    q->st = ST_DONE;
    q->next = OP_NONE;
    note(w, "r%d is done", q->rank);
}

static void stage_done(world *w, proc *q)
{
    switch (q->st) {
    case ST_ATTEMPT: finish_call(w, q); break;
    case ST_RECORDS: decide(w, q); break;
    case ST_ROUND: round_done(w, q); break;
    default:
        violation(w, FTM_MODEL_ERROR, "model: transfers ended in stage %s", stage_text(q->st));
        break;
    }
}

/* ---- effects of completed transfers -------------------------------------- */

/* Check 2: a combination never counts a contribution twice. */
static void combine(world *w, proc *q, counts *into, const message *m)
{
    for (int r = 0; r < w->p; r++) {
        into->n[r] = (uint8_t)(into->n[r] + m->data.n[r]);
        if (into->n[r] > 1) {
            violation(w, FTM_COUNTED_TWICE,
                      "r%d counted r%d's contribution twice, combining r%d's value (call %ld)",
                      q->rank, r, m->src, m->call);
            return;
        }
    }
}

/* ft_recovery.c's unpack: the header names this call, epoch and phase, and
 * the holdings lie inside S. */
static bool unpack_ok(world *w, proc *q, const xfer *x, const message *m)
{
    if (m->call != ctx_call(q) || m->epoch != q->epoch || m->tag != x->tag) {
        violation(w, FTM_CODE_ERROR,
                  "r%d got from r%d a value of call %ld, epoch %ld where call %ld, epoch %ld "
                  "was due (ft_recovery.c's header check)", q->rank, m->src, m->call, m->epoch,
                  ctx_call(q), q->epoch);
        return false;
    }
    if (m->held & ~q->S) {
        violation(w, FTM_CODE_ERROR,
                  "r%d got from r%d a value holding ranks outside S", q->rank, m->src);
        return false;
    }
    return true;
}

static void round_effect(world *w, proc *q, const xfer *x, const message *m)
{
    if (x->fx == FX_MASTER_CHECK) {
        if (*ctx_held(q) != q->S)
            violation(w, FTM_CODE_ERROR, "r%d: the masters' reduction ended short of S", q->rank);
        return;
    }
    if (!unpack_ok(w, q, x, m))
        return;
    if (x->fx == FX_COMBINE) {
        if (m->held & *ctx_held(q)) {
            violation(w, FTM_CODE_ERROR,
                      "r%d got from r%d a value overlapping its own (combine_checked)",
                      q->rank, m->src);
            return;
        }
        combine(w, q, ctx_data(q), m);
        *ctx_held(q) |= m->held;
        return;
    }
    *ctx_data(q) = m->data;   /* unpack into c->current */
    if (m->held != q->S)
        violation(w, FTM_CODE_ERROR, "r%d got from r%d a result other than S", q->rank, m->src);
    else if (x->fx == FX_MASTER_SPARE_RESULT)
        *ctx_held(q) = m->held;
}

static void apply_effect(world *w, proc *q, const xfer *x, const message *m)
{
    switch (x->fx) {
    case FX_NONE:
        break;
    case FX_SPARE_SENT:
        q->progress.folded = true;
        break;
    case FX_FOLD_IN:
        combine(w, q, &q->cur, m);
        q->progress.folded = true;
        break;
    case FX_STEP:
        combine(w, q, &q->cur, m);
        q->progress.steps_done = x->arg + 1;
        q->progress.complete = x->arg + 1 == ftc_rd_steps(q->n);
        break;
    case FX_SPARE_RESULT:
        q->cur = m->data;   /* run_as_spare: received into scratch, taken on success */
        q->progress.complete = true;
        break;
    case FX_RECORDS:
        q->records_have |= m->records;
        break;
    default:
        round_effect(w, q, x, m);
        break;
    }
}

/* The failure-free attempt posts an exchange's send first (ftc_ft_exchange),
 * the other stages their receive first. */
static bool sends_first(const proc *q)
{
    return q->st == ST_ATTEMPT;
}

/* Runs the local steps and sets the next event of the stage's transfers. */
static void go(world *w, proc *q)
{
    while (q->at < q->nxf && !w->failed) {
        const xfer *x = &q->xf[q->at];
        if (x->to >= 0 && (x->from < 0 || sends_first(q))) {
            q->next = OP_POST_SEND;
            return;
        }
        if (x->from >= 0) {
            q->next = OP_POST_RECV;
            return;
        }
        apply_effect(w, q, x, NULL);
        q->at++;
    }
    q->next = OP_NONE;
    if (!w->failed)
        stage_done(w, q);
}

static void start_stage(world *w, proc *q, stage st)
{
    q->st = st;
    q->at = 0;
    go(w, q);
}

static void finish_transfer(world *w, proc *q)
{
    const xfer *x = &q->xf[q->at];
    const message *m = q->recv.active ? &w->msgs[q->recv.msg] : NULL;
    q->recv.active = false;
    q->send.active = false;
    if (TRACING(w)) {
        char text[TEXT];
        note(w, "r%d's wait completes (%s)", q->rank, stage_text(q->st));
        apply_effect(w, q, x, m);
        counts_text(ctx_data(q), w->p, text, sizeof(text));
        if (q->st != ST_RECORDS)
            note(w, "    r%d's value now %s", q->rank, text);
    } else {
        apply_effect(w, q, x, m);
    }
    q->at++;
    go(w, q);
}

/* ---- the meeting --------------------------------------------------------- */

static void next_meeting(world *w, proc *q)
{
    if (++q->meetings > w->meeting_limit) {
        violation(w, FTM_UNBOUNDED,
                  "r%d starts its meeting number %d: more than %d", q->rank, q->meetings,
                  w->meeting_limit);
        return;
    }
    q->st = ST_SHRINK;
    q->next = OP_ENTER;
}

static void start_meeting(world *w, proc *q, ftc_ft_place place)
{
    q->place = place;
    q->owes_meeting = false;
    next_meeting(w, q);
}

static void write_record(world *w, proc *q)
{
    communicator *c = &w->comms[q->comm];
    if (c->records < 0) {
        if (w->nrecords + c->n > MAX_RECORDS) {
            violation(w, FTM_MODEL_ERROR, "model limit: more than %d records", MAX_RECORDS);
            return;
        }
        c->records = w->nrecords;
        w->nrecords += c->n;
        memset(&w->records[c->records], 0, sizeof(record) * (size_t)c->n);
    }
    const bool at_call = q->place == FTC_AT_CALL;
    w->records[c->records + q->index] = (record){
        .written = true, .place = q->place, .call = at_call ? q->calls : q->calls + 1,
        .kept = q->kept_call, .epoch = q->epoch, .op = q->ops, .held = at_call ? q->held : 0,
        .kept_held = q->kept_held };
    if (at_call && !counts_are(&q->cur, q->held, w->p)) {
        w->belief_differs++;
        if (TRACING(w)) {
            char a[TEXT], b[TEXT];
            set_text(q->held, a, sizeof(a));
            counts_text(&q->cur, w->p, b, sizeof(b));
            note(w, "    note: r%d's value holds %s by its holdings, %s by its data", q->rank,
                 a, b);
        }
    }
}

/* hold_meeting: the record, then the records exchange (Bruck). */
static void hold_meeting(world *w, proc *q)
{
    q->decision = (ftc_ft_decision){ 0 };
    q->serving = false;
    write_record(w, q);
    q->records_have = BIT(q->index);
    q->nxf = 0;
    for (int d = 1; d < q->n; d *= 2)
        add_xfer(w, q, q->live[(q->index + d) % q->n], q->live[(q->index - d + q->n) % q->n],
                 FTC_TAG_FT_RECORDS, FX_RECORDS, d);
    start_stage(w, q, ST_RECORDS);
}

/* next_epoch: the shrink's result is the new epoch, dead members and all
 * (a member that died while it ran may be there: the epoch's waits notice
 * it, as the code's sentinel does). */
static void after_shrink(world *w, proc *q, int data)
{
    q->epoch++;
    install(w, q, data);
    note(w, "r%d leaves the shrink and installs comm %d (epoch %ld)", q->rank, q->comm,
         q->epoch);
    hold_meeting(w, q);
}

static void after_agree(world *w, proc *q, int agreed)
{
    if (!(agreed & FLAG_NO_ERROR)) {
        violation(w, FTM_CODE_ERROR,
                  "r%d: the agreement says a rank hit an error in the meeting", q->rank);
        return;
    }
    if (!(agreed & FLAG_FINISHED) || q->decision.next == FTC_NEXT_MEET_AGAIN) {
        next_meeting(w, q);
        return;
    }
    q->owes_meeting = q->decision.owes_meeting;
    if (q->decision.settled_op > 0)
        q->skip_op = q->decision.settled_op;
    note(w, "r%d leaves the meeting%s%s", q->rank, q->owes_meeting ? ", owes a meeting" : "",
         q->decision.settled_op > 0 ? ", others left" : "");
    if (q->place == FTC_AT_CALL)
        finish_call(w, q);
    else if (q->place == FTC_BETWEEN_CALLS)
        survivors_shrink(w, q);
    else
        become_done(w, q);
}

static void enter_agree(world *w, proc *q, int flag)
{
    note(w, "r%d is ready to agree (%s)", q->rank, flag & FLAG_FINISHED ? "finished" : "stopped");
    q->flag = flag;
    q->serving = false;
    q->st = ST_AGREE;
    q->next = OP_ENTER;
}

/* ---- the round ----------------------------------------------------------- */

/* reduce_among_masters, as transfers. */
static void plan_masters_reduction(world *w, proc *q)
{
    int me = 0;
    while (q->masters[me] != q->rank)
        me++;
    const int n = q->nmasters, fold = ftc_rd_fold_partner(me, n);
    if (me >= ftc_rd_actives(n)) {
        add_xfer(w, q, -1, q->masters[fold], FTC_TAG_FT_REDUCE, FX_NONE, 0);
        add_xfer(w, q, q->masters[fold], -1, FTC_TAG_FT_REDUCE, FX_MASTER_SPARE_RESULT, 0);
        return;
    }
    if (fold >= 0)
        add_xfer(w, q, q->masters[fold], -1, FTC_TAG_FT_REDUCE, FX_COMBINE, 0);
    for (int step = 0; step < ftc_rd_steps(n); step++) {
        const int partner = q->masters[ftc_rd_partner(me, step)];
        add_xfer(w, q, partner, partner, FTC_TAG_FT_REDUCE, FX_COMBINE, step);
    }
    if (fold >= 0)
        add_xfer(w, q, -1, q->masters[fold], FTC_TAG_FT_REDUCE, FX_NONE, 0);
}

/* hand_out, as transfers. */
static void plan_hand_out(world *w, proc *q, const set *values)
{
    const int me = q->rank;
    if (q->master_of[me] != me) {
        if (values[me] != q->S)
            add_xfer(w, q, q->master_of[me], -1, FTC_TAG_FT_HANDOUT, FX_RESULT, 0);
        return;
    }
    add_xfer(w, q, -1, -1, 0, FX_MASTER_CHECK, 0);
    for (int i = 0; i < q->n; i++) {
        const int r = q->live[i];
        if (r != me && q->master_of[r] == me && values[r] != q->S)
            add_xfer(w, q, -1, r, FTC_TAG_FT_HANDOUT, FX_NONE, 0);
    }
}

/* run_round's plan: starting holdings, ftc_recovery_plan_build. */
static bool plan_round(world *w, proc *q, set *values)
{
    const record *recs = &w->records[w->comms[q->comm].records];
    bool participant[MAX_P] = { false };
    ftc_holdings held[MAX_P];
    for (int i = 0; i < q->n; i++) {
        const int r = q->live[i];
        const bool inside = recs[i].place == FTC_AT_CALL && recs[i].call == q->decision.call;
        values[r] = inside ? recs[i].held : recs[i].kept_held;
        participant[r] = true;
    }
    for (int r = 0; r < w->p; r++)
        held[r] = wrap(w->p, &values[r]);
    ftc_recovery_plan plan;
    const ftc_plan_status status = ftc_recovery_plan_build(&plan, w->p, participant, held);
    if (status == FTC_PLAN_OK) {
        q->S = plan.result.words[0];
        q->nmasters = plan.nmasters;
        memcpy(q->masters, plan.masters, sizeof(int) * (size_t)plan.nmasters);
        memcpy(q->master_of, plan.master_of, sizeof(int) * (size_t)w->p);
    }
    ftc_recovery_plan_destroy(&plan);
    if (status != FTC_PLAN_OK) {
        violation(w, FTM_CODE_ERROR,
                  "r%d: recovery planning failed (status %d)", q->rank, (int)status);
        return false;
    }
    if (values[q->rank] != *ctx_held(q)) {
        violation(w, FTM_CODE_ERROR, "r%d: its record differs from its value", q->rank);
        return false;
    }
    return true;
}

/* ftc_allreduce_round */
static void start_round(world *w, proc *q)
{
    const ftc_ft_decision *d = &q->decision;
    if (d->role == FTC_ROLE_SERVE) {
        q->serving = true;   /* serve_kept */
        q->serve_held = q->kept_held;
    } else if (!q->in_call || q->calls != d->call) {
        violation(w, FTM_CODE_ERROR,
                  "a round for call %ld reached r%d, which is not inside it", d->call,
                  q->rank);
        return;
    }
    set values[MAX_P] = { 0 };
    if (!plan_round(w, q, values))
        return;
    if (TRACING(w)) {
        char text[TEXT];
        set_text(q->S, text, sizeof(text));
        note(w, "r%d's round for call %ld%s: %d masters, S = %s", q->rank, d->call,
             q->serving ? " (serving its kept result)" : "", q->nmasters, text);
    }
    q->nxf = 0;
    const bool master = q->master_of[q->rank] == q->rank;
    if (master && q->nmasters > 1) {
        if (q->serving) {
            violation(w, FTM_CODE_ERROR,
                      "r%d, which had returned from call %ld, would have to combine values "
                      "to finish it", q->rank, d->call);
            return;
        }
        plan_masters_reduction(w, q);
    }
    plan_hand_out(w, q, values);
    start_stage(w, q, ST_ROUND);
}

static void round_done(world *w, proc *q)
{
    if (!q->serving)
        q->held = q->S;
    enter_agree(w, q, FLAG_FINISHED | FLAG_NO_ERROR);
}

/* read_records and ftc_ft_reconcile; then the round, or the agreement. */
static void decide(world *w, proc *q)
{
    const record *recs = &w->records[w->comms[q->comm].records];
    ftc_ft_presence where[MAX_P];
    if (q->records_have != (q->n == MAX_P ? ~UINT64_C(0) : BIT(q->n) - 1)) {
        violation(w, FTM_MODEL_ERROR,
                  "model: r%d ended the records exchange without every record", q->rank);
        return;
    }
    for (int i = 0; i < q->n; i++) {
        if (!recs[i].written || recs[i].epoch != q->epoch) {
            violation(w, FTM_CODE_ERROR, "r%d read r%d's record of epoch %ld in epoch %ld", q->rank,
                      q->live[i], recs[i].epoch, q->epoch);
            return;
        }
        where[i] = (ftc_ft_presence){ .place = recs[i].place, .call = recs[i].call,
                                      .kept_first = recs[i].kept, .kept_last = recs[i].kept,
                                      .op = recs[i].op };
    }
    ftc_ft_reconcile(q->n, where, q->index, &q->decision);
    const ftc_ft_decision *d = &q->decision;
    note(w, "r%d decides: call %ld role %d round %d next %d owes %d settled_op %ld", q->rank,
         d->call, (int)d->role, (int)d->round, (int)d->next, (int)d->owes_meeting,
         d->settled_op);
    if (d->next == FTC_NEXT_ERROR) {
        violation(w, FTM_CODE_ERROR,
                  "r%d: reconcile says the survivors' calls do not match (%s)", q->rank,
                  d->why ? d->why : "?");
        return;
    }
    if (d->round)
        start_round(w, q);
    else
        enter_agree(w, q, FLAG_FINISHED | FLAG_NO_ERROR);
}

/* ---- calls --------------------------------------------------------------- */

static void plan_attempt(world *w, proc *q)
{
    const int n = q->n, me = q->index, fold = ftc_rd_fold_partner(me, n);
    const int tag = FTC_TAG_ALLREDUCE_BASE + (int)(q->calls % w->sc.window);
    q->nxf = 0;
    if (me >= ftc_rd_actives(n)) {
        add_xfer(w, q, -1, q->live[fold], tag, FX_SPARE_SENT, 0);
        add_xfer(w, q, q->live[fold], -1, tag, FX_SPARE_RESULT, 0);
        return;
    }
    if (fold >= 0)
        add_xfer(w, q, q->live[fold], -1, tag, FX_FOLD_IN, 0);
    for (int step = 0; step < ftc_rd_steps(n); step++) {
        const int partner = q->live[ftc_rd_partner(me, step)];
        add_xfer(w, q, partner, partner, tag, FX_STEP, step);
    }
    if (fold >= 0)
        add_xfer(w, q, -1, q->live[fold], tag, FX_NONE, 0);
}

/* ft_engine.c's recover: the holdings from how far the attempt got. */
static void recover(world *w, proc *q)
{
    ftc_holdings out = wrap(w->p, &q->held);
    ftc_rd_holdings(&out, q->index, q->n, &q->progress, q->live, NULL);
    q->have_held = true;
    q->seen[q->calls - 1] |= q->held;
    if (TRACING(w)) {
        char text[TEXT];
        set_text(q->held, text, sizeof(text));
        note(w, "r%d meets in call %ld, holding %s", q->rank, q->calls, text);
    }
    start_meeting(w, q, FTC_AT_CALL);
}

/* A settling operation begins (ftc_ft_begin_op, then ftc_ft_settle's
 * check): true when the others settled in it already and left, so this
 * rank skips the meeting, once. */
static bool others_settled(world *w, proc *q, const char *who)
{
    q->ops++;
    if (q->skip_op != q->ops)
        return false;
    q->skip_op = 0;
    note(w, "r%d's %s skips its settling: the others left", q->rank, who);
    return true;
}

/* ftc_comm_free: an operation of its own, which settles (leaving). */
static void settle(world *w, proc *q)
{
    if (others_settled(w, q, "ftc_comm_free")) {
        become_done(w, q);
        return;
    }
    note(w, "r%d settles in ftc_comm_free", q->rank);
    start_meeting(w, q, FTC_LEAVING);
}

/* ftc_comm_survivors (ftc_ft_survivors): an operation that settles
 * between calls, then shrinks the epoch's communicator for the caller. */
static void survivors(world *w, proc *q)
{
    if (others_settled(w, q, "ftc_comm_survivors")) {
        survivors_shrink(w, q);
        return;
    }
    note(w, "r%d settles in ftc_comm_survivors", q->rank);
    start_meeting(w, q, FTC_BETWEEN_CALLS);
}

static void survivors_shrink(world *w, proc *q)
{
    note(w, "r%d shrinks for ftc_comm_survivors", q->rank);
    q->st = ST_SURVIVORS;
    q->next = OP_ENTER;
}

static void begin_call(world *w, proc *q)
{
    q->calls++;
    q->ops++;
    q->in_call = true;
    q->len = w->sc.lengths[q->calls - 1];
    counts_single(&q->cur, q->rank);
    q->held = 0;
    q->have_held = false;
    q->progress = (ftc_rd_progress){ 0 };
    note(w, "r%d begins call %ld (epoch %ld)%s", q->rank, q->calls, q->epoch,
         q->owes_meeting ? ", owes a meeting" : "");
    if (q->owes_meeting) {
        recover(w, q);
        return;
    }
    plan_attempt(w, q);
    start_stage(w, q, ST_ATTEMPT);
}

/* ft_engine.c's finish: the result and its S are kept for late ranks. */
static void finish_call(world *w, proc *q)
{
    if (!q->have_held)
        q->held = q->group;   /* the attempt finished: every live rank */
    q->kept_call = q->calls;
    q->kept_held = q->held;
    q->kept_data = q->cur;
    q->kept_len = q->len;
    const int k = (int)q->calls - 1;
    q->returned[k] = true;
    q->result[k] = q->held;
    q->in_call = false;
    const bool exact = counts_are(&q->cur, q->held, w->p);
    if (TRACING(w) || !exact) {
        char a[TEXT], b[TEXT];
        set_text(q->held, a, sizeof(a));
        counts_text(&q->cur, w->p, b, sizeof(b));
        note(w, "r%d returns from call %ld: S = %s, value %s", q->rank, q->calls, a, b);
        if (!exact) {
            violation(w, FTM_WRONG_RESULT,
                      "r%d returned from call %ld with a value of %s where S = %s", q->rank,
                      q->calls, b, a);
            return;
        }
    }
    if (q->calls < FTM_CALLS)
        begin_call(w, q);
    else if (w->sc.survivors)
        survivors(w, q);
    else
        settle(w, q);
}

/* ---- events -------------------------------------------------------------- */

static bool wait_complete(const proc *q)
{
    return (!q->recv.active || q->recv.complete) && (!q->send.active || q->send.complete);
}

static bool step_enabled(const world *w, const proc *q)
{
    switch (q->next) {
    case OP_POST_RECV:
    case OP_POST_SEND:
    case OP_ENTER:
        return true;
    case OP_WAIT:
        return wait_complete(q);
    case OP_EXIT:
        return w->comms[q->coll_comm].coll[q->coll_at].done;
    default:
        return false;
    }
}

static int enabled_events(const world *w, event *ev)
{
    int n = 0;
    for (int i = 0; i < w->nopen; i++)
        if (coll_ready(w, w->open[i][0], w->open[i][1]))
            ev[n++] = (event){ EV_COLL, -1, w->open[i][0], w->open[i][1] };
    for (int r = 0; r < w->p; r++) {
        const proc *q = &w->procs[r];
        if (!q->alive || q->done)
            continue;
        if (q->send.active && !q->send.complete
            && (!q->send.rendezvous || w->msgs[q->send.msg].matched))
            ev[n++] = (event){ EV_SEND_DONE, r, 0, 0 };
        if (q->recv.active && q->recv.msg >= 0 && !q->recv.complete)
            ev[n++] = (event){ EV_RECV_DONE, r, 0, 0 };
        if (step_enabled(w, q))
            ev[n++] = (event){ EV_STEP, r, 0, 0 };
        if (q->next == OP_WAIT && !wait_complete(q) && (q->group & w->dead))
            ev[n++] = (event){ EV_DETECT, r, 0, 0 };
    }
    return n;
}

/* Who may go first: early detections, then ordinary events, then a slow
 * network's completions, then late detections. */
static int urgency(const world *w, const event *e)
{
    const ftm_detect detect = w->kills_done == 0 ? FTM_DETECT_ANY : w->sc.detect;
    if (e->kind == EV_DETECT)
        return detect == FTM_DETECT_EARLY ? 0 : detect == FTM_DETECT_LATE ? 3 : 1;
    if (e->kind == EV_SEND_DONE || e->kind == EV_RECV_DONE)
        return w->sc.network == FTM_NETWORK_SLOW ? 2 : 1;
    return 1;
}

static int pick(world *w, const event *ev, int n)
{
    int cand[MAX_EVENTS], nc = 0, best = 4;
    for (int i = 0; i < n; i++) {
        const int u = urgency(w, &ev[i]);
        if (u < best) {
            best = u;
            nc = 0;
        }
        if (u == best)
            cand[nc++] = i;
    }
    switch (current_order(w)) {
    case FTM_ORDER_RANDOM:
        return cand[next_random(w) % (uint32_t)nc];
    case FTM_ORDER_ROUND_ROBIN:
        for (int i = 0; i < nc; i++)
            if (ev[cand[i]].rank < 0 || ev[cand[i]].rank > w->last_rank)
                return cand[i];
        return cand[0];
    default:
        return cand[0];
    }
}

static void enter(world *w, proc *q)
{
    if (q->st == ST_AGREE)
        coll_enter(w, q, q->comm, COLL_AGREE);
    else if (q->st == ST_SURVIVORS)
        coll_enter(w, q, q->comm, COLL_SHRINK);   /* the caller's communicator, not installed */
    else
        coll_enter(w, q, q->comm, COLL_SHRINK);
}

static void leave_collective(world *w, proc *q)
{
    const int result = w->comms[q->coll_comm].coll[q->coll_at].result;
    switch (q->st) {
    case ST_SHRINK: after_shrink(w, q, result); break;
    case ST_SURVIVORS:
        note(w, "r%d has the survivors' communicator %d", q->rank, result);
        settle(w, q);
        break;
    default: after_agree(w, q, result); break;
    }
}

static void step(world *w, proc *q)
{
    const xfer *x = &q->xf[q->at];
    switch (q->next) {
    case OP_POST_RECV:
        post_recv(w, q, x);
        q->next = x->to >= 0 && !sends_first(q) ? OP_POST_SEND : OP_WAIT;
        break;
    case OP_POST_SEND:
        post_send(w, q, x);
        q->next = x->from >= 0 && sends_first(q) ? OP_POST_RECV : OP_WAIT;
        break;
    case OP_WAIT:
        finish_transfer(w, q);
        break;
    case OP_ENTER:
        enter(w, q);
        break;
    case OP_EXIT:
        leave_collective(w, q);
        break;
    default:
        break;
    }
}

static void detected(world *w, proc *q)
{
    abandon(q);
    note(w, "r%d detects a failure (%s)", q->rank, stage_text(q->st));
    if (q->st == ST_ATTEMPT) {
        recover(w, q);
        return;
    }
    if (q->place == FTC_AT_CALL)
        q->seen[q->calls - 1] |= q->held;
    enter_agree(w, q, FLAG_NO_ERROR);
}

static void execute(world *w, const event *e)
{
    w->events++;
    proc *q = e->rank >= 0 ? &w->procs[e->rank] : NULL;
    if (q)
        w->last_rank = e->rank;   /* round-robin goes on after it */
    switch (e->kind) {
    case EV_COLL:
        complete_coll(w, e->comm, e->seq);
        break;
    case EV_SEND_DONE:
        q->send.complete = true;
        note(w, "r%d's send to r%d completes", q->rank, w->msgs[q->send.msg].dst);
        break;
    case EV_RECV_DONE:
        complete_recv(q);
        note(w, "r%d's receive completes", q->rank);
        break;
    case EV_STEP:
        step(w, q);
        break;
    default:
        detected(w, q);
        break;
    }
}

static void kill_due(world *w)
{
    for (int k = 0; k < w->sc.nkills; k++) {
        if (w->killed[k] || w->sc.kills[k].after != w->events)
            continue;
        w->killed[k] = true;
        w->kills_done++;
        proc *q = &w->procs[w->sc.kills[k].victim];
        if (!q->alive)
            continue;
        q->alive = false;
        q->recv.active = false;   /* its posted receive matches nothing now */
        w->dead |= BIT(q->rank);
        note(w, "KILL r%d (in %s%s)", q->rank, stage_text(q->st), q->done ? ", done" : "");
    }
}

/* ---- the end ------------------------------------------------------------- */

static void describe_blocked(const world *w, const proc *q, char *out, size_t room)
{
    if (q->next == OP_EXIT)
        snprintf(out, room, "r%d in %s waits for the collective on comm %d", q->rank,
                 stage_text(q->st), q->coll_comm);
    else if (q->next == OP_WAIT)
        snprintf(out, room, "r%d in %s (comm %d) waits for its receive from r%d (%s) and its "
                 "send to r%d (%s)", q->rank, stage_text(q->st), q->comm, q->recv_from,
                 q->recv.active ? (q->recv.msg >= 0 ? "matched" : "unmatched") : "none",
                 q->send.active ? w->msgs[q->send.msg].dst : -1,
                 q->send.active ? (q->send.complete ? "complete" : "pending") : "none");
    else
        snprintf(out, room, "r%d in %s, next op %d", q->rank, stage_text(q->st), (int)q->next);
}

static void check_deadlock(world *w)
{
    char text[4][TEXT];
    int blocked = 0;
    for (int r = 0; r < w->p; r++) {
        const proc *q = &w->procs[r];
        if (q->alive && !q->done && blocked < 4)
            describe_blocked(w, q, text[blocked++], sizeof(text[0]));
    }
    if (blocked > 0)
        violation(w, FTM_DEADLOCK, "deadlock: nothing can happen; %s%s%s%s%s%s%s", text[0],
                  blocked > 1 ? "; " : "", blocked > 1 ? text[1] : "", blocked > 2 ? "; " : "",
                  blocked > 2 ? text[2] : "", blocked > 3 ? "; " : "",
                  blocked > 3 ? text[3] : "");
}

/* Check 3 over all survivors. */
static void check_results(world *w)
{
    const set survivors = (w->p == MAX_P ? ~UINT64_C(0) : BIT(w->p) - 1) & ~w->dead;
    char a[TEXT], b[TEXT];
    for (int k = 0; k < FTM_CALLS && !w->failed; k++) {
        bool first = true;
        set S = 0;
        for (int r = 0; r < w->p && !w->failed; r++) {
            const proc *q = &w->procs[r];
            if (!q->alive)
                continue;
            if (first)
                S = q->result[k];
            first = false;
            if (q->result[k] != S) {
                set_text(q->result[k], a, sizeof(a));
                set_text(S, b, sizeof(b));
                violation(w, FTM_WRONG_RESULT,
                          "call %d: r%d's S is %s, another survivor's %s", k + 1, r, a, b);
            } else if (q->seen[k] & ~S) {
                set_text(q->seen[k], a, sizeof(a));
                violation(w, FTM_WRONG_RESULT,
                          "call %d: S misses a contribution r%d held when it detected (%s)",
                          k + 1, r, a);
            }
        }
        if (!w->failed && (survivors & ~S)) {
            set_text(S, a, sizeof(a));
            violation(w, FTM_WRONG_RESULT, "call %d: S = %s misses a survivor", k + 1, a);
        }
    }
}

/* ---- running ------------------------------------------------------------- */

static void reset(world *w, const ftm_scenario *s, char *trace, size_t room)
{
    w->sc = *s;
    w->p = s->p;
    memset(w->procs, 0, sizeof(proc) * (size_t)s->p);
    w->ncomms = 0;
    w->nmsgs = 0;
    w->nrecords = 0;
    w->nopen = 0;
    w->dead = 0;
    w->events = 0;
    w->event_limit = 4000 + 600L * s->p * (s->nkills + 2);
    w->meeting_limit = 4 + 4 * s->nkills;
    memset(w->killed, 0, sizeof(w->killed));
    w->kills_done = 0;
    w->rng = s->seed ? s->seed : 1u;
    w->last_rank = -1;
    w->failed = false;
    w->why[0] = '\0';
    w->trace = trace && room > 0 ? trace : NULL;
    w->room = room;
    w->used = 0;
    if (w->trace)
        w->trace[0] = '\0';
    w->belief_differs = 0;
    for (int r = 0; r < s->p; r++) {
        w->inbox_head[r] = w->inbox_tail[r] = -1;
        w->procs[r].rank = r;
        w->procs[r].alive = true;
    }
    const int world_comm = new_comm(w, s->p == MAX_P ? ~UINT64_C(0) : BIT(s->p) - 1);
    for (int r = 0; r < s->p; r++)
        install(w, &w->procs[r], world_comm);
}

static bool valid(const ftm_scenario *s, char *why, size_t room)
{
    bool ok = s->p >= 1 && s->p <= MAX_P && s->window >= 1 && s->nkills >= 0
           && s->nkills <= FTM_MAX_KILLS && s->lengths[0] >= 0 && s->lengths[1] >= 0;
    for (int k = 0; ok && k < s->nkills; k++)
        ok = s->kills[k].victim >= 0 && s->kills[k].victim < s->p;
    if (!ok)
        snprintf(why, room, "invalid scenario");
    return ok;
}

void ftm_run(const ftm_scenario *s, ftm_outcome *out, char *trace, size_t room)
{
    memset(out, 0, sizeof(*out));
    if (!valid(s, out->why, sizeof(out->why))) {
        out->violation = FTM_MODEL_ERROR;
        return;
    }
    world *w = &the_world;
    reset(w, s, trace, room);
    for (int r = 0; r < w->p && !w->failed; r++)
        begin_call(w, &w->procs[r]);
    event ev[MAX_EVENTS];
    while (!w->failed) {
        kill_due(w);
        const int n = enabled_events(w, ev);
        if (n == 0)
            break;
        if (w->events >= w->event_limit) {
            violation(w, FTM_UNBOUNDED, "no end after %ld events", w->events);
            break;
        }
        execute(w, &ev[pick(w, ev, n)]);
    }
    if (!w->failed)
        check_deadlock(w);
    if (!w->failed)
        check_results(w);
    out->ok = !w->failed;
    out->violation = w->failed ? w->kind : FTM_OK;
    out->events = w->events;
    out->belief_differs = w->belief_differs;
    for (int r = 0; r < w->p; r++) {
        const proc *q = &w->procs[r];
        out->survivors += q->alive;
        out->most_meetings = q->meetings > out->most_meetings ? q->meetings : out->most_meetings;
    }
    for (int i = 0; i < w->nmsgs; i++)
        out->unmatched += !w->msgs[i].matched;
    snprintf(out->why, sizeof(out->why), "%s", w->why);
}

ftm_scenario ftm_default(int p)
{
    return (ftm_scenario){ .p = p, .lengths = { 3, 7 }, .window = 2, .isolate_epochs = true,
                           .survivors = true, .prefix_order = FTM_ORDER_LOWEST,
                           .order = FTM_ORDER_LOWEST, .detect = FTM_DETECT_LATE };
}

void ftm_describe(const ftm_scenario *s, char *out, size_t room)
{
    static const char *const orders[] = { "lowest", "round-robin", "random" };
    static const char *const detects[] = { "late", "early", "any" };
    int used = snprintf(out, room, "p=%d lengths=%d,%d window=%d epochs=%s survivors=%s "
                        "prefix=%s order=%s detect=%s network=%s seed=%u kills=[", s->p,
                        s->lengths[0], s->lengths[1], s->window, s->isolate_epochs ? "on" : "OFF",
                        s->survivors ? "yes" : "no",
                        orders[s->prefix_order], orders[s->order], detects[s->detect],
                        s->network == FTM_NETWORK_SLOW ? "slow" : "any", (unsigned)s->seed);
    for (int k = 0; k < s->nkills && used > 0 && (size_t)used < room; k++)
        used += snprintf(out + used, room - (size_t)used, "%sr%d after %ld", k ? ", " : "",
                         s->kills[k].victim, s->kills[k].after);
    if (used > 0 && (size_t)used < room)
        snprintf(out + used, room - (size_t)used, "]");
}
