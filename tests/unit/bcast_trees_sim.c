/* The broadcast trees' message simulator; see bcast_trees_sim.h. */
#include "bcast_trees_sim.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct queued {
    ftc_msg msg;            /* msg.words points at `words` below */
    uint64_t *words;        /* own copy of the payload, or NULL */
    struct queued *next;
} queued;

typedef struct {
    queued *head, *tail;    /* FIFO: pop at head, push at tail */
} channel;

struct bcast_trees_sim {
    int n;
    channel *channels;      /* n * n, index from * n + to */
    int *busy;              /* the non-empty channels, in no order */
    int *busy_pos;          /* n * n: a channel's index in busy, -1 if empty */
    int nbusy;
    int in_flight;
    uint64_t rng;           /* splitmix64 state */
    long counts[FTC_MSG_KINDS];
    uint64_t *delivered_words;   /* the last delivered message's payload */
};

static void sim_fail(const char *why, const ftc_msg *msg)
{
    fprintf(stderr, "bcast_trees_sim: %s (kind %d, from %d, to %d)\n", why, msg->kind,
            msg->from, msg->to);
    abort();
}

static void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p) {
        fprintf(stderr, "bcast_trees_sim: out of memory\n");
        abort();
    }
    return p;
}

static uint64_t next_random(bcast_trees_sim *sim)
{
    uint64_t z = (sim->rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

bcast_trees_sim *bcast_trees_sim_new(int n, unsigned seed)
{
    bcast_trees_sim *sim = xmalloc(sizeof *sim);
    memset(sim, 0, sizeof *sim);
    const size_t nch = (size_t)n * (size_t)n;
    sim->n = n;
    sim->channels = xmalloc(nch * sizeof *sim->channels);
    sim->busy = xmalloc(nch * sizeof *sim->busy);
    sim->busy_pos = xmalloc(nch * sizeof *sim->busy_pos);
    for (size_t c = 0; c < nch; c++) {
        sim->channels[c].head = sim->channels[c].tail = NULL;
        sim->busy_pos[c] = -1;
    }
    sim->rng = seed;
    return sim;
}

void bcast_trees_sim_send(void *ctx, const ftc_msg *msg)
{
    bcast_trees_sim *sim = ctx;
    if (msg->to < 0 || msg->to >= sim->n || msg->from < 0 || msg->from >= sim->n)
        sim_fail("rank out of range", msg);
    if (msg->from == msg->to)
        sim_fail("message to self", msg);
    if (msg->kind < 0 || msg->kind >= FTC_MSG_KINDS)
        sim_fail("unknown kind", msg);
    if (msg->nwords < 0 || (msg->nwords > 0 && !msg->words))
        sim_fail("bad payload", msg);

    queued *q = xmalloc(sizeof *q);
    q->msg = *msg;
    q->words = NULL;
    if (msg->nwords > 0) {
        q->words = xmalloc((size_t)msg->nwords * sizeof *q->words);
        memcpy(q->words, msg->words, (size_t)msg->nwords * sizeof *q->words);
    }
    q->msg.words = q->words;
    q->next = NULL;

    const int c = msg->from * sim->n + msg->to;
    channel *ch = &sim->channels[c];
    if (ch->tail)
        ch->tail->next = q;
    else
        ch->head = q;
    ch->tail = q;
    if (sim->busy_pos[c] < 0) {
        sim->busy_pos[c] = sim->nbusy;
        sim->busy[sim->nbusy++] = c;
    }
    sim->in_flight++;
    sim->counts[msg->kind]++;
}

static void mark_idle(bcast_trees_sim *sim, int c)
{
    const int pos = sim->busy_pos[c];
    const int last = sim->busy[--sim->nbusy];
    sim->busy[pos] = last;
    sim->busy_pos[last] = pos;
    sim->busy_pos[c] = -1;
}

int bcast_trees_sim_next(bcast_trees_sim *sim, ftc_msg *out)
{
    free(sim->delivered_words);
    sim->delivered_words = NULL;
    if (sim->nbusy == 0)
        return 0;
    const int c = sim->busy[next_random(sim) % (uint64_t)sim->nbusy];
    channel *ch = &sim->channels[c];
    queued *q = ch->head;
    ch->head = q->next;
    if (!ch->head) {
        ch->tail = NULL;
        mark_idle(sim, c);
    }
    sim->in_flight--;
    *out = q->msg;
    sim->delivered_words = q->words;   /* kept until the next call */
    free(q);
    return 1;
}

long bcast_trees_sim_count(const bcast_trees_sim *sim, int kind)
{
    return kind >= 0 && kind < FTC_MSG_KINDS ? sim->counts[kind] : 0;
}

long bcast_trees_sim_total(const bcast_trees_sim *sim)
{
    long total = 0;
    for (int k = 0; k < FTC_MSG_KINDS; k++)
        total += sim->counts[k];
    return total;
}

void bcast_trees_sim_reset_counts(bcast_trees_sim *sim)
{
    memset(sim->counts, 0, sizeof sim->counts);
}

int bcast_trees_sim_in_flight(const bcast_trees_sim *sim)
{
    return sim->in_flight;
}

void bcast_trees_sim_free(bcast_trees_sim *sim)
{
    if (!sim)
        return;
    const int nch = sim->n * sim->n;
    for (int c = 0; c < nch; c++) {
        queued *q = sim->channels[c].head;
        while (q) {
            queued *next = q->next;
            free(q->words);
            free(q);
            q = next;
        }
    }
    free(sim->delivered_words);
    free(sim->channels);
    free(sim->busy);
    free(sim->busy_pos);
    free(sim);
}
