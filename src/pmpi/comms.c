/*
 * The layer's communicators: for each communicator the program runs a
 * collective on, a layer_comm with its ftcoll communicator, found through
 * an MPI attribute (MPI_COMM_WORLD's is kept aside, for speed).
 *
 *   MPI_Comm_dup, _split, ... -> ftc_comm_create(comm)   (constructors.c, ULFM)
 *   first collective on comm  -> ftc_comm_create(comm)   (one the layer did not
 *                                                        see made: MPI_Comm_idup,
 *                                                        a library's PMPI_ call)
 *   a failure                 -> nothing: ftcoll goes on over the survivors
 *   MPI_Comm_free(comm)       -> ftc_comm_free, then MPI's free
 *   MPI_Finalize              -> the rest, newest first, the world last
 *
 * A communicator freed some other way (MPI_Comm_disconnect, a library's
 * PMPI_Comm_free) still loses its ftcoll state: the attribute's delete
 * callback releases it.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layer.h"

static int keyval = MPI_KEYVAL_INVALID;
static layer_comm *all;                  /* every layer_comm but the world's */
static pthread_mutex_t all_lock = PTHREAD_MUTEX_INITIALIZER;

static void unlink_comm(layer_comm *lc)
{
    pthread_mutex_lock(&all_lock);
    for (layer_comm **at = &all; *at; at = &(*at)->next) {
        if (*at == lc) {
            *at = lc->next;
            break;
        }
    }
    pthread_mutex_unlock(&all_lock);
}

/* Adds the guard's and the broadcast trees' counts of lc->ftc, about to be
 * freed, to lc's. */
static void collect_stats(layer_comm *lc)
{
    ftc_guard_stats guard;
    if (ftc_guard_get_stats(lc->ftc, &guard) == MPI_SUCCESS) {
        lc->stats.checkins += guard.checks;
        lc->stats.warnings += guard.warnings;
        lc->stats.stops += guard.stopped;
    }
    ftc_bcast_stats trees;
    if (ftc_bcast_get_stats(lc->ftc, &trees) == MPI_SUCCESS && trees.calls > 0) {
        lc->stats.tree_calls += trees.calls;
        lc->stats.tree_rounds += trees.rounds;
        lc->stats.tree_changes += trees.changes;
        memcpy(lc->stats.tree_last, trees.last_tree, sizeof lc->stats.tree_last);
    }
}

/* Frees what ftcoll holds for `lc`: collectively when `collective`, else
 * locally (no message; a rank finishing a call late may then be stuck). */
static void release(layer_comm *lc, bool collective)
{
    if (lc->ftc) {
        layer_depth++;
        collect_stats(lc);
        if (collective)
            ftc_comm_free(&lc->ftc);
        else
            ftc_comm_release_local(&lc->ftc);
        layer_depth--;
    }
    layer_summary_add(&lc->stats);
    free(lc);
}

static int delete_attribute(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm, (void)key, (void)extra;
    layer_comm *lc = value;
    if (lc->detaching)
        return MPI_SUCCESS;
    unlink_comm(lc);
    release(lc, false);
    return MPI_SUCCESS;
}

/*
 * The layer_comm of `comm` (NULL: out of memory) and, in *rc, what making
 * its ftcoll communicator returned: when that fails, lc->ftc stays NULL and
 * every collective on `comm` goes to MPI. Injections (FTCOLL_INJECT) count
 * calls on MPI_COMM_WORLD only.
 */
static layer_comm *make(MPI_Comm comm, int *rc)
{
    layer_comm *lc = calloc(1, sizeof(*lc));
    *rc = lc ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (!lc)
        return NULL;
    lc->user = comm;
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (!inter) {
        layer_depth++;
        *rc = ftc_comm_create(comm, &lc->ftc);
        if (*rc == MPI_SUCCESS && comm != MPI_COMM_WORLD)
            ftc_inject(lc->ftc, NULL);
        layer_depth--;
    }
    return lc;
}

int layer_comms_start(void)
{
    int rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_attribute, &keyval, NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    layer.world = make(MPI_COMM_WORLD, &rc);
    return rc;
}

/* Makes comm's layer_comm and attaches it (NULL: out of memory, or the
 * attribute failed); *rc: what making its ftcoll communicator returned. */
static layer_comm *attach(MPI_Comm comm, int *rc)
{
    layer_comm *lc = make(comm, rc);
    if (!lc)
        return NULL;
    if (PMPI_Comm_set_attr(comm, keyval, lc) != MPI_SUCCESS) {
        release(lc, true);
        return NULL;
    }
    pthread_mutex_lock(&all_lock);
    lc->next = all;
    all = lc;
    pthread_mutex_unlock(&all_lock);
    return lc;
}

layer_comm *layer_comm_of(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD)
        return layer.world;
    if (comm == MPI_COMM_NULL)
        return NULL;
    void *value = NULL;
    int found = 0;
    if (PMPI_Comm_get_attr(comm, keyval, &value, &found) != MPI_SUCCESS)
        return NULL;   /* not a valid communicator: MPI's call will say so */
    if (found)
        return value;
    int rc;
    return attach(comm, &rc);
}

/*
 * A communicator the program just made gets its ftcoll communicator now,
 * while every rank is there: one whose first collective comes after a death
 * could not be made then (MPI_Comm_dup fails over a dead rank). Failing,
 * it is freed, on every rank alike (ftc_comm_create ends in an agreement),
 * and *comm is MPI_COMM_NULL.
 */
int layer_comm_made(MPI_Comm *comm)
{
    if (*comm == MPI_COMM_NULL)
        return MPI_SUCCESS;   /* this rank is not in it */
    int rc = MPI_SUCCESS;   /* an intercommunicator's layer_comm has no ftcoll one: make() */
    layer_comm *lc = attach(*comm, &rc);
    if (!lc && rc == MPI_SUCCESS)
        rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS)
        PMPI_Comm_free(comm);   /* its attribute's callback releases the layer_comm */
    return rc;
}

/* Drops the attribute without its callback's local free. */
static void detach(layer_comm *lc)
{
    lc->detaching = true;
    PMPI_Comm_delete_attr(lc->user, keyval);
}

void layer_comm_free(MPI_Comm comm)
{
    void *value = NULL;
    int found = 0;
    if (comm == MPI_COMM_NULL || comm == MPI_COMM_WORLD || keyval == MPI_KEYVAL_INVALID
        || PMPI_Comm_get_attr(comm, keyval, &value, &found) != MPI_SUCCESS || !found)
        return;
    layer_comm *lc = value;
    unlink_comm(lc);
    detach(lc);
    release(lc, true);   /* with every rank: they all free the communicator */
}

void layer_comms_finish(void)
{
    /* Newest first: every rank made its communicators in the order of their
     * first collectives, which correct programs run in the same order. */
    for (;;) {
        pthread_mutex_lock(&all_lock);
        layer_comm *lc = all;
        if (lc)
            all = lc->next;
        pthread_mutex_unlock(&all_lock);
        if (!lc)
            break;
        detach(lc);
        release(lc, true);
    }
    if (layer.world) {
        release(layer.world, true);
        layer.world = NULL;
    }
    if (keyval != MPI_KEYVAL_INVALID)
        PMPI_Comm_free_keyval(&keyval);
}

/* ---- failures ---------------------------------------------------------- */

/* Records ranks of `comm` found dead, as ranks of MPI_COMM_WORLD. */
void layer_note_failed(MPI_Comm comm, const int *ranks, int count)
{
    if (count <= 0)
        return;
    int *world = malloc(sizeof(int) * (size_t)count);
    MPI_Group group, world_group;
    if (!world || PMPI_Comm_group(comm, &group) != MPI_SUCCESS) {
        free(world);
        return;
    }
    PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
    if (PMPI_Group_translate_ranks(group, count, ranks, world_group, world) == MPI_SUCCESS) {
        for (int i = 0; i < count; i++)
            if (world[i] != MPI_UNDEFINED)
                layer_summary_failed_world_rank(world[i]);
    }
    PMPI_Group_free(&group);
    PMPI_Group_free(&world_group);
    free(world);
}

void layer_note_ft_call(layer_comm *lc)
{
    const long recovered = ftc_comm_recovered_calls(lc->ftc);
    if (recovered == lc->recovered_calls)
        return;   /* nothing failed in this call: its report has nothing to add */
    lc->recovered_calls = recovered;
    ftc_allreduce_report report;
    if (ftc_allreduce_last_report(lc->ftc, &report, NULL, NULL) != MPI_SUCCESS)
        return;
    lc->stats.recovery_rounds += report.recovery_rounds;
    if (report.failed_in_call == 0)
        return;
    const int size = ftc_comm_size(lc->ftc);
    int *failed = malloc(sizeof(int) * (size_t)size);
    int *dead = malloc(sizeof(int) * (size_t)size);
    if (!failed || !dead
        || ftc_allreduce_last_report(lc->ftc, &report, NULL, dead) != MPI_SUCCESS) {
        free(failed);
        free(dead);
        return;
    }
    int count = 0;
    for (int r = 0; r < size; r++)
        if (dead[r])
            failed[count++] = r;
    free(dead);
    layer_note_failed(lc->user, failed, count);
    free(failed);
}
