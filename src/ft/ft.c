/*
 * The fault-tolerance layer: state, epochs, the sentinel, watched waits,
 * calls. The survivors' meetings are in meeting.c (ULFM builds).
 *
 * The sentinel is a wildcard receive on a twin of the ftcoll communicator
 * (same group, nothing else on it): ULFM fails a pending wildcard receive
 * on every survivor soon after any rank of the group dies, also on ranks
 * blocked on a live peer, so every wait that includes it learns of every
 * failure. On its own communicator it stays posted for the whole epoch
 * without slowing the matching of the data messages. One twin serves every
 * epoch: each new epoch acknowledges on it the failures known so far, and
 * a wildcard receive posted after that fails again at the next death (an
 * epoch's members are ranks of the twin's group). A twin per epoch would
 * cost every meeting a second shrink.
 */
#include "ft_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef FTCOLL_HAVE_ULFM
#include <mpi-ext.h>
#endif

#include "../error.h"
#include "../p2p.h"

/* ---- settings ------------------------------------------------------------- */

/* FTCOLL_TAG_WINDOW: calls in the tag window (default FTC_FT_TAG_WINDOW). */
static int read_tag_window(int *window)
{
    const char *text = getenv("FTCOLL_TAG_WINDOW");
    *window = FTC_FT_TAG_WINDOW;
    if (!text || !*text)
        return MPI_SUCCESS;
    char *end = NULL;
    const long value = strtol(text, &end, 10);
    if (*end != '\0' || value < FTC_FT_TAG_WINDOW_MIN || value > FTC_FT_TAG_WINDOW_MAX)
        return ftc_fail(MPI_ERR_ARG, "FTCOLL_TAG_WINDOW=\"%s\": expected a number of calls from "
                        "%d to %d", text, FTC_FT_TAG_WINDOW_MIN, FTC_FT_TAG_WINDOW_MAX);
    *window = (int)value;
    return MPI_SUCCESS;
}

/* ---- the sentinel ------------------------------------------------------------ */

#ifdef FTCOLL_HAVE_ULFM
/* Whether this process already knows a rank of `comm` dead. */
static bool knows_a_death(MPI_Comm comm)
{
    MPI_Group failed = MPI_GROUP_NULL;
    int count = 0;
    if (MPIX_Comm_get_failed(comm, &failed) != MPI_SUCCESS)
        return true;   /* cannot tell: the epoch's first wait finds out */
    MPI_Group_size(failed, &count);
    if (failed != MPI_GROUP_EMPTY)   /* predefined: handed out when nobody failed */
        MPI_Group_free(&failed);
    return count > 0;
}
#endif

/* The sentinel's own answer to a death: a wildcard receive that stays
 * pending (every other error completes a request, and only the sentinel
 * is a wildcard one). */
static bool sentinel_failed_pending(int rc)
{
#ifdef FTCOLL_HAVE_ULFM
    int error_class = rc;
    if (rc == MPI_SUCCESS || MPI_Error_class(rc, &error_class) != MPI_SUCCESS)
        return false;
    return error_class == MPIX_ERR_PROC_FAILED_PENDING;
#else
    (void)rc;
    return false;
#endif
}

/* Every death this process knows of is acknowledged on the twin: a
 * wildcard receive posted there after this fails only at a later one. */
static void acknowledge_deaths(ftc_ft *ft)
{
#ifdef FTCOLL_HAVE_ULFM
    int acknowledged = 0;
    if (ft->watch != MPI_COMM_NULL)
        MPIX_Comm_ack_failed(ft->watch, ft->size, &acknowledged);
#else
    (void)ft;
#endif
}

/*
 * ULFM fails a wildcard receive when it learns of a death in the
 * receive's group that is not acknowledged there. A death acknowledged
 * when the epoch began (a rank that died during the shrink, after the
 * shrink's agreement counted it alive, is a member of the new epoch) is
 * no such event: the sentinel could wait forever. So the sentinel is
 * posted first, then this process is asked what it already knows of the
 * epoch's members: a death learned of before the question is in the
 * answer, one learned of after it fires the sentinel. ULFM refuses the
 * receive while a death is unacknowledged: a member's ends the epoch
 * before it began (every wait says so); one of a rank outside the epoch,
 * learned of since the acknowledgement, is acknowledged and the receive
 * posted again.
 */
enum { SENTINEL_ATTEMPTS = 100 };

static void post_sentinel(ftc_ft *ft)
{
    ft->failure_known = false;
#ifdef FTCOLL_HAVE_ULFM
    static char nothing;
    if (ft->watch == MPI_COMM_NULL)
        return;
    for (int attempt = 0; attempt < SENTINEL_ATTEMPTS; attempt++) {
        const int rc = ftc_p2p_irecv(&nothing, 0, MPI_BYTE, MPI_ANY_SOURCE, FTC_TAG_SENTINEL,
                                     ft->watch, &ft->sentinel);
        if (rc != MPI_SUCCESS)
            ft->sentinel = MPI_REQUEST_NULL;
        ft->failure_known = knows_a_death(ft->comm);
        if (rc == MPI_SUCCESS || ft->failure_known)
            return;
        acknowledge_deaths(ft);
    }
    ft->failure_known = true;   /* refused every time: no wait could learn of a death */
#endif
}

/* A sentinel that fired stays pending until the failure is acknowledged
 * on its communicator; acknowledged, it is an ordinary wildcard receive
 * again and cancels at once. Should the cancel not complete, the request
 * is released (ftc_p2p_retract): nothing is ever sent on the twin. */
static void retire_sentinel(ftc_ft *ft)
{
    acknowledge_deaths(ft);
    ftc_p2p_retract(&ft->sentinel);
}

/*
 * The sentinel answered: this process learned of a death in the twin's
 * group (every rank of the communicator) that it had not acknowledged.
 * Only a death of a rank of the epoch ends the epoch: then the sentinel
 * is left as it is, failing every wait of the epoch. A rank that the last
 * meeting left out can be learned of here after that meeting began: the
 * shrink's agreement counts a rank dead on any survivor's knowledge, and
 * this process may learn it later. Stopping for that rank would take this
 * process alone to a meeting while the others wait for its messages. So
 * then the sentinel is retired and posted again as at an epoch's start,
 * and the answer is whether a rank of the epoch is known dead by then.
 * This holds with one thread in MPI's progress at a time: Open MPI marks
 * a death on every communicator before it adds the rank to the failed
 * group that MPIX_Comm_get_failed reads, and another thread's progress
 * between the two could have this acknowledgement erase the mark.
 */
static bool sentinel_answered(ftc_ft *ft)
{
#ifdef FTCOLL_HAVE_ULFM
    if (knows_a_death(ft->comm))
        return true;
#endif
    retire_sentinel(ft);
    post_sentinel(ft);
    return ft->failure_known;
}

bool ftc_ft_failure_known(const ftc_ft *ft) { return ft->failure_known; }

bool ftc_ft_failure_noticed(ftc_ft *ft)
{
    if (ft->failure_known || ft->sentinel == MPI_REQUEST_NULL)
        return ft->failure_known;
    int done = 0;
    const int rc = MPI_Test(&ft->sentinel, &done, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && !done)
        return false;
    ft->failure_known = !sentinel_failed_pending(rc) || sentinel_answered(ft);
    return ft->failure_known;
}

static bool stop_for_failure(void *ft) { return ftc_ft_failure_noticed(ft); }

const ftc_exec_watch *ftc_ft_exec_watch(ftc_ft *ft)
{
    return ft->sentinel == MPI_REQUEST_NULL ? NULL : &ft->exec_watch;
}

void ftc_ft_note_failure(ftc_ft *ft) { ft->failure_known = true; }

/* ---- epochs -------------------------------------------------------------------- */

static int retire(ftc_ft *ft, MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL || comm == ft->base)
        return MPI_SUCCESS;
    if (ft->nretired == ft->retired_capacity) {
        const int capacity = ft->retired_capacity ? 2 * ft->retired_capacity : 8;
        MPI_Comm *grown = realloc(ft->retired, sizeof(MPI_Comm) * (size_t)capacity);
        if (!grown) {
            PMPI_Comm_free(&comm);   /* better freed early than kept without a place */
            return ftc_fail(MPI_ERR_NO_MEM, "ftcoll: out of memory");
        }
        ft->retired = grown;
        ft->retired_capacity = capacity;
    }
    ft->retired[ft->nretired++] = comm;
    return MPI_SUCCESS;
}

static void update_live(ftc_ft *ft)
{
    ft->nlive = 0;
    ftc_holdings_clear(&ft->live_held);
    for (int r = 0; r < ft->size; r++) {
        ft->alive[r] = ft->epoch_rank[r] >= 0;
        if (!ft->alive[r])
            continue;
        if (r == ft->rank)
            ft->live_index = ft->nlive;
        ft->live[ft->nlive++] = r;
        ftc_holdings_add(&ft->live_held, r);
    }
}

static int map_ranks(ftc_ft *ft, MPI_Comm comm)
{
    MPI_Group base = MPI_GROUP_NULL, epoch = MPI_GROUP_NULL;
    int *all = malloc(sizeof(int) * (size_t)ft->size);
    int rc = all ? MPI_Comm_group(ft->base, &base) : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_group(comm, &epoch);
    for (int r = 0; rc == MPI_SUCCESS && r < ft->size; r++)
        all[r] = r;
    if (rc == MPI_SUCCESS)
        rc = MPI_Group_translate_ranks(base, ft->size, all, epoch, ft->epoch_rank);
    for (int r = 0; rc == MPI_SUCCESS && r < ft->size; r++)
        if (ft->epoch_rank[r] == MPI_UNDEFINED)
            ft->epoch_rank[r] = -1;
    if (base != MPI_GROUP_NULL)
        MPI_Group_free(&base);
    if (epoch != MPI_GROUP_NULL)
        MPI_Group_free(&epoch);
    free(all);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : ftc_fail_mpi(rc, "ftcoll: mapping the survivors");
}

int ftc_ft_install_epoch(ftc_ft *ft, MPI_Comm comm)
{
    retire_sentinel(ft);
    int rc = retire(ft, ft->comm);
    ft->comm = comm;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    const int map_rc = map_ranks(ft, comm);
    rc = rc != MPI_SUCCESS ? rc : map_rc;
    update_live(ft);
    post_sentinel(ft);
    return rc;
}

MPI_Comm ftc_ft_epoch_comm(const ftc_ft *ft) { return ft->comm; }
int ftc_ft_epoch_rank(const ftc_ft *ft, int rank) { return ft->epoch_rank[rank]; }
long ftc_ft_epoch(const ftc_ft *ft) { return ft->epoch; }

int ftc_ft_call_tag(const ftc_ft *ft, long number)
{
    /* a window of a power of two calls (the default, and the torture's)
     * needs no 64-bit division, tens of cycles on every call */
    const long window = ft->tag_window;
    const long offset = (window & (window - 1)) == 0 ? number & (window - 1) : number % window;
    return FTC_TAG_ALLREDUCE_BASE + (int)offset;
}

/* ---- life -------------------------------------------------------------------------- */

static int make_twin(MPI_Comm comm, MPI_Comm *watch)
{
    *watch = MPI_COMM_NULL;
#ifdef FTCOLL_HAVE_ULFM
    const int rc = PMPI_Comm_dup(comm, watch);
    if (rc != MPI_SUCCESS) {
        *watch = MPI_COMM_NULL;
        return ftc_fail_mpi(rc, "ftc_comm_create: duplicating the communicator failed");
    }
    MPI_Comm_set_errhandler(*watch, MPI_ERRORS_RETURN);
#else
    (void)comm;
#endif
    return MPI_SUCCESS;
}

/* Epoch 0: the ftcoll communicator itself and its twin (a collective dup,
 * made first: a rank out of memory must not leave the others in it). */
static int ft_create(ftc_comm_t comm)
{
    MPI_Comm watch = MPI_COMM_NULL;
    int rc = make_twin(comm->comm, &watch);
    ftc_ft *ft = calloc(1, sizeof(*ft));
    if (!ft) {
        if (watch != MPI_COMM_NULL)
            PMPI_Comm_free(&watch);
        return ftc_fail(MPI_ERR_NO_MEM, "ftc_comm_create: out of memory");
    }
    comm->ft = ft;
    *ft = (ftc_ft){ .rank = comm->rank, .size = comm->size, .base = comm->comm,
                    .tag_window = FTC_FT_TAG_WINDOW, .comm = MPI_COMM_NULL, .watch = watch,
                    .sentinel = MPI_REQUEST_NULL };
    ft->exec_watch = (ftc_exec_watch){ .stop = stop_for_failure, .context = ft };
    ft->alive = malloc(sizeof(bool) * (size_t)ft->size);
    ft->live = malloc(sizeof(int) * (size_t)ft->size);
    ft->epoch_rank = malloc(sizeof(int) * (size_t)ft->size);
    bool ok = ft->alive && ft->live && ft->epoch_rank;
    ok = ftc_holdings_init(&ft->live_held, ft->size) && ok;
    for (int i = 0; i < FTC_FT_WINDOW; i++)
        ok = ftc_holdings_init(&ft->kept_held[i], ft->size) && ok;
    if (rc == MPI_SUCCESS && !ok)
        rc = ftc_fail(MPI_ERR_NO_MEM, "ftc_comm_create: out of memory");
    if (rc == MPI_SUCCESS)
        rc = ftc_ft_install_epoch(ft, comm->comm);
    return rc;
}

static int ft_read_settings(ftc_comm_t comm)
{
    return read_tag_window(&comm->ft->tag_window);
}

/* The tag window shapes every call's tags. */
static int ft_agreed(ftc_comm_t comm, ftc_equal_value *values)
{
    values[0] = (ftc_equal_value){ "FTCOLL_TAG_WINDOW", comm->ft->tag_window, NULL };
    return 1;
}

static void ft_release(ftc_comm_t comm)
{
    ftc_ft *ft = comm->ft;
    if (!ft)
        return;
    retire_sentinel(ft);
    retire(ft, ft->comm);
    retire(ft, ft->watch);
    for (int i = 0; i < ft->nretired; i++)
        PMPI_Comm_free(&ft->retired[i]);
    free(ft->retired);
    free(ft->alive);
    free(ft->live);
    free(ft->epoch_rank);
    ftc_holdings_destroy(&ft->live_held);
    for (int i = 0; i < FTC_FT_WINDOW; i++)
        ftc_holdings_destroy(&ft->kept_held[i]);
    free(ft);
    comm->ft = NULL;
}

const ftc_module ftc_ft_module = {
    .name = "ft",
    .create = ft_create,
    .read_settings = ft_read_settings,
    .agreed = ft_agreed,
    .quiesce = ftc_ft_leave,   /* a rank may still be finishing a call with this one's result */
    .release = ft_release,
};

void ftc_ft_set_round(ftc_ft *ft, ftc_ft_round round) { ft->round = round; }

/* ---- who is alive --------------------------------------------------------------------- */

int ftc_ft_live_count(const ftc_ft *ft) { return ft->nlive; }
const int *ftc_ft_live_ranks(const ftc_ft *ft) { return ft->live; }
int ftc_ft_live_index(const ftc_ft *ft) { return ft->live_index; }
const ftc_holdings *ftc_ft_live_set(const ftc_ft *ft) { return &ft->live_held; }
bool ftc_ft_is_alive(const ftc_ft *ft, int rank) { return ft->alive[rank]; }

/* ---- calls ------------------------------------------------------------------------------- */

void ftc_ft_begin_op(ftc_ft *ft) { ft->ops++; }

long ftc_ft_begin_call(ftc_ft *ft)
{
    ftc_ft_begin_op(ft);
    return ++ft->calls;
}

void ftc_ft_skip_call(ftc_ft *ft)
{
    (void)ftc_ft_begin_call(ft);   /* no result kept: the window starts afresh after it */
}

bool ftc_ft_keeps_results(const ftc_ft *ft)
{
#ifdef FTCOLL_HAVE_ULFM
    return ft->nlive > 2;
#else
    (void)ft;
    return false;   /* no rank outlives a partner: nobody is ever late */
#endif
}

void ftc_ft_end_call(ftc_ft *ft, long number, const ftc_holdings *held, bool everyone_entered)
{
    if (!ftc_ft_keeps_results(ft)) {
        ftc_ft_drop_kept(ft);
        return;
    }
    /* a call every rank entered ends every older call everywhere: nobody
     * can be late in one; so does anything the window cannot hold (the
     * collectives make that impossible, and a meeting that wanted a
     * dropped result fails alike everywhere, never serves stale data) */
    const bool starts = everyone_entered || ft->kept_first == 0 || number != ft->kept_last + 1 ||
                        number - ft->kept_first >= FTC_FT_WINDOW;
    if (starts)
        ft->kept_first = number;
    ft->kept_last = number;
    if (held)
        ftc_holdings_copy(&ft->kept_held[number % FTC_FT_WINDOW], held);
    else
        ftc_holdings_clear(&ft->kept_held[number % FTC_FT_WINDOW]);
}

void ftc_ft_drop_kept(ftc_ft *ft)
{
    ft->kept_first = ft->kept_last = 0;
}

bool ftc_ft_window_keeps(const ftc_ft *ft, long number)
{
    return ftc_ft_window_holds(ft->kept_first, ft->kept_last, number);
}

bool ftc_ft_window_starts_at(const ftc_ft *ft, long number)
{
    return ft->kept_first > 0 && number == ft->kept_first;
}

bool ftc_ft_owes_meeting(const ftc_ft *ft) { return ft->owes_meeting; }

/* ---- waiting ------------------------------------------------------------------------------- */

int ftc_ft_failed_class(void)
{
#ifdef FTCOLL_HAVE_ULFM
    return MPIX_ERR_PROC_FAILED;
#else
    return MPI_ERR_OTHER;
#endif
}

bool ftc_ft_is_process_failure(int rc)
{
    return ftc_p2p_is_process_failure(rc);
}

int ftc_ft_agree_step(MPI_Comm comm, MPI_Comm step_comm, int rc, const char *who,
                      const char *step)
{
    int flag = rc == MPI_SUCCESS;
#ifdef FTCOLL_HAVE_ULFM
    /* a death seen here may have cut the step short while others wait in
     * its collectives for this rank: they leave them. (Not on an error of
     * this rank's own, which the steps' collectives still complete, and
     * which the others' return codes would lose to the revocation.) */
    if (ftc_ft_is_process_failure(rc) && step_comm != MPI_COMM_NULL)
        MPIX_Comm_revoke(step_comm);
    const char *agreement = "MPIX_Comm_agree";
    const int agree_rc = MPIX_Comm_agree(comm, &flag);
    if (ftc_ft_is_process_failure(agree_rc))
        return ftc_fail(MPIX_ERR_PROC_FAILED, "%s: a rank died while %s", who, step);
#else
    /* one rank's own error (no memory) must still stop every rank */
    (void)step_comm;
    const char *agreement = "MPI_Allreduce";
    const int agree_rc = PMPI_Allreduce(MPI_IN_PLACE, &flag, 1, MPI_INT, MPI_LAND, comm);
#endif
    if (rc != MPI_SUCCESS)
        return rc;
    if (agree_rc != MPI_SUCCESS)
        return ftc_fail_mpi(agree_rc, "%s: %s failed while %s", who, agreement, step);
    return flag ? MPI_SUCCESS
                : ftc_fail(MPI_ERR_OTHER, "%s: another rank failed while %s", who, step);
}

int ftc_ft_settle_agreed_step(MPI_Comm comm, MPI_Comm step_comm, int rc, const char *who,
                              const char *step)
{
#ifdef FTCOLL_HAVE_ULFM
    return ftc_ft_agree_step(comm, step_comm, rc, who, step);
#else
    (void)comm, (void)step_comm, (void)who, (void)step;
    return rc;
#endif
}

/*
 * What a stopped wait leaves in flight: a receive is cancelled (it must
 * not write into the buffer later); a send is released. Its buffer stays
 * untouched until the survivors have met, and by then every receive of
 * this epoch has completed or been cancelled, and no rank posts another
 * on it: nobody can read the buffer after it changes.
 */
void ftc_ft_abandon(MPI_Request *requests, const int *expected, int n)
{
    for (int i = 0; i < n; i++)
        ftc_p2p_abandon(&requests[i], expected && expected[i] >= 0);
}

static int check_size(const MPI_Status *status, int expected)
{
    int got = 0;
    MPI_Get_count(status, MPI_BYTE, &got);
    return got == expected ? MPI_SUCCESS : MPI_ERR_TRUNCATE;
}

/* The end of a wait that found an error: what is left in flight stopped. */
static int stopped_wait(MPI_Request *requests, const int *expected, int n, int rc)
{
    ftc_ft_abandon(requests, expected, n);
    return ftc_ft_is_process_failure(rc) ? FTC_DETECTED : rc;
}

/*
 * Transfers that are complete already (a message that arrived before its
 * receive, sends the shared memory took inline) are the common case of
 * back-to-back calls, and need no watch: the loop's MPI_Testany would
 * return them before looking at the sentinel anyway. One MPI_Test each
 * answers them for less. 1: every one done, or one failed (*rc says how);
 * 0: some still pending (those done are MPI_REQUEST_NULL now).
 */
static int completed_at_once(MPI_Request *requests, const int *expected, int n, int *rc)
{
    for (int i = 0; i < n; i++) {
        if (requests[i] == MPI_REQUEST_NULL)
            continue;
        int done = 0;
        MPI_Status status;
        *rc = MPI_Test(&requests[i], &done, &status);
        if (*rc != MPI_SUCCESS)
            return 1;
        if (!done)
            return 0;
        if (expected && expected[i] >= 0)
            *rc = check_size(&status, expected[i]);
        if (*rc != MPI_SUCCESS)
            return 1;
    }
    return 1;
}

int ftc_ft_wait(ftc_ft *ft, MPI_Request *requests, const int *expected, int n)
{
    if (ft->failure_known) {
        ftc_ft_abandon(requests, expected, n);
        return FTC_DETECTED;
    }
    int first = MPI_SUCCESS;
    if (completed_at_once(requests, expected, n, &first))
        return first == MPI_SUCCESS ? MPI_SUCCESS : stopped_wait(requests, expected, n, first);
    MPI_Request all[FTC_FT_MAX_WAIT + 1];
    int pending = 0;
    for (int i = 0; i < n; i++) {
        all[i] = requests[i];
        pending += requests[i] != MPI_REQUEST_NULL;
    }
    all[n] = ft->sentinel;
    int rc = MPI_SUCCESS;
    while (pending > 0 && rc == MPI_SUCCESS) {
        int index = MPI_UNDEFINED;
        MPI_Status status;
        rc = ftc_p2p_waitany(n + 1, all, &index, &status);   /* never MPI_Waitany: p2p.h */
        if (index == n && sentinel_failed_pending(rc)) {   /* a death somewhere */
            ft->sentinel = all[n];
            const bool in_epoch = sentinel_answered(ft);
            all[n] = ft->sentinel;
            if (!in_epoch)
                rc = MPI_SUCCESS;
            continue;
        }
        if (rc == MPI_SUCCESS && index == n)
            rc = MPI_ERR_INTERN;   /* a message on the sentinel's private communicator */
        else if (rc == MPI_SUCCESS && index == MPI_UNDEFINED)
            break;
        else if (rc == MPI_SUCCESS && expected && expected[index] >= 0)
            rc = check_size(&status, expected[index]);
        pending--;
    }
    memcpy(requests, all, sizeof(MPI_Request) * (size_t)n);
    ft->sentinel = all[n];
    return rc == MPI_SUCCESS ? MPI_SUCCESS : stopped_wait(requests, expected, n, rc);
}

int ftc_ft_wait_in_flow(ftc_comm_t comm, MPI_Request *requests, const int *expected, int n,
                        int step, const char *call, const char *doing, int peer)
{
    ftc_watch_progress(&comm->watch, step, doing, peer);
    const int rc = ftc_ft_wait(comm->ft, requests, expected, n);
    if (rc == FTC_DETECTED || ftc_ft_is_process_failure(rc))
        return FTC_DETECTED;
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "%s: %s rank %d failed", call, doing, peer);
    return MPI_SUCCESS;
}

/* ---- empty messages ---------------------------------------------------------------------- */

static const char nothing = 0;   /* their buffer: never written, a receive being empty */

static int post_empty(const ftc_ft_empties *e, bool receive, int index, MPI_Request *r)
{
    const MPI_Comm epoch = ftc_ft_epoch_comm(e->comm->ft);
    return receive ? ftc_p2p_irecv((void *)&nothing, 0, MPI_BYTE, index, e->tag, epoch, r)
                   : ftc_p2p_isend(&nothing, 0, MPI_BYTE, index, e->tag, epoch, r);
}

int ftc_ft_empty_messages(const ftc_ft_empties *e, bool receive, int count,
                          int (*peer)(const void *context, int i), const void *context)
{
    const int *ranks = ftc_ft_live_ranks(e->comm->ft);
    MPI_Request r[FTC_FT_MAX_WAIT];
    int expected[FTC_FT_MAX_WAIT];
    int rc = MPI_SUCCESS, posted = 0, first_peer = -1;
    for (int i = 0; rc == MPI_SUCCESS && i <= count; i++) {
        const int index = i < count ? peer(context, i) : -1;
        if (index >= 0) {
            first_peer = posted == 0 ? ranks[index] : first_peer;
            expected[posted] = receive ? 0 : -1;
            rc = post_empty(e, receive, index, &r[posted]);
            if (rc != MPI_SUCCESS) {
                ftc_ft_abandon(r, expected, posted);
                return ftc_fail_mpi(rc, "%s: %s rank %d failed", e->call, e->doing,
                                    ranks[index]);
            }
            posted++;
        }
        if (posted > 0 && (posted == FTC_FT_MAX_WAIT || i == count)) {
            rc = ftc_ft_wait_in_flow(e->comm, r, expected, posted, e->step, e->call, e->doing,
                                     first_peer);
            posted = 0;
        }
    }
    return rc;
}

static int the_index(const void *context, int i)
{
    (void)i;
    return *(const int *)context;
}

int ftc_ft_empty_message(const ftc_ft_empties *e, bool receive, int index)
{
    return ftc_ft_empty_messages(e, receive, 1, the_index, &index);
}

int ftc_ft_dissemination(const ftc_ft_empties *e,
                         void (*first_sent)(const void *context, MPI_Request *send),
                         const void *context)
{
    const int n = ftc_ft_live_count(e->comm->ft), me = ftc_ft_live_index(e->comm->ft);
    const int *ranks = ftc_ft_live_ranks(e->comm->ft);
    for (int d = 1; d < n; d *= 2) {
        const int from = (me - d + n) % n, to = (me + d) % n;
        MPI_Request r[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
        const int expected[2] = { 0, -1 };
        int rc = post_empty(e, true, from, &r[0]);
        if (rc == MPI_SUCCESS)
            rc = post_empty(e, false, to, &r[1]);
        if (rc != MPI_SUCCESS) {
            ftc_ft_abandon(r, expected, 2);
            return ftc_fail_mpi(rc, "%s: %s rank %d failed", e->call, e->doing, ranks[from]);
        }
        if (d == 1 && first_sent)
            first_sent(context, &r[1]);
        rc = ftc_ft_wait_in_flow(e->comm, r, expected, 2, e->step, e->call, e->doing,
                                 ranks[from]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* ---- without ULFM, no rank outlives a partner: nobody to meet ------------------------------ */

#ifndef FTCOLL_HAVE_ULFM
int ftc_ft_meet(ftc_comm_t comm, ftc_ft_place place, const ftc_holdings *held, void *call,
                ftc_ft_decision *decision)
{
    (void)comm, (void)place, (void)held, (void)call, (void)decision;
    return ftc_fail(MPI_ERR_INTERN, "ftcoll: a failure was detected without ULFM");
}

int ftc_ft_settle(ftc_comm_t comm, bool leaving, const char *who)
{
    (void)comm, (void)leaving, (void)who;
    return MPI_SUCCESS;
}

int ftc_ft_leave(ftc_comm_t comm)
{
    ftc_ft_begin_op(comm->ft);
    return MPI_SUCCESS;
}

int ftc_ft_release_context_ids(MPI_Comm parent)
{
    (void)parent;
    return MPI_SUCCESS;
}

int ftc_ft_survivors(ftc_comm_t comm, MPI_Comm *survivors)
{
    ftc_ft_begin_op(comm->ft);
    const int rc = PMPI_Comm_dup(comm->comm, survivors);
    return rc == MPI_SUCCESS ? MPI_SUCCESS
                             : ftc_fail_mpi(rc, "ftc_comm_survivors: MPI_Comm_dup failed");
}
#endif
