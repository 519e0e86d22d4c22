#include "harness.h"

#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

void die(const char *what)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "rank %d: test harness failure: %s\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

void *checked_malloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        die("out of memory");
    return p;
}

void mpi_or_die(int rc, const char *what)
{
    if (rc != MPI_SUCCESS)
        die(what);
}

int class_of(int rc)
{
    int error_class = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &error_class);
    return error_class;
}

const char *class_name(int error_class)
{
    switch (error_class) {
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_ARG: return "MPI_ERR_ARG";
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER";
    case MPI_ERR_COMM: return "MPI_ERR_COMM";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT";
    case MPI_ERR_OP: return "MPI_ERR_OP";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE";
    default: return "another class";
    }
}
