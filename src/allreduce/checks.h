/*
 * What a reduction's datatype and op must be, checked alike for
 * ftc_allreduce, ftc_reduce and ftc_reduce_scatter(_block) (checks.c): a
 * predefined datatype and a commutative op defined on it; for ftc_scan
 * and ftc_exscan, which combine in rank order, any op defined on it. The last pair that passed is remembered
 * on the communicator (comm->checked), so most calls ask MPI nothing.
 */
#ifndef FTCOLL_ALLREDUCE_CHECKS_H
#define FTCOLL_ALLREDUCE_CHECKS_H

#include <stdbool.h>

#include <mpi.h>

#include "../comm.h"

/* MPI's predefined reduction ops: all commutative, and never freed. */
bool ftc_op_is_predefined(MPI_Op op);

/*
 * `call`'s (its public name) datatype and op: MPI_ERR_TYPE for a type
 * that is not predefined, MPI_ERR_OP for MPI_OP_NULL, an invalid op, an op
 * not commutative (recovery regroups contributions in whatever blocks
 * survive) or not defined on the type. On success (op, type) is
 * comm->checked, the type's shape with it.
 */
int ftc_check_reduction(const char *call, ftc_comm_t comm, MPI_Datatype type, MPI_Op op);

/* As ftc_check_reduction, for a reduction that combines the inputs in
 * rank order (ftc_scan, ftc_exscan): an op need not be commutative. */
int ftc_check_ordered_reduction(const char *call, ftc_comm_t comm, MPI_Datatype type,
                                MPI_Op op);

#endif
