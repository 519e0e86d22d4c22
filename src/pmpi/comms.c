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

#include <mpi.h>
#ifdef FTCOLL_HAVE_ULFM
#include <mpi-ext.h>
#endif

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

/* What a rank that could not keep a communicator's layer_comm uses for
 * the call at hand: no ftcoll communicator, so the call goes to MPI, as on
 * every rank then (attach). Never attached, never freed. */
static layer_comm without_memory;

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
    if (lc == &without_memory)
        return;
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

/* Why the last making failed on this thread (layer_comm_made). */
static _Thread_local char failure[400];

/* Whether every rank `kept` (an agreement: uniform also where a rank
 * dies in it), errors returned whatever comm's handler. */
static int everywhere(MPI_Comm comm, bool kept, int *every)
{
    MPI_Errhandler theirs = MPI_ERRHANDLER_NULL;
    PMPI_Comm_get_errhandler(comm, &theirs);
    PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    *every = kept;
#ifdef FTCOLL_HAVE_ULFM
    const int rc = MPIX_Comm_agree(comm, every);
#else
    const int rc = PMPI_Allreduce(MPI_IN_PLACE, every, 1, MPI_INT, MPI_LAND, comm);
#endif
    PMPI_Comm_set_errhandler(comm, theirs);
    PMPI_Errhandler_free(&theirs);
    return rc;
}

/*
 * Makes lc->ftc over `comm` on every rank alike. Every rank takes part in
 * ftc_comm_create, also one that cannot keep what it makes (`kept` false:
 * it had no memory for its layer_comm or its attribute), so that none
 * waits in it for a rank that left; then the ranks agree whether every one
 * kept its state, also after a creation that failed (on every rank). If
 * one did not, every rank frees what it made, returns an error and sets
 * *missing. Injections (FTCOLL_INJECT) count calls on MPI_COMM_WORLD only.
 */
static int make_ftc(layer_comm *lc, MPI_Comm comm, bool kept, bool *missing)
{
    failure[0] = '\0';
    *missing = false;
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        return MPI_SUCCESS;   /* no ftcoll communicator, nothing collective */
    ftc_comm_t ftc = NULL;
    layer_depth++;
    int rc = ftc_comm_create(comm, &ftc);
    if (rc != MPI_SUCCESS)
        snprintf(failure, sizeof(failure), "%s", ftc_error_message());
    int every_one_kept = 0;
    const int agree_rc = everywhere(comm, kept, &every_one_kept);
    *missing = agree_rc == MPI_SUCCESS && !every_one_kept;
    if (rc == MPI_SUCCESS && agree_rc != MPI_SUCCESS) {
        rc = agree_rc;
        snprintf(failure, sizeof(failure), "the ranks could not agree on the layer's state "
                                           "of the communicator (a rank died?)");
    } else if (rc == MPI_SUCCESS && *missing) {
        rc = kept ? MPI_ERR_OTHER : MPI_ERR_NO_MEM;
        snprintf(failure, sizeof(failure), "%s the layer's state of the communicator",
                 kept ? "another rank had no memory for" : "no memory for");
    }
    if (rc != MPI_SUCCESS && ftc)
        ftc_comm_free(&ftc);
    if (rc == MPI_SUCCESS && comm != MPI_COMM_WORLD)
        ftc_inject(ftc, NULL);
    layer_depth--;
    if (lc != &without_memory)   /* which never keeps one: ftc is NULL there */
        lc->ftc = ftc;
    return rc;
}

/* A new layer_comm for `comm`, or `without_memory`. */
static layer_comm *new_layer_comm(MPI_Comm comm)
{
    layer_comm *lc = calloc(1, sizeof(*lc));
    if (!lc)
        return &without_memory;
    lc->user = comm;
    return lc;
}

/* Collective: a rank whose keyval failed still makes the world's, failing
 * it on every rank (MPI_Init then stops every rank). */
int layer_comms_start(void)
{
    const int rc =
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_attribute, &keyval, NULL);
    layer.world = new_layer_comm(MPI_COMM_WORLD);
    bool missing;
    const int made = make_ftc(layer.world, MPI_COMM_WORLD,
                              rc == MPI_SUCCESS && layer.world != &without_memory, &missing);
    return rc != MPI_SUCCESS ? rc : made;
}

/* Drops the attribute without its callback's local free. */
static void detach(layer_comm *lc)
{
    lc->detaching = true;
    PMPI_Comm_delete_attr(lc->user, keyval);
}

/*
 * Makes comm's layer_comm and attaches it; *rc: what making its ftcoll
 * communicator returned. Where a rank could not keep its layer_comm, no
 * rank keeps one: every rank's next collective on `comm` makes it again,
 * together, and this one goes to MPI on every rank (`without_memory`).
 */
static layer_comm *attach(MPI_Comm comm, int *rc)
{
    layer_comm *lc = new_layer_comm(comm);
    const bool attached =
        lc != &without_memory && PMPI_Comm_set_attr(comm, keyval, lc) == MPI_SUCCESS;
    bool missing;
    *rc = make_ftc(lc, comm, attached, &missing);
    if (attached && missing)
        detach(lc);
    if (!attached || missing) {
        release(lc, false);   /* holds no ftcoll communicator */
        return &without_memory;
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
 * it is freed, on every rank alike (make_ftc), and *comm is
 * MPI_COMM_NULL; layer_comm_failure() says why.
 */
int layer_comm_made(MPI_Comm *comm)
{
    if (*comm == MPI_COMM_NULL)
        return MPI_SUCCESS;   /* this rank is not in it */
    int rc = MPI_SUCCESS;
    attach(*comm, &rc);
    if (rc != MPI_SUCCESS)
        PMPI_Comm_free(comm);   /* its attribute's callback releases the layer_comm */
    return rc;
}

const char *layer_comm_failure(void)
{
    return failure;
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
