/*
 * ftc_allreduce: checks the arguments, then runs the fault-tolerant engine
 * (ft_engine.c) on the receive buffer.
 */
#include <stdbool.h>
#include <string.h>

#include "../args.h"
#include "../buffer.h"
#include "../comm.h"
#include "../error.h"
#include "../guard/guard.h"
#include "ft_engine.h"

static int check_type(MPI_Datatype type)
{
    if (type == MPI_DATATYPE_NULL)
        return ftc_fail(MPI_ERR_TYPE, "ftc_allreduce: datatype is MPI_DATATYPE_NULL");
    if (!ftc_type_is_predefined(type))
        return ftc_fail(MPI_ERR_TYPE, "ftc_allreduce: only predefined datatypes are supported");
    return MPI_SUCCESS;
}

/* MPI's predefined reduction ops: all commutative, and never freed, so a
 * check that passed for one holds for good. */
static bool op_is_predefined(MPI_Op op)
{
    static const MPI_Op predefined[] = { MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD, MPI_LAND, MPI_BAND,
                                         MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MAXLOC,
                                         MPI_MINLOC };
    for (size_t i = 0; i < sizeof(predefined) / sizeof(predefined[0]); i++)
        if (op == predefined[i])
            return true;
    return false;
}

/*
 * The op must be commutative: recovery regroups contributions in whatever
 * blocks survive. MPI_Reduce_local would raise an op/type mismatch through a
 * fatal handler, so the pair is tried once through ftcoll's own
 * MPI_COMM_SELF duplicate, which returns errors, and remembered. A user's op
 * is asked again on every call: its handle may be freed and reused.
 */
static int check_op(ftc_comm_t comm, MPI_Op op, MPI_Datatype type)
{
    const bool same_pair = op == comm->checked.op && type == comm->checked.known.type;
    if (same_pair && comm->checked.op_predefined)
        return MPI_SUCCESS;
    if (op == MPI_OP_NULL)
        return ftc_fail(MPI_ERR_OP, "ftc_allreduce: op is MPI_OP_NULL");
    int commutative = 0;
    if (MPI_Op_commutative(op, &commutative) != MPI_SUCCESS)
        return ftc_fail(MPI_ERR_OP, "ftc_allreduce: op is not a valid operation");
    if (!commutative)
        return ftc_fail(MPI_ERR_OP, "ftc_allreduce: op is not commutative; the fault-tolerant "
                                    "path regroups contributions and needs a commutative op");
    if (same_pair)
        return MPI_SUCCESS;
    ftc_type_shape shape;
    if (ftc_type_shape_of(type, &shape) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    char one[64] = { 0 }, out[64];
    if (shape.extent <= (MPI_Aint)sizeof(one) && comm->self != MPI_COMM_NULL
        && MPI_Reduce(one, out, 1, type, op, 0, comm->self) != MPI_SUCCESS)
        return ftc_fail(MPI_ERR_OP, "ftc_allreduce: op is not defined for this datatype");
    /* the pair passed: its type's shape is asked here once, not on every call */
    comm->checked.op = op;
    comm->checked.op_predefined = op_is_predefined(op);
    comm->checked.known = (ftc_known_type){ type, shape };
    return MPI_SUCCESS;
}

/* A type this communicator accepted before passed check_type: it is
 * predefined, and a predefined handle is never freed nor reused, so MPI need
 * not be asked again (the question costs a fifth of the checks' time). */
static bool type_known_good(ftc_comm_t comm, MPI_Datatype type)
{
    return type != MPI_DATATYPE_NULL && type == comm->checked.known.type;
}

static int check_arguments(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                           MPI_Op op, ftc_comm_t comm)
{
    int rc = ftc_check_comm("ftc_allreduce", comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (count < 0)
        return ftc_fail(MPI_ERR_COUNT, "ftc_allreduce: count is negative (%d)", count);
    rc = type_known_good(comm, type) ? MPI_SUCCESS : check_type(type);
    if (rc != MPI_SUCCESS)
        return rc;
    if (count > 0 && (recvbuf == NULL || sendbuf == NULL))
        return ftc_fail(MPI_ERR_BUFFER, "ftc_allreduce: %s is NULL but count is %d",
                        recvbuf == NULL ? "recvbuf" : "sendbuf", count);
    return check_op(comm, op, type);
}

int ftc_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  ftc_comm_t comm)
{
    ftc_clear_error();
    int rc = check_arguments(sendbuf, recvbuf, count, type, op, comm);
    if (comm)   /* guarded: bad arguments here stop every rank cleanly */
        rc = ftc_guard_enter(comm, FTC_GUARDED_ALLREDUCE, rc);
    if (rc != MPI_SUCCESS)
        return rc;   /* the watchdog is armed only on success */
    /* the checks passed: (op, type) is comm->checked */
    const size_t bytes = (size_t)comm->checked.known.shape.extent * (size_t)count;
    if (sendbuf != MPI_IN_PLACE && count > 0)
        memmove(recvbuf, sendbuf, bytes);
    /* an input aliasing the result (MPI forbids it, some programs do it)
     * is no input kept unchanged */
    const bool input_kept = sendbuf != MPI_IN_PLACE && sendbuf != recvbuf;
    rc = ftc_ft_allreduce_run(comm, input_kept ? sendbuf : NULL, recvbuf, count, type, op, bytes,
                              comm->checked.known.shape.size);
    ftc_guard_leave(comm);
    return rc;
}
