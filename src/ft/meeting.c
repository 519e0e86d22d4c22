/*
 * The survivors' meetings (ULFM). One meeting:
 *
 *   shrink     MPIX_Comm_shrink of the epoch's communicator: epoch e + 1
 *              (the sentinel's twin serves every epoch, ft.c). Nothing sent
 *              in epoch e is ever matched again: a message a failure
 *              stranded there cannot reach a later receive, whatever the
 *              tags, and every receive of epoch e completed or was
 *              cancelled before its rank came here, so a send released
 *              there reads no buffer after this
 *   records    every survivor's place (inside call v, between calls,
 *              leaving), the calls whose results it kept (its window),
 *              what its value holds and what each kept result held (Bruck's allgather
 *              plan, plans/bruck.c, run by the schedule engine with the
 *              sentinel watched: ceil(log2 n) steps, the epoch checked in
 *              every record)
 *   reconcile  the same decision everywhere (reconcile.h)
 *   round      the collective's round (a recovery, or serving a kept
 *              result to late ranks), if the decision has one
 *   agree      MPIX_Comm_agree of "I finished": everyone did, and each
 *              goes on as decided; or someone did not (a rank died in
 *              the meeting), and all meet again, holdings as they are
 *
 * The agreement makes a meeting all-or-nothing: no survivor leaves one
 * that another must repeat. Cost: one shrink, log2 n record exchanges
 * and one agreement, only after a failure or when settling.
 */
#include "ft_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi-ext.h>

#include "../error.h"
#include "../p2p.h"
#include "../plans/bruck.h"
#include "../schedule_exec.h"

enum { SHRINK_ATTEMPTS = 100 };
enum { FLAG_FINISHED = 1, FLAG_NO_ERROR = 2 };
/* then holdings: the value's, and the kept window's (call kept_first + i at i) */
enum { REC_EPOCH, REC_PLACE, REC_CALL, REC_KEPT_FIRST, REC_KEPT_LAST, REC_OP, REC_HEADER };

/* A meeting's working memory. */
typedef struct {
    int n, words, record;        /* participants, words per holdings, words per record */
    uint64_t *mine, *all;        /* records: this rank's, everyone's in epoch order */
    ftc_ft_presence *where;      /* per participant */
    ftc_holdings *held, *kept;   /* per rank: its value's; the round's call's result's */
} meeting_memory;

/* ---- a new epoch ---------------------------------------------------------------- */

static int shrink(MPI_Comm from, MPI_Comm *to)
{
    for (int attempt = 0; attempt < SHRINK_ATTEMPTS; attempt++) {
        const int rc = MPIX_Comm_shrink(from, to);
        if (rc == MPI_SUCCESS)
            return MPI_SUCCESS;
        if (!ftc_ft_is_process_failure(rc))
            return ftc_fail_mpi(rc, "ftcoll: MPIX_Comm_shrink failed");
    }
    return ftc_fail(MPIX_ERR_PROC_FAILED, "ftcoll: MPIX_Comm_shrink failed %d times",
                    SHRINK_ATTEMPTS);
}

/* Epoch e + 1: the survivors, in order, the same on every one of them. */
static int next_epoch(ftc_ft *ft)
{
    MPI_Comm data = MPI_COMM_NULL;
    const int rc = shrink(ft->comm, &data);
    if (rc != MPI_SUCCESS)
        return rc;
    ft->epoch++;
    return ftc_ft_install_epoch(ft, data);
}

/* ---- records -------------------------------------------------------------------------- */

static uint64_t *record_holdings(uint64_t *record, const meeting_memory *m, int which)
{
    return record + REC_HEADER + (size_t)which * (size_t)m->words;
}

static void write_record(const ftc_ft *ft, const meeting_memory *m, ftc_ft_place place,
                         const ftc_holdings *held)
{
    uint64_t *r = m->mine;
    r[REC_EPOCH] = (uint64_t)ft->epoch;
    r[REC_PLACE] = (uint64_t)place;
    r[REC_CALL] = (uint64_t)(place == FTC_AT_CALL ? ft->calls : ft->calls + 1);
    r[REC_KEPT_FIRST] = (uint64_t)ft->kept_first;
    r[REC_KEPT_LAST] = (uint64_t)ft->kept_last;
    r[REC_OP] = (uint64_t)ft->ops;
    memset(r + REC_HEADER, 0, sizeof(uint64_t) * (size_t)(m->record - REC_HEADER));
    const size_t bytes = sizeof(uint64_t) * (size_t)m->words;
    if (held)
        memcpy(record_holdings(r, m, 0), held->words, bytes);
    for (long call = ft->kept_first; call > 0 && call <= ft->kept_last; call++)
        memcpy(record_holdings(r, m, 1 + (int)(call - ft->kept_first)),
               ft->kept_held[call % FTC_FT_WINDOW].words, bytes);
}

/* The plan's run, every wait including the sentinel: a failure stops it
 * (its receives cancelled, its sends released, schedule_exec.h) and gives
 * FTC_DETECTED, as a watched wait's does (ftc_ft_wait). */
static int run_exchange(ftc_ft *ft, const ftc_schedule *plan, const ftc_slots *slots)
{
    if (plan->nsteps > 0 && ft->failure_known)
        return FTC_DETECTED;   /* no sentinel would say so: as ftc_ft_wait, stop at once */
    ftc_exec_scratch scratch = { 0 };   /* no watchdog slot: a meeting reports no progress */
    const int rc = ftc_schedule_run(plan, slots, ft->comm, FTC_TAG_FT_RECORDS, &scratch,
                                    "ftcoll: the survivors' records", ftc_ft_exec_watch(ft));
    ftc_exec_scratch_free(&scratch);
    return rc == FTC_EXEC_INTERRUPTED || ftc_ft_is_process_failure(rc) ? FTC_DETECTED : rc;
}

/*
 * Bruck's allgather (plans/bruck.c) of fixed-size records over the epoch's
 * communicator, whose ranks 0..n-1 are the participants in rank order: the
 * plan addresses them as they are. Records arrive rotated (the plan's
 * layout) and are put in epoch order at the end.
 */
static int exchange_records(ftc_ft *ft, meeting_memory *m)
{
    const size_t record_bytes = sizeof(uint64_t) * (size_t)m->record;
    ftc_schedule plan;
    ftc_schedule_init(&plan, ft->live_index, m->n);
    uint64_t *rotated = malloc(record_bytes * (size_t)m->n);
    if (!rotated || !ftc_plan_bruck(&plan)) {
        free(rotated);
        ftc_schedule_destroy(&plan);
        return ftc_fail(MPI_ERR_NO_MEM, "ftcoll: out of memory");
    }
    const ftc_slots slots = { .base = (char *)rotated, .stride = (MPI_Aint)record_bytes,
                              .count = m->record, .type = MPI_UINT64_T, .contiguous = true,
                              .slot_bytes = record_bytes };
    memcpy(ftc_slot(&slots, plan.own_slot), m->mine, record_bytes);
    int rc = run_exchange(ft, &plan, &slots);
    for (int j = 0; rc == MPI_SUCCESS && j < m->n; j++)
        memcpy(m->all + (size_t)ftc_schedule_block_of_slot(&plan, j) * (size_t)m->record,
               ftc_slot(&slots, j), record_bytes);
    free(rotated);
    ftc_schedule_destroy(&plan);
    if (rc != MPI_SUCCESS && rc != FTC_DETECTED)
        return ftc_fail_mpi(rc, "ftcoll: exchanging where the survivors are");
    return rc;
}

static int read_records(const ftc_ft *ft, meeting_memory *m)
{
    const size_t bytes = sizeof(uint64_t) * (size_t)m->words;
    for (int i = 0; i < m->n; i++) {
        uint64_t *r = m->all + (size_t)i * (size_t)m->record;
        const int rank = ft->live[i];
        const long first = (long)r[REC_KEPT_FIRST], last = (long)r[REC_KEPT_LAST];
        if (r[REC_EPOCH] != (uint64_t)ft->epoch || r[REC_PLACE] > FTC_LEAVING)
            return ftc_fail(MPI_ERR_INTERN, "ftcoll: rank %d's record is of epoch %llu, this "
                            "rank's of %ld", rank, (unsigned long long)r[REC_EPOCH], ft->epoch);
        if (first < 0 || (first > 0 && (last < first || last - first >= FTC_FT_WINDOW)))
            return ftc_fail(MPI_ERR_INTERN, "ftcoll: rank %d's record keeps calls %ld to %ld",
                            rank, first, last);
        m->where[i] = (ftc_ft_presence){ .place = (int)r[REC_PLACE], .call = (long)r[REC_CALL],
                                         .kept_first = first, .kept_last = last,
                                         .op = (long)r[REC_OP] };
        memcpy(m->held[rank].words, record_holdings(r, m, 0), bytes);
    }
    return MPI_SUCCESS;
}

/* Each rank's S of the round's call, from the kept window in its record
 * (empty when it did not keep it: a rank inside that call). */
static void pick_kept(const ftc_ft *ft, meeting_memory *m, long call)
{
    const size_t bytes = sizeof(uint64_t) * (size_t)m->words;
    for (int i = 0; i < m->n; i++) {
        const int rank = ft->live[i];
        const ftc_ft_presence *p = &m->where[i];
        uint64_t *r = m->all + (size_t)i * (size_t)m->record;
        if (ftc_ft_window_holds(p->kept_first, p->kept_last, call))
            memcpy(m->kept[rank].words, record_holdings(r, m, 1 + (int)(call - p->kept_first)),
                   bytes);
        else
            ftc_holdings_clear(&m->kept[rank]);
    }
}

static void release_memory(meeting_memory *m, int size)
{
    for (int r = 0; r < size; r++) {
        if (m->held)
            ftc_holdings_destroy(&m->held[r]);
        if (m->kept)
            ftc_holdings_destroy(&m->kept[r]);
    }
    free(m->held);
    free(m->kept);
    free(m->where);
    free(m->mine);
    free(m->all);
    memset(m, 0, sizeof(*m));
}

static int allocate_memory(const ftc_ft *ft, meeting_memory *m)
{
    m->n = ft->nlive;
    m->words = ftc_holdings_words(ft->size);
    m->record = REC_HEADER + (1 + FTC_FT_WINDOW) * m->words;
    m->mine = malloc(sizeof(uint64_t) * (size_t)m->record);
    m->all = malloc(sizeof(uint64_t) * (size_t)m->record * (size_t)m->n);
    m->where = malloc(sizeof(ftc_ft_presence) * (size_t)m->n);
    m->held = calloc((size_t)ft->size, sizeof(ftc_holdings));
    m->kept = calloc((size_t)ft->size, sizeof(ftc_holdings));
    bool ok = m->mine && m->all && m->where && m->held && m->kept;
    for (int r = 0; ok && r < ft->size; r++)
        ok = ftc_holdings_init(&m->held[r], ft->size) && ftc_holdings_init(&m->kept[r], ft->size);
    return ok ? MPI_SUCCESS : ftc_fail(MPI_ERR_NO_MEM, "ftcoll: out of memory");
}

/* ---- one meeting --------------------------------------------------------------------------- */

/* Records, decision and round of one epoch: MPI_SUCCESS when this rank
 * finished its part, FTC_DETECTED when a failure stopped it. */
static int hold_meeting(ftc_comm_t comm, ftc_ft_place place, const ftc_holdings *held,
                        void *call, ftc_ft_decision *decision)
{
    ftc_ft *ft = comm->ft;
    meeting_memory m = { 0 };
    int rc = allocate_memory(ft, &m);
    if (rc == MPI_SUCCESS) {
        write_record(ft, &m, place, held);
        rc = exchange_records(ft, &m);
    }
    if (rc == MPI_SUCCESS)
        rc = read_records(ft, &m);
    if (rc == MPI_SUCCESS)
        ftc_ft_reconcile(m.n, m.where, ft->live_index, decision);
    if (rc == MPI_SUCCESS && decision->round && decision->next != FTC_NEXT_ERROR) {
        pick_kept(ft, &m, decision->call);
        const ftc_ft_meeting meeting = { .epoch = ft->epoch, .n = m.n, .ranks = ft->live,
                                         .where = m.where, .held = m.held, .kept = m.kept,
                                         .decision = *decision };
        rc = ft->round ? ft->round(comm, call, &meeting)
                       : ftc_fail(MPI_ERR_INTERN, "ftcoll: no recovery round registered");
    }
    release_memory(&m, ft->size);
    return rc;
}

/* Everyone finished the meeting (FLAG_FINISHED), and nobody hit an error
 * of its own (FLAG_NO_ERROR): the agreed AND, the same on every survivor. */
static int agree_on_outcome(ftc_ft *ft, int rc, int *flag)
{
    *flag = (rc == MPI_SUCCESS ? FLAG_FINISHED : 0) | (rc == FTC_DETECTED || rc == MPI_SUCCESS
                                                          ? FLAG_NO_ERROR : 0);
    const int agree_rc = MPIX_Comm_agree(ft->comm, flag);
    if (agree_rc != MPI_SUCCESS && !ftc_ft_is_process_failure(agree_rc))
        return ftc_fail_mpi(agree_rc, "ftcoll: MPIX_Comm_agree failed");
    return MPI_SUCCESS;   /* a failure during the agreement leaves the flag agreed */
}

static int leave(ftc_ft *ft, const ftc_ft_decision *d)
{
    if (d->next == FTC_NEXT_ERROR)
        return ftc_fail(MPI_ERR_OTHER, "ftcoll: the survivors are in calls that do not match "
                        "(%s): every rank must make the same calls on a communicator", d->why);
    ft->owes_meeting = d->owes_meeting;
    if (d->settled_op > 0)
        ft->skip_op = d->settled_op;
    return MPI_SUCCESS;
}

int ftc_ft_meet(ftc_comm_t comm, ftc_ft_place place, const ftc_holdings *held, void *call,
                ftc_ft_decision *decision)
{
    ftc_ft *ft = comm->ft;
    ft->owes_meeting = false;
    for (;;) {
        int rc = next_epoch(ft);
        if (rc != MPI_SUCCESS)
            return rc;
        *decision = (ftc_ft_decision){ 0 };
        const int met = hold_meeting(comm, place, held, call, decision);
        char why[400] = "";
        if (met != MPI_SUCCESS && met != FTC_DETECTED)
            snprintf(why, sizeof(why), "%s", ftc_error_message());
        int flag = 0;
        rc = agree_on_outcome(ft, met, &flag);
        if (rc != MPI_SUCCESS)
            return rc;
        if (!(flag & FLAG_NO_ERROR))
            return ftc_fail(MPI_ERR_OTHER, "ftcoll: recovery failed %s: %s",
                            why[0] ? "here" : "on another rank",
                            why[0] ? why : "see its message");
        if (!(flag & FLAG_FINISHED) || decision->next == FTC_NEXT_MEET_AGAIN)
            continue;
        return leave(ft, decision);
    }
}

/* ---- settling -------------------------------------------------------------------------------- */

int ftc_ft_settle(ftc_comm_t comm, bool leaving, const char *who)
{
    ftc_ft *ft = comm->ft;
    if (ft->skip_op == ft->ops) {
        ft->skip_op = 0;
        return MPI_SUCCESS;   /* the others settled in this operation and left */
    }
    ftc_ft_decision decision;
    const int rc = ftc_ft_meet(comm, leaving ? FTC_LEAVING : FTC_BETWEEN_CALLS, NULL, NULL,
                               &decision);
    if (rc == MPI_SUCCESS)
        return MPI_SUCCESS;
    char why[400];
    snprintf(why, sizeof(why), "%s", ftc_error_message());
    return ftc_fail(rc, "%s: %s", who, why);
}

int ftc_ft_leave(ftc_comm_t comm)
{
    ftc_ft_begin_op(comm->ft);
    return ftc_ft_settle(comm, true, "ftc_comm_free");
}

/* ---- a constructor a death cut short -------------------------------------------------- */

/*
 * Why: Open MPI (5.0, ULFM) allocates a communicator's context id in
 * rounds of nonblocking allreduces, holding a marker (the lowest parent
 * allocating now) that makes every allocation over a parent of a higher
 * id wait its turn. An allocation that a death fails between two rounds
 * returns without clearing the marker, so every later MPIX_Comm_shrink
 * over such a parent (every recovery's, ftcoll's epochs among them)
 * waits for ever, even on a lone survivor. An allocation over the same
 * parent still passes the marker, and one that succeeds clears it: a
 * shrink, which succeeds over dead ranks. Collective over parent's
 * survivors; every one of them calls it, whether or not its own
 * allocation left the marker. `parent` returns its errors (its caller,
 * ftc_comm_create, has set MPI_ERRORS_RETURN on both it calls it for).
 */
int ftc_ft_release_context_ids(MPI_Comm parent)
{
    MPI_Comm shrunk = MPI_COMM_NULL;
    const int rc = shrink(parent, &shrunk);
    if (rc == MPI_SUCCESS)
        PMPI_Comm_free(&shrunk);
    return rc;
}

int ftc_ft_survivors(ftc_comm_t comm, MPI_Comm *survivors)
{
    ftc_ft_begin_op(comm->ft);
    int rc = ftc_ft_settle(comm, false, "ftc_comm_survivors");
    if (rc == MPI_SUCCESS)
        rc = shrink(comm->ft->comm, survivors);
    return rc;
}
