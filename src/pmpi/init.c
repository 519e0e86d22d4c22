/*
 * MPI_Init, MPI_Init_thread, MPI_Finalize and MPI_Comm_free of the layer,
 * and its own settings:
 *
 *   FTCOLL_NATIVE="bcast,barrier"  collectives left to MPI (default: none;
 *                                  allreduce, reduce, reduce_scatter,
 *                                  reduce_scatter_block, scan, exscan,
 *                                  allgather,
 *                                  allgatherv, gather(v), scatter(v),
 *                                  alltoall(v), bcast, barrier)
 *   FTCOLL_REPORT=DIR              write this process's summary there at exit
 *
 * The FTCOLL_* settings of ftcoll itself (FTCOLL_GUARD, ...) are read when
 * MPI_COMM_WORLD's ftcoll communicator is made, in MPI_Init. A bad setting
 * ends the job in MPI_Init, cleanly, with the reason: a run must not go on
 * without what it asked for.
 */
#define _DEFAULT_SOURCE   /* on_exit, sleep */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "layer.h"

layer_state layer;
_Thread_local int layer_depth;

const char *layer_kind_name(layer_kind kind)
{
    static const char *const names[LAYER_KINDS] = { "allreduce", "allgather", "bcast", "barrier",
                                                    "allgatherv", "gather", "gatherv",
                                                    "scatterv", "scatter", "reduce", "alltoall",
                                                    "alltoallv", "reduce_scatter",
                                                    "reduce_scatter_block", "scan", "exscan" };
    return names[kind];
}

bool layer_parse_native(const char *text, bool native[LAYER_KINDS], char *why, size_t why_size)
{
    for (int k = 0; k < LAYER_KINDS; k++)
        native[k] = false;
    if (!text)
        return true;
    const char *at = text;
    while (*at) {
        const size_t len = strcspn(at, ",");
        int k = 0;
        while (k < LAYER_KINDS
               && !(strlen(layer_kind_name(k)) == len && strncmp(at, layer_kind_name(k), len) == 0))
            k++;
        if (k == LAYER_KINDS) {
            snprintf(why, why_size, "unknown collective \"%.*s\" (expected a comma-separated "
                     "list of allreduce, reduce, reduce_scatter, reduce_scatter_block, "
                     "scan, exscan, allgather, allgatherv, gather, gatherv, scatter, "
                     "scatterv, alltoall, alltoallv, bcast, barrier)", (int)len, at);
            return false;
        }
        native[k] = true;
        at += len + (at[len] == ',');
    }
    return true;
}

/* Stops every rank in MPI_Init with the reason (rank 0, and any rank whose
 * own settings were the bad ones, prints it). */
static void stop_on_bad_settings(const char *message)
{
    if (layer.world_rank == 0 || !strstr(message, "another rank"))
        fprintf(stderr, "ftcoll: rank %d: %s\n", layer.world_rank, message);
    PMPI_Finalize();
    exit(EXIT_FAILURE);
}

static void start(void)
{
    PMPI_Comm_rank(MPI_COMM_WORLD, &layer.world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &layer.world_size);
    char why[256];
    if (!layer_parse_native(getenv("FTCOLL_NATIVE"), layer.native, why, sizeof(why))) {
        char message[300];
        snprintf(message, sizeof(message), "FTCOLL_NATIVE: %s", why);
        stop_on_bad_settings(message);
    }
    const char *dir = getenv("FTCOLL_REPORT");
    layer.report_dir = dir && *dir ? dir : NULL;
    if (layer_comms_start() != MPI_SUCCESS)
        stop_on_bad_settings(layer_comm_failure()[0] ? layer_comm_failure()
                                                     : "cannot set up MPI_COMM_WORLD");
    layer_summary_start();
    layer.active = true;
}

int MPI_Init(int *argc, char ***argv)
{
    const int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        start();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    const int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        start();
    return rc;
}

/*
 * After a process failure, Open MPI 5.0.7's MPI_Finalize now and then waits
 * forever in its final PMIx fence (all survivors in ompi_mpi_finalize). So
 * once this process has seen a rank die, the program's MPI_Finalize only
 * frees ftcoll's state and returns; MPI's own finalize runs at exit, after
 * everything the program does after MPI_Finalize, and a process still in it
 * FINALIZE_WAIT seconds later leaves without it.
 */
enum { FINALIZE_WAIT = 5 };
static bool finalize_deferred;

static void *leave_if_stuck(void *arg)
{
    const int status = (int)(intptr_t)arg;
    sleep(FINALIZE_WAIT);
    fprintf(stderr, "ftcoll: rank %d: MPI_Finalize still waits after %d s (a rank died; Open "
                    "MPI's final fence); leaving without it\n", layer.world_rank, FINALIZE_WAIT);
    layer_summary_write(status);
    _exit(status);
}

static void finalize_at_exit(int status, void *arg)
{
    (void)arg;
    pthread_t timer;
    if (pthread_create(&timer, NULL, leave_if_stuck, (void *)(intptr_t)status) == 0)
        pthread_detach(timer);
    PMPI_Finalize();
}

int MPI_Finalize(void)
{
    if (!layer.active)
        return PMPI_Finalize();
    layer.active = false;
    layer_comms_finish();
    layer_summary_finalized();
    if (layer_summary_saw_failure() && on_exit(finalize_at_exit, NULL) == 0) {
        finalize_deferred = true;
        ftc_finalize_deferred();   /* ftc_finalize_at_exit's handler leaves it to us */
        return MPI_SUCCESS;
    }
    return PMPI_Finalize();
}

int MPI_Finalized(int *flag)
{
    if (finalize_deferred && flag) {
        *flag = 1;
        return MPI_SUCCESS;
    }
    return PMPI_Finalized(flag);
}

int MPI_Comm_free(MPI_Comm *comm)
{
    if (!layer_bypass() && comm)
        layer_comm_free(*comm);
    return PMPI_Comm_free(comm);
}
