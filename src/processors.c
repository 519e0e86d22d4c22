#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "processors.h"

#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "error.h"

#ifdef CPU_COUNT
/* The processors the ranks of `node` may run on, all of them together. */
static int node_processors(MPI_Comm node, int *count)
{
    cpu_set_t mine, union_of_all;
    CPU_ZERO(&mine);
    if (sched_getaffinity(0, sizeof mine, &mine) != 0)
        CPU_ZERO(&mine);   /* no set: the others', or the online count below */
    const int rc = PMPI_Allreduce(&mine, &union_of_all, (int)sizeof mine, MPI_BYTE, MPI_BOR, node);
    if (rc == MPI_SUCCESS)
        *count = CPU_COUNT(&union_of_all);
    return rc;
}
#else
static int node_processors(MPI_Comm node, int *count)
{
    (void)node;
    *count = 0;
    return MPI_SUCCESS;
}
#endif

int ftc_ranks_share_processors(MPI_Comm comm, bool *shared)
{
    *shared = false;
    MPI_Comm node;
    int ranks = 0, processors = 0;
    int rc = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    if (rc == MPI_SUCCESS) {
        rc = PMPI_Comm_size(node, &ranks);
        if (rc == MPI_SUCCESS)
            rc = node_processors(node, &processors);
        PMPI_Comm_free(&node);
    }
    if (processors <= 0)
        processors = (int)sysconf(_SC_NPROCESSORS_ONLN);
    /* every rank takes part, whatever failed here, so that none waits alone */
    int here = rc == MPI_SUCCESS && processors > 0 && ranks > processors, anywhere = 0;
    const int agreed = PMPI_Allreduce(&here, &anywhere, 1, MPI_INT, MPI_MAX, comm);
    if (rc == MPI_SUCCESS)
        rc = agreed;
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "counting the processors of each node failed");
    *shared = anywhere != 0;
    return MPI_SUCCESS;
}
