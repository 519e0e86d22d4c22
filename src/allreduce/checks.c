#include "checks.h"

#include "../buffer.h"
#include "../error.h"

bool ftc_op_is_predefined(MPI_Op op)
{
    static const MPI_Op predefined[] = { MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD, MPI_LAND, MPI_BAND,
                                         MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MAXLOC,
                                         MPI_MINLOC };
    for (size_t i = 0; i < sizeof(predefined) / sizeof(predefined[0]); i++)
        if (op == predefined[i])
            return true;
    return false;
}

static int check_type(const char *call, MPI_Datatype type)
{
    if (type == MPI_DATATYPE_NULL)
        return ftc_fail(MPI_ERR_TYPE, "%s: datatype is MPI_DATATYPE_NULL", call);
    if (!ftc_type_is_predefined(type))
        return ftc_fail(MPI_ERR_TYPE, "%s: only predefined datatypes are supported", call);
    return MPI_SUCCESS;
}

/*
 * MPI_Reduce_local would raise an op/type mismatch through a fatal
 * handler, so the pair is tried once through ftcoll's own MPI_COMM_SELF
 * duplicate, which returns errors, and remembered. A user's op is asked
 * again on every call: its handle may be freed and reused.
 */
static int check_op(const char *call, ftc_comm_t comm, MPI_Op op, MPI_Datatype type,
                    bool in_rank_order)
{
    const bool same_pair = op == comm->checked.op && type == comm->checked.known.type;
    if (same_pair && comm->checked.op_predefined)
        return MPI_SUCCESS;
    if (op == MPI_OP_NULL)
        return ftc_fail(MPI_ERR_OP, "%s: op is MPI_OP_NULL", call);
    int commutative = 0;
    if (MPI_Op_commutative(op, &commutative) != MPI_SUCCESS)
        return ftc_fail(MPI_ERR_OP, "%s: op is not a valid operation", call);
    if (!commutative && !in_rank_order)
        return ftc_fail(MPI_ERR_OP, "%s: op is not commutative; the fault-tolerant path "
                                    "regroups contributions and needs a commutative op", call);
    if (same_pair)
        return MPI_SUCCESS;
    ftc_type_shape shape;
    if (ftc_type_shape_of(type, &shape) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    char one[64] = { 0 }, out[64];
    if (shape.extent <= (MPI_Aint)sizeof(one) && comm->self != MPI_COMM_NULL
        && MPI_Reduce(one, out, 1, type, op, 0, comm->self) != MPI_SUCCESS)
        return ftc_fail(MPI_ERR_OP, "%s: op is not defined for this datatype", call);
    /* the pair passed: its type's shape is asked here once, not on every call */
    comm->checked.op = op;
    comm->checked.op_predefined = ftc_op_is_predefined(op);
    comm->checked.known = (ftc_known_type){ type, shape };
    return MPI_SUCCESS;
}

/* A type this communicator accepted before passed check_type: it is
 * predefined, and a predefined handle is never freed nor reused, so MPI
 * need not be asked again (the question costs a fifth of the checks' time). */
static bool type_known_good(ftc_comm_t comm, MPI_Datatype type)
{
    return type != MPI_DATATYPE_NULL && type == comm->checked.known.type;
}

static int check_pair(const char *call, ftc_comm_t comm, MPI_Datatype type, MPI_Op op,
                      bool in_rank_order)
{
    const int rc = type_known_good(comm, type) ? MPI_SUCCESS : check_type(call, type);
    return rc == MPI_SUCCESS ? check_op(call, comm, op, type, in_rank_order) : rc;
}

int ftc_check_reduction(const char *call, ftc_comm_t comm, MPI_Datatype type, MPI_Op op)
{
    return check_pair(call, comm, type, op, false);
}

/* The pair cache (comm->checked) stays sound: a user's op that is not
 * commutative may be remembered here, but only a predefined op skips the
 * commutativity question, so an allreduce still refuses it. */
int ftc_check_ordered_reduction(const char *call, ftc_comm_t comm, MPI_Datatype type, MPI_Op op)
{
    return check_pair(call, comm, type, op, true);
}
