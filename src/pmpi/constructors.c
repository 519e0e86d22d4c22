/*
 * The communicator constructors of the layer (ULFM builds): MPI makes the
 * communicator, then the layer makes its ftcoll communicator at once
 * (comms.c), while every rank of it is alive and inside the call.
 *
 *   MPI_Comm_dup(parent, &c)  -> PMPI_Comm_dup, then ftc_comm_create(c)
 *   (and _dup_with_info, _split, _split_type, _create, _create_group,
 *    MPI_Cart_create, MPI_Cart_sub, MPI_Graph_create, MPI_Dist_graph_create,
 *    MPI_Dist_graph_create_adjacent, MPI_Intercomm_merge)
 *
 * Why not at the first collective, as without ULFM: a program that makes
 * a communicator and first runs a collective on it after a rank died could
 * not have one then (duplicating a communicator needs every rank), and
 * MPI's own collective would fail there. ftc_comm_create ends each of its
 * steps in an agreement over the new communicator, whose ranks are all
 * inside this call: a rank dying in it fails it on every rank alike, and
 * the constructor returns the error through the parent's error handler,
 * with MPI_COMM_NULL, as MPI's own would. Whether MPI's constructor
 * itself succeeded is MPI's to say alike (ULFM fails a constructor over a
 * dead rank): the layer adds no agreement over the parent, which could
 * wait for ranks still finishing an earlier ftcoll call on it, that only
 * the others' next ftcoll call there can serve.
 *
 * Cost: one ftc_comm_create per communicator made, whether or not it ever
 * runs a collective. Without ULFM, where a death ends the job, a
 * communicator gets its ftcoll communicator at its first collective, and
 * these wrappers are not built.
 */
#include <stdio.h>

#include "layer.h"

/* What a constructor returns once MPI made `*made` from `parent` (rc:
 * MPI's answer). */
static int made(MPI_Comm parent, MPI_Comm *made, const char *call, int rc)
{
    if (rc != MPI_SUCCESS || layer_bypass() || !made)
        return rc;   /* MPI's own error, which its handler has seen */
    rc = layer_comm_made(made);
    if (rc == MPI_SUCCESS)
        return rc;
    if (layer_errors_are_fatal(parent))
        fprintf(stderr, "ftcoll: rank %d: %s: %s\n", layer.world_rank, call,
                layer_comm_failure());
    PMPI_Comm_call_errhandler(parent, rc);
    return rc;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    return made(comm, newcomm, "MPI_Comm_dup", PMPI_Comm_dup(comm, newcomm));
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    return made(comm, newcomm, "MPI_Comm_dup_with_info",
                PMPI_Comm_dup_with_info(comm, info, newcomm));
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    return made(comm, newcomm, "MPI_Comm_split", PMPI_Comm_split(comm, color, key, newcomm));
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    return made(comm, newcomm, "MPI_Comm_split_type",
                PMPI_Comm_split_type(comm, split_type, key, info, newcomm));
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    return made(comm, newcomm, "MPI_Comm_create", PMPI_Comm_create(comm, group, newcomm));
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    return made(comm, newcomm, "MPI_Comm_create_group",
                PMPI_Comm_create_group(comm, group, tag, newcomm));
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *newcomm)
{
    return made(comm, newcomm, "MPI_Cart_create",
                PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm));
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    return made(comm, newcomm, "MPI_Cart_sub", PMPI_Cart_sub(comm, remain_dims, newcomm));
}

int MPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                     int reorder, MPI_Comm *newcomm)
{
    return made(comm, newcomm, "MPI_Graph_create",
                PMPI_Graph_create(comm, nnodes, index, edges, reorder, newcomm));
}

int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info,
                          int reorder, MPI_Comm *newcomm)
{
    return made(comm, newcomm, "MPI_Dist_graph_create",
                PMPI_Dist_graph_create(comm, n, sources, degrees, destinations, weights, info,
                                       reorder, newcomm));
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[],
                                   MPI_Info info, int reorder, MPI_Comm *newcomm)
{
    return made(comm, newcomm, "MPI_Dist_graph_create_adjacent",
                PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights,
                                                outdegree, destinations, destweights, info,
                                                reorder, newcomm));
}

int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newcomm)
{
    return made(intercomm, newcomm, "MPI_Intercomm_merge",
                PMPI_Intercomm_merge(intercomm, high, newcomm));
}
