#include "args.h"

#include <stdlib.h>
#include <string.h>

#include "buffer.h"
#include "error.h"

int ftc_read_switch(const char *variable, bool *on)
{
    const char *text = getenv(variable);
    *on = false;
    if (!text || !*text || strcmp(text, "0") == 0)
        return MPI_SUCCESS;
    if (strcmp(text, "1") == 0) {
        *on = true;
        return MPI_SUCCESS;
    }
    return ftc_fail(MPI_ERR_ARG, "%s=\"%s\": expected 0 or 1", variable, text);
}

int ftc_check_comm(const char *call, ftc_comm_t comm)
{
    if (!comm)
        return ftc_fail(MPI_ERR_COMM, "%s: the communicator is NULL (make one with "
                                      "ftc_comm_create)", call);
    return MPI_SUCCESS;
}

int ftc_check_query(const char *call, ftc_comm_t comm, const void *out, const char *output)
{
    if (!comm)
        return ftc_fail(MPI_ERR_COMM, "%s: the communicator is NULL", call);
    if (!out)
        return ftc_fail(MPI_ERR_ARG, "%s: %s is NULL", call, output);
    return MPI_SUCCESS;
}

int ftc_check_buffer(const ftc_buffer_names *names, const void *buf, int count,
                     MPI_Datatype type, MPI_Comm comm, int *type_size)
{
    const char *call = names->call;
    const int rc = ftc_check_not_in_place(call, buf, names->buf);
    if (rc != MPI_SUCCESS)
        return rc;
    if (count < 0)
        return ftc_fail(MPI_ERR_COUNT, "%s: %s is negative (%d)", call, names->count, count);
    if (type == MPI_DATATYPE_NULL)
        return ftc_fail(MPI_ERR_TYPE, "%s: %s is MPI_DATATYPE_NULL", call, names->type);
    if (MPI_Type_size(type, type_size) != MPI_SUCCESS)
        return ftc_fail_mpi(MPI_ERR_TYPE, "%s: %s is not a valid datatype", call, names->type);
    if (*type_size == MPI_UNDEFINED || *type_size < 0)
        return ftc_fail(MPI_ERR_TYPE, "%s: %s is 2 GiB or larger", call, names->type);
    if (!ftc_type_is_committed(type, comm))
        return ftc_fail(MPI_ERR_TYPE, "%s: %s is not a committed datatype (call "
                                      "MPI_Type_commit first)", call, names->type);
    if (buf == NULL && count > 0 && *type_size > 0) {
        /* MPI_BOTTOM (NULL) is legal only with absolute addresses in the type. */
        MPI_Aint true_lb, true_extent;
        MPI_Type_get_true_extent(type, &true_lb, &true_extent);
        if (true_lb == 0)
            return ftc_fail(MPI_ERR_BUFFER, "%s: %s is NULL but %s is %d", call, names->buf,
                            names->count, count);
    }
    return MPI_SUCCESS;
}

int ftc_check_not_in_place(const char *call, const void *buf, const char *name)
{
    if (buf != MPI_IN_PLACE)
        return MPI_SUCCESS;
    return ftc_fail(MPI_ERR_BUFFER, "%s: MPI_IN_PLACE as %s (only the send buffer of the "
                    "call's in-place form may be MPI_IN_PLACE)", call, name);
}

int ftc_check_buffer_shape(const ftc_buffer_names *names, const void *buf, int count,
                           MPI_Datatype type, MPI_Comm comm, ftc_known_type *known,
                           ftc_type_shape *shape)
{
    if (buf == MPI_IN_PLACE)   /* before the remembered type's shortcut */
        return ftc_check_not_in_place(names->call, buf, names->buf);
    const bool needs_buffer = buf == NULL && count > 0;
    if (type == known->type && type != MPI_DATATYPE_NULL && count >= 0
        && !(needs_buffer && known->shape.size > 0)) {
        *shape = known->shape;
        return MPI_SUCCESS;
    }
    int type_size = 0;
    int rc = ftc_check_buffer(names, buf, count, type, comm, &type_size);
    if (rc == MPI_SUCCESS && ftc_type_shape_of(type, shape) != MPI_SUCCESS)
        rc = MPI_ERR_TYPE;
    if (rc == MPI_SUCCESS && ftc_type_is_predefined(type))
        *known = (ftc_known_type){ type, *shape };
    return rc;
}
