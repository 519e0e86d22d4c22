/* The torture programs' side of the driver's bookkeeping (torture_launch.h). */
#define _POSIX_C_SOURCE 200809L /* getpid, mmap */
#include "torture_launch.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mpi.h>

static volatile int64_t *progress_slot;

void torture_write_pid_file(int rank)
{
    const char *prefix = getenv("TORTURE_PIDS");
    if (!prefix || !*prefix)
        return;
    char path[4096], partial[4200];
    snprintf(path, sizeof(path), "%s.%d", prefix, rank);
    snprintf(partial, sizeof(partial), "%s.partial", path);
    FILE *f = fopen(partial, "w");
    if (!f || fprintf(f, "%d %ld\n", rank, (long)getpid()) < 0 || fclose(f) != 0
        || rename(partial, path) != 0) {
        fprintf(stderr, "ERROR rank %d: cannot write %s\n", rank, path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

void torture_mark_started(int rank)
{
    const char *path = getenv("TORTURE_STARTED");
    if (rank != 0 || !path || !*path)
        return;
    FILE *f = fopen(path, "w");
    if (f)
        fclose(f);
}

void torture_map_progress(int rank)
{
    const char *path = getenv("TORTURE_PROGRESS");
    if (!path || !*path || rank >= TORTURE_MAX_RANKS)
        return;
    const int fd = open(path, O_RDWR);
    if (fd < 0)
        return;
    void *map = mmap(NULL, TORTURE_MAX_RANKS * sizeof(int64_t), PROT_READ | PROT_WRITE,
                     MAP_SHARED, fd, 0);
    close(fd);
    if (map != MAP_FAILED)
        progress_slot = (volatile int64_t *)map + rank;
}

void torture_progress(long call)
{
    if (progress_slot)
        *progress_slot = call;
}
