/*
 * Fault-tolerant allreduce, recovery (ULFM). One round:
 *
 *   agree      MPIX_Comm_ack_failed + MPIX_Comm_agree until every survivor
 *              has acknowledged the same failed ranks (checked with a hash
 *              in the agreed flag); the flag also says which call each
 *              survivor is in
 *   exchange   holdings, among the survivors (Bruck allgather, log2 n steps)
 *   plan       ftc_recovery_plan_build: masters, who gets the result from
 *              whom, S (recovery.h)
 *   reduce     the masters' recursive doubling, folds included
 *   hand out   each master sends the result to the survivors it covers
 *              that do not already hold it
 *
 * A failure in any phase starts the next round with the holdings as they
 * are then. A rank whose partner died after the others had returned is
 * "late": the others find the failure at their next ftcoll entry, and the
 * agreement's flag shows two calls in progress. The round then serves the
 * older call first: the ranks that finished it bring their saved result
 * (holdings S), the late ranks receive it and return; the others loop to
 * the next agreement, which the late ranks join at their next entry.
 *
 * The agreement flag (bitwise AND over the survivors):
 *   bits  0..11  hash of the acknowledged failed ranks
 *   bits 12..23  its complement: both survive the AND only if all agree
 *   bits 24..26  cleared bit (v mod 3): a rank inside call v
 *   bits 27..29  cleared bit (v mod 3): a rank outside any call, v = its
 *                last finished call + 1
 * Calls in progress differ by at most one (nobody finishes call v + 1
 * while a live rank has not finished v), so two residues tell which is
 * the older.
 */
#include "ft_call.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi-ext.h>

#include "../error.h"
#include "../p2p.h"
#include "ft_engine.h"
#include "recovery.h"

enum { AGREEMENT_ATTEMPTS = 1000, HASH_BITS = 12 };
enum { PHASE_RECORDS = 0, PHASE_REDUCE = 1, PHASE_HANDOUT = 2 };
enum { RECORD_CALL = 0, RECORD_HEADER = 1 };   /* a record: call number, holdings words */

typedef struct {
    bool inconsistent;  /* ranks in calls that cannot be reconciled */
    bool mixed;         /* ranks in two consecutive calls */
    bool older;         /* this rank is in the older one */
    int tag_base;
} agreement;

/* ---- agreeing on the failed ranks -------------------------------------------- */

static unsigned hash_of_failed(const bool *failed, int size)
{
    uint32_t h = 2166136261u;
    for (int r = 0; r < size; r++) {
        if (failed[r])
            h = (h ^ (uint32_t)r) * 16777619u;
    }
    return (h ^ (h >> HASH_BITS) ^ (h >> (2 * HASH_BITS))) & ((1u << HASH_BITS) - 1);
}

/* Acknowledges every failure this rank knows of, and lists them. */
static int acknowledge(ftc_comm_t comm, bool *failed)
{
    int acked = 0;
    int rc = MPIX_Comm_ack_failed(comm->comm, comm->size, &acked);
    MPI_Group group = MPI_GROUP_NULL, all = MPI_GROUP_NULL;
    if (rc == MPI_SUCCESS)
        rc = MPIX_Comm_get_failed(comm->comm, &group);
    int known = 0;
    if (rc == MPI_SUCCESS)
        rc = MPI_Group_size(group, &known);
    const int n = acked < known ? acked : known;
    int *in_group = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int *in_comm = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (rc == MPI_SUCCESS && (!in_group || !in_comm))
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_group(comm->comm, &all);
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
        in_group[i] = i;   /* the acknowledged ones come first */
    if (rc == MPI_SUCCESS && n > 0)
        rc = MPI_Group_translate_ranks(group, n, in_group, all, in_comm);
    memset(failed, 0, sizeof(bool) * (size_t)comm->size);
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
        if (in_comm[i] >= 0 && in_comm[i] < comm->size)
            failed[in_comm[i]] = true;
    free(in_group);
    free(in_comm);
    if (group != MPI_GROUP_NULL)
        MPI_Group_free(&group);
    if (all != MPI_GROUP_NULL)
        MPI_Group_free(&all);
    return rc;
}

static int presence_bits(bool inside, long v)
{
    return 0x3F & ~(1 << ((inside ? 0 : 3) + (int)(v % 3)));
}

/* From the agreed presence bits: who is where, and which call is older. */
static void classify(agreement *a, int present, long v)
{
    const int in_calls = present & 7, outside = (present >> 3) & 7, residues = in_calls | outside;
    const int mine = (int)(v % 3);
    a->inconsistent = false;
    a->mixed = false;
    a->older = true;
    if (residues == 1 || residues == 2 || residues == 4) {
        /* one call: ranks outside it while others are inside it have left
         * a collective the others are in */
        a->inconsistent = in_calls && outside;
        return;
    }
    int older = -1;
    for (int r = 0; r < 3; r++)
        if ((residues >> r & 1) && (residues >> ((r + 1) % 3) & 1)
            && !(residues >> ((r + 2) % 3) & 1))
            older = r;
    a->mixed = true;
    a->older = mine == older;
    /* the older call must be one everyone has entered or finished */
    a->inconsistent = older < 0 || (outside >> older & 1);
}

static int agree(ftc_comm_t comm, bool inside, long v, agreement *a)
{
    ftc_ft_state *ft = &comm->ft;
    bool *failed = malloc(sizeof(bool) * (size_t)comm->size);
    if (!failed)
        return ftc_fail(MPI_ERR_NO_MEM, "ftc_allreduce: out of memory");
    for (int attempt = 0; attempt < AGREEMENT_ATTEMPTS; attempt++) {
        int rc = acknowledge(comm, failed);
        if (rc != MPI_SUCCESS) {
            free(failed);
            return ftc_fail_mpi(rc, "ftc_allreduce: acknowledging failed ranks");
        }
        const int hash = (int)hash_of_failed(failed, comm->size);
        int flag = hash | ((~hash & ((1 << HASH_BITS) - 1)) << HASH_BITS)
                 | (presence_bits(inside, v) << (2 * HASH_BITS));
        rc = MPIX_Comm_agree(comm->comm, &flag);
        const long number = ft->agreements++;
        int error_class = rc;
        if (rc != MPI_SUCCESS)
            MPI_Error_class(rc, &error_class);
        if (rc != MPI_SUCCESS && error_class != MPIX_ERR_PROC_FAILED) {
            free(failed);
            return ftc_fail_mpi(rc, "ftc_allreduce: MPIX_Comm_agree failed");
        }
        const int mask = (1 << HASH_BITS) - 1;
        const int low = flag & mask, high = (flag >> HASH_BITS) & mask;
        if (rc != MPI_SUCCESS || low != (~high & mask))
            continue;   /* a failure during the agreement, or views differ: again */
        for (int r = 0; r < comm->size; r++)
            ft->alive[r] = !failed[r];
        free(failed);
        ftc_ft_update_live(comm);
        ft->agree_at_entry = false;
        classify(a, ~(flag >> (2 * HASH_BITS)) & 0x3F, v);
        a->tag_base = FTC_TAG_RECOVERY_BASE + 4 * (int)(number % FTC_TAG_RECOVERY_WINDOW);
        return MPI_SUCCESS;
    }
    free(failed);
    return ftc_fail(MPIX_ERR_PROC_FAILED, "ftc_allreduce: the survivors did not reach the same "
                    "view of the failed ranks in %d agreements", AGREEMENT_ATTEMPTS);
}

/* ---- exchanging holdings ------------------------------------------------------ */

/*
 * Bruck allgather of fixed-size records over the live ranks: at distance
 * d = 1, 2, 4, ... each sends the records it has (up to d) to the rank d
 * before it and receives as many from the rank d after it. Records are kept
 * rotated (slot j: live rank me + j) and put in rank order at the end.
 */
static int exchange_records(ftc_ft_call *c, const uint64_t *mine, int words, uint64_t *all)
{
    const ftc_ft_state *ft = &c->comm->ft;
    const int n = ft->nlive, me = ft->live_index;
    uint64_t *rotated = malloc(sizeof(uint64_t) * (size_t)n * (size_t)words);
    if (!rotated)
        return ftc_fail(MPI_ERR_NO_MEM, "ftc_allreduce: out of memory");
    memcpy(rotated, mine, sizeof(uint64_t) * (size_t)words);
    int rc = MPI_SUCCESS;
    for (int d = 1; d < n && rc == MPI_SUCCESS; d *= 2) {
        const int records = d < n - d ? d : n - d;
        const int to = ft->live[(me - d + n) % n], from = ft->live[(me + d) % n];
        MPI_Request r[2];
        const bool receive[2] = { true, false };
        rc = MPI_Irecv(rotated + (size_t)d * (size_t)words, records * words, MPI_UINT64_T, from,
                       c->tag, c->comm->comm, &r[0]);
        if (rc == MPI_SUCCESS) {
            rc = MPI_Isend(rotated, records * words, MPI_UINT64_T, to, c->tag, c->comm->comm,
                           &r[1]);
            if (rc != MPI_SUCCESS)
                r[1] = MPI_REQUEST_NULL;
            rc = ftc_ft_wait(c, r, receive, 2, "exchanging holdings with", from);
        }
    }
    for (int j = 0; rc == MPI_SUCCESS && j < n; j++)
        memcpy(all + (size_t)((me + j) % n) * (size_t)words, rotated + (size_t)j * (size_t)words,
               sizeof(uint64_t) * (size_t)words);
    free(rotated);
    return rc;
}

/* Every live rank's holdings, indexed by rank (dead ranks' left empty). */
static int gather_holdings(ftc_ft_call *c, ftc_holdings *held)
{
    const ftc_ft_state *ft = &c->comm->ft;
    const int words = ftc_holdings_words(c->comm->size), record = RECORD_HEADER + words;
    uint64_t *mine = malloc(sizeof(uint64_t) * (size_t)record);
    uint64_t *all = malloc(sizeof(uint64_t) * (size_t)record * (size_t)ft->nlive);
    int rc = mine && all ? MPI_SUCCESS : ftc_fail(MPI_ERR_NO_MEM, "ftc_allreduce: out of memory");
    if (rc == MPI_SUCCESS) {
        mine[RECORD_CALL] = (uint64_t)c->number;
        memcpy(mine + RECORD_HEADER, c->held.words, sizeof(uint64_t) * (size_t)words);
        rc = exchange_records(c, mine, record, all);
    }
    for (int i = 0; rc == MPI_SUCCESS && i < ft->nlive; i++) {
        const uint64_t *theirs = all + (size_t)i * (size_t)record;
        if (theirs[RECORD_CALL] != (uint64_t)c->number)
            rc = ftc_fail(MPI_ERR_INTERN, "ftc_allreduce: rank %d recovers call %llu, this rank "
                          "call %ld", ft->live[i], (unsigned long long)theirs[RECORD_CALL],
                          c->number);
        else
            memcpy(held[ft->live[i]].words, theirs + RECORD_HEADER,
                   sizeof(uint64_t) * (size_t)words);
    }
    free(mine);
    free(all);
    return rc;
}

/* ---- one round ------------------------------------------------------------------ */

/* The masters' recursive doubling; on a failure, what this rank holds then. */
static int reduce_among_masters(ftc_ft_call *c, const ftc_recovery_plan *plan,
                                const ftc_holdings *held)
{
    if (c->op == MPI_OP_NULL)
        return ftc_fail(MPI_ERR_INTERN, "ftc_allreduce: a rank that had returned from call %ld "
                        "would have to combine values to finish it", c->number);
    ftc_holdings *start = malloc(sizeof(ftc_holdings) * (size_t)plan->nmasters);
    if (!start)
        return ftc_fail(MPI_ERR_NO_MEM, "ftc_allreduce: out of memory");
    int me = 0;
    for (int i = 0; i < plan->nmasters; i++) {
        start[i] = held[plan->masters[i]];   /* shares the words: read only */
        if (plan->masters[i] == c->comm->rank)
            me = i;
    }
    c->group = (ftc_ft_group){ .n = plan->nmasters, .ranks = plan->masters, .start = start,
                               .me = me };
    int rc = ftc_ft_run_group(c);
    if (rc == FTC_DETECTED)
        ftc_ft_note_holdings(c);
    c->group = (ftc_ft_group){ 0 };
    free(start);
    return rc;
}

/* A master sends the result to the survivors it covers that lack it. */
static int hand_out(ftc_ft_call *c, const ftc_recovery_plan *plan, const ftc_holdings *held)
{
    const ftc_ft_state *ft = &c->comm->ft;
    const int me = c->comm->rank;
    c->step = FTC_INJECT_STEP_HANDOUT;
    if (plan->master_of[me] != me)
        return ftc_holdings_equal(&held[me], &plan->result)
            ? MPI_SUCCESS : ftc_ft_receive(c, c->current, plan->master_of[me]);
    for (int i = 0; i < ft->nlive; i++) {
        const int r = ft->live[i];
        if (r == me || plan->master_of[r] != me || ftc_holdings_equal(&held[r], &plan->result))
            continue;
        const int rc = ftc_ft_send(c, c->current, r);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

static int plan_error(ftc_plan_status status)
{
    return ftc_fail(status == FTC_PLAN_NO_MEMORY ? MPI_ERR_NO_MEM : MPI_ERR_INTERN,
                    "ftc_allreduce: recovery planning failed (%s)",
                    status == FTC_PLAN_NO_MEMORY ? "out of memory"
                    : status == FTC_PLAN_NOT_LAMINAR ? "survivors' partial results overlap"
                    : "no survivor");
}

/* "{0-3,8}": a set of ranks, runs of consecutive ranks shortened. */
static void format_set(const ftc_holdings *h, int size, char *out, size_t room)
{
    size_t used = 0;
    out[0] = '\0';
    for (int r = 0; r < size && used + 24 < room; r++) {
        if (!ftc_holdings_has(h, r) || (r > 0 && ftc_holdings_has(h, r - 1)))
            continue;
        int last = r;
        while (last + 1 < size && ftc_holdings_has(h, last + 1))
            last++;
        used += (size_t)snprintf(out + used, room - used, used ? ",%d" : "%d", r);
        if (last > r)
            used += (size_t)snprintf(out + used, room - used, "-%d", last);
    }
    if (used + 24 >= room)
        snprintf(out + used, room - used, ",...");
}

/* FTCOLL_VERBOSE=1: the lowest live rank tells what the round does. */
static void log_plan(const ftc_ft_call *c, const ftc_recovery_plan *plan, const ftc_holdings *held)
{
    const ftc_comm_t comm = c->comm;
    if (!comm->verbose || comm->ft.live[0] != comm->rank)
        return;
    char set[256];
    fprintf(stderr, "ftcoll: allreduce call %ld, recovery round: %d live ranks; masters:",
            c->number, comm->ft.nlive);
    for (int i = 0; i < plan->nmasters; i++) {
        format_set(&held[plan->masters[i]], comm->size, set, sizeof(set));
        fprintf(stderr, " %d holds {%s}%s", plan->masters[i], set,
                i + 1 < plan->nmasters ? "," : "");
    }
    int handouts = 0;
    for (int i = 0; i < plan->nmasters; i++) {
        const int m = plan->masters[i];
        for (int j = 0, given = 0; j < comm->ft.nlive; j++) {
            const int r = comm->ft.live[j];
            if (r == m || plan->master_of[r] != m || ftc_holdings_equal(&held[r], &plan->result))
                continue;
            if (given++ == 0)
                fprintf(stderr, "%s%d->", handouts++ ? "; " : "; hand-out ", m);
            fprintf(stderr, "%s%d", given > 1 ? "," : "", r);
        }
    }
    format_set(&plan->result, comm->size, set, sizeof(set));
    fprintf(stderr, "; S = {%s}, %d of %d ranks\n", set, ftc_holdings_count(&plan->result),
            comm->size);
}

static int run_round(ftc_ft_call *c, int tag_base)
{
    const int size = c->comm->size;
    ftc_holdings *held = calloc((size_t)size, sizeof(ftc_holdings));
    bool ok = held != NULL;
    for (int r = 0; ok && r < size; r++)
        ok = ftc_holdings_init(&held[r], size);
    int rc = ok ? MPI_SUCCESS : ftc_fail(MPI_ERR_NO_MEM, "ftc_allreduce: out of memory");
    if (rc == MPI_SUCCESS) {
        c->tag = tag_base + PHASE_RECORDS;
        rc = gather_holdings(c, held);
    }
    ftc_recovery_plan plan = { 0 };
    if (rc == MPI_SUCCESS) {
        const ftc_plan_status status =
            ftc_recovery_plan_build(&plan, size, c->comm->ft.alive, held);
        if (status != FTC_PLAN_OK)
            rc = plan_error(status);
        else
            log_plan(c, &plan, held);
    }
    const bool master = rc == MPI_SUCCESS && plan.master_of[c->comm->rank] == c->comm->rank;
    if (master && plan.nmasters > 1) {
        c->tag = tag_base + PHASE_REDUCE;
        rc = reduce_among_masters(c, &plan, held);
    }
    if (rc == MPI_SUCCESS && master)
        ftc_holdings_copy(&c->held, &plan.result);
    if (rc == MPI_SUCCESS) {
        c->tag = tag_base + PHASE_HANDOUT;
        rc = hand_out(c, &plan, held);
    }
    if (rc == MPI_SUCCESS)
        ftc_holdings_copy(&c->held, &plan.result);
    ftc_recovery_plan_destroy(&plan);
    for (int r = 0; held && r < size; r++)
        ftc_holdings_destroy(&held[r]);
    free(held);
    return rc;
}

/* ---- serving a saved result ------------------------------------------------------- */

/* This rank finished call `number` and saved its result; ranks still in
 * that call get it in this round. */
static int serve_saved(ftc_comm_t comm, long number, const agreement *a, int round)
{
    ftc_ft_state *ft = &comm->ft;
    if (ft->saved_call != number)
        return ftc_fail(MPI_ERR_INTERN, "ftc_allreduce: ranks still in call %ld need its result, "
                        "but this rank kept call %ld's", number, ft->saved_call);
    ftc_ft_call s = { .comm = comm, .count = ft->saved_count, .type = ft->saved_type,
                      .op = MPI_OP_NULL, .bytes = ft->saved_bytes, .current = ft->saved,
                      .number = number, .round = round, .have_held = true };
    if (!ftc_holdings_init(&s.held, comm->size))
        return ftc_fail(MPI_ERR_NO_MEM, "ftc_allreduce: out of memory");
    ftc_holdings_copy(&s.held, &ft->saved_held);
    const int rc = run_round(&s, a->tag_base);
    ftc_holdings_destroy(&s.held);
    return rc;
}

/* ---- entry points ------------------------------------------------------------------- */

int ftc_ft_recover(ftc_ft_call *c)
{
    for (;;) {
        c->round++;
        c->step = 0;
        ftc_ft_die_if_injected(c, FTC_INJECT_RECOVERY);
        agreement a;
        int rc = agree(c->comm, true, c->number, &a);
        if (rc != MPI_SUCCESS)
            return rc;
        if (a.inconsistent)
            return ftc_fail(MPI_ERR_OTHER, "ftc_allreduce: call %ld: other ranks are in another "
                            "ftcoll call on this communicator (ftc_comm_free or a different "
                            "collective): every rank must make the same calls", c->number);
        if (a.mixed && !a.older) {
            rc = serve_saved(c->comm, c->number - 1, &a, c->round);
            if (rc != MPI_SUCCESS && rc != FTC_DETECTED)
                return rc;
            continue;   /* the ranks served join this call at their next entry */
        }
        rc = run_round(c, a.tag_base);
        if (rc == MPI_SUCCESS) {
            c->late = a.mixed;
            c->comm->ft.agree_at_entry = a.mixed;   /* the others wait in an agreement */
            return MPI_SUCCESS;
        }
        if (rc != FTC_DETECTED)
            return rc;
    }
}

static int settle_rounds(ftc_comm_t comm)
{
    for (int round = 1;; round++) {
        agreement a;
        const long next = comm->ft.calls + 1;
        int rc = agree(comm, false, next, &a);
        if (rc != MPI_SUCCESS)
            return rc;
        if (a.inconsistent || (a.mixed && a.older))
            return ftc_fail(MPI_ERR_OTHER, "ftcoll: other ranks are inside an ftc_allreduce "
                            "this rank did not enter: every rank must make the same calls");
        if (!a.mixed)
            return MPI_SUCCESS;
        rc = serve_saved(comm, next - 1, &a, round);
        if (rc != MPI_SUCCESS && rc != FTC_DETECTED)
            return rc;
    }
}

int ftc_ft_settle(ftc_comm_t comm)
{
    const int rc = settle_rounds(comm);
    ftc_ft_unwatch(comm);   /* a round served may have posted the sentinel */
    return rc;
}
