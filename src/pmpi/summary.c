/*
 * What the layer did in this process, written at exit to
 * $FTCOLL_REPORT/rank-<world rank>.txt as key=value lines, for ftcrun's
 * summary: a process killed by a failure writes nothing, which is how
 * ftcrun tells the dead from the finished. At the start, started-<world
 * rank>.txt says where the process runs (rank, host, pid): ftcrun's watch
 * of the launcher counts a rank whose process is gone as done, report or
 * not (a launcher that kills the ranks left after one exits non-zero,
 * then hangs, must not hang ftcrun too).
 */
#define _DEFAULT_SOURCE   /* on_exit, gethostname */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "layer.h"

static layer_stats total;
static atomic_long forwarded[LAYER_KINDS];   /* counted per call: no lock on that path */
static unsigned char *failed;        /* per world rank: seen dead here */
static bool finalized;
static char report_path[4096];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void layer_summary_add(const layer_stats *s)
{
    pthread_mutex_lock(&lock);
    for (int k = 0; k < LAYER_KINDS; k++)
        total.routed[k] += s->routed[k];
    for (int a = 0; a < FTC_ALLGATHER_ALGORITHM_COUNT; a++)
        total.allgather_runs[a] += s->allgather_runs[a];
    for (int a = 0; a < FTC_ALLGATHERV_ALGORITHM_COUNT; a++)
        total.allgatherv_runs[a] += s->allgatherv_runs[a];
    for (int a = 0; a < FTC_GATHER_ALGORITHM_COUNT; a++)
        total.gather_runs[a] += s->gather_runs[a];
    for (int a = 0; a < FTC_SCATTER_ALGORITHM_COUNT; a++)
        total.scatter_runs[a] += s->scatter_runs[a];
    for (int a = 0; a < FTC_ALLTOALL_ALGORITHM_COUNT; a++)
        total.alltoall_runs[a] += s->alltoall_runs[a];
    for (int a = 0; a < FTC_REDUCE_SCATTER_ALGORITHM_COUNT; a++)
        total.reduce_scatter_runs[a] += s->reduce_scatter_runs[a];
    total.recovery_rounds += s->recovery_rounds;
    total.checkins += s->checkins;
    total.stops += s->stops;
    total.warnings += s->warnings;
    total.tree_calls += s->tree_calls;
    total.tree_rounds += s->tree_rounds;
    total.tree_changes += s->tree_changes;
    if (s->tree_calls)
        memcpy(total.tree_last, s->tree_last, sizeof total.tree_last);
    pthread_mutex_unlock(&lock);
}

void layer_summary_forwarded(layer_kind kind)
{
    atomic_fetch_add_explicit(&forwarded[kind], 1, memory_order_relaxed);
}

void layer_summary_failed_world_rank(int rank)
{
    if (failed && rank >= 0 && rank < layer.world_size)
        failed[rank] = 1;
}

void layer_summary_finalized(void)
{
    finalized = true;
}

bool layer_summary_saw_failure(void)
{
    for (int r = 0; failed && r < layer.world_size; r++)
        if (failed[r])
            return true;
    return false;
}

/* Where this process runs: its rank, host and pid, one key=value line each. */
static void write_whereabouts(FILE *f)
{
    char host[256] = "";
    gethostname(host, sizeof(host) - 1);
    fprintf(f, "rank=%d\nhost=%s\npid=%ld\n", layer.world_rank, host, (long)getpid());
}

void layer_summary_write(int status)
{
    if (!report_path[0])
        return;
    FILE *f = fopen(report_path, "w");
    if (!f)
        return;
    write_whereabouts(f);
    fprintf(f, "exit=%d\nfinalized=%d\n", status, finalized ? 1 : 0);
    for (int k = 0; k < LAYER_KINDS; k++)
        fprintf(f, "routed.%s=%ld\nforwarded.%s=%ld\n", layer_kind_name(k), total.routed[k],
                layer_kind_name(k), atomic_load(&forwarded[k]));
    for (int a = 0; a < FTC_ALLGATHER_ALGORITHM_COUNT; a++)
        if (total.allgather_runs[a])
            fprintf(f, "allgather.%s=%ld\n",
                    ftc_allgather_algorithm_name((ftc_allgather_algorithm)a),
                    total.allgather_runs[a]);
    for (int a = 0; a < FTC_ALLGATHERV_ALGORITHM_COUNT; a++)
        if (total.allgatherv_runs[a])
            fprintf(f, "allgatherv.%s=%ld\n",
                    ftc_allgatherv_algorithm_name((ftc_allgatherv_algorithm)a),
                    total.allgatherv_runs[a]);
    for (int a = 0; a < FTC_GATHER_ALGORITHM_COUNT; a++)
        if (total.gather_runs[a])
            fprintf(f, "gather.%s=%ld\n", ftc_gather_algorithm_name((ftc_gather_algorithm)a),
                    total.gather_runs[a]);
    for (int a = 0; a < FTC_SCATTER_ALGORITHM_COUNT; a++)
        if (total.scatter_runs[a])
            fprintf(f, "scatter.%s=%ld\n", ftc_scatter_algorithm_name((ftc_scatter_algorithm)a),
                    total.scatter_runs[a]);
    for (int a = 0; a < FTC_ALLTOALL_ALGORITHM_COUNT; a++)
        if (total.alltoall_runs[a])
            fprintf(f, "alltoall.%s=%ld\n",
                    ftc_alltoall_algorithm_name((ftc_alltoall_algorithm)a),
                    total.alltoall_runs[a]);
    for (int a = 0; a < FTC_REDUCE_SCATTER_ALGORITHM_COUNT; a++)
        if (total.reduce_scatter_runs[a])
            fprintf(f, "reduce_scatter.%s=%ld\n",
                    ftc_reduce_scatter_algorithm_name((ftc_reduce_scatter_algorithm)a),
                    total.reduce_scatter_runs[a]);
    fprintf(f, "recovery_rounds=%ld\ncheckins=%ld\nstops=%ld\nwarnings=%ld\n",
            total.recovery_rounds, total.checkins, total.stops, total.warnings);
    if (total.tree_calls)
        fprintf(f, "tree_calls=%ld\ntree_rounds=%ld\ntree_changes=%ld\ntree_last=%s\n",
                total.tree_calls, total.tree_rounds, total.tree_changes, total.tree_last);
    fputs("failed=", f);
    const char *comma = "";
    for (int r = 0; failed && r < layer.world_size; r++) {
        if (failed[r]) {
            fprintf(f, "%s%d", comma, r);
            comma = ",";
        }
    }
    fputs("\n", f);
    fclose(f);
}

static void write_report(int status, void *arg)
{
    (void)arg;
    layer_summary_write(status);
}

/* started-<rank>.txt: this process's rank, host and pid. */
static void write_started(void)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/started-%d.txt", layer.report_dir, layer.world_rank);
    FILE *f = fopen(path, "w");
    if (!f)
        return;   /* the watch then waits for the report, as without it */
    write_whereabouts(f);
    fclose(f);
}

int layer_summary_start(void)
{
    failed = calloc((size_t)layer.world_size, 1);
    if (!layer.report_dir || !failed)
        return failed ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    write_started();
    snprintf(report_path, sizeof(report_path), "%s/rank-%d.txt", layer.report_dir,
             layer.world_rank);
    /* on_exit, not atexit: the report carries the exit status. */
    return on_exit(write_report, NULL) == 0 ? MPI_SUCCESS : MPI_ERR_OTHER;
}
