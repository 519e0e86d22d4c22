/*
 * The argument checks the public calls share, and the parser of the
 * FTCOLL_* switches, so that the same mistake gets the same words from
 * every call and every setting. Each returns MPI_SUCCESS, or the error
 * class with a message naming the call and the argument (error.h).
 */
#ifndef FTCOLL_ARGS_H
#define FTCOLL_ARGS_H

#include <stdbool.h>

#include <mpi.h>

#include "buffer.h"
#include "ftcoll.h"

/* An FTCOLL_* switch from the environment: unset, empty or "0" is off,
 * "1" on; anything else is MPI_ERR_ARG naming the variable and the value. */
int ftc_read_switch(const char *variable, bool *on);

/* MPI_ERR_COMM for a NULL ftcoll communicator. */
int ftc_check_comm(const char *call, ftc_comm_t comm);

/* A query's checks: MPI_ERR_COMM for a NULL communicator, MPI_ERR_ARG for
 * a NULL output (`output` names it: "stats", "the report"). */
int ftc_check_query(const char *call, ftc_comm_t comm, const void *out, const char *output);

/* MPI_ERR_BUFFER for MPI_IN_PLACE given as `name`, a buffer the call reads
 * or writes (a receive buffer, a broadcast's): only the send buffer of a
 * call's in-place form may be MPI_IN_PLACE, and the pointer is no memory. */
int ftc_check_not_in_place(const char *call, const void *buf, const char *name);

/* How a call names one of its buffers in messages ("buffer", "count",
 * "datatype"; "sendbuf", "sendcount", "sendtype"). */
typedef struct {
    const char *call;
    const char *buf, *count, *type;
} ftc_buffer_names;

/*
 * A buffer of `count` elements of `type`: not MPI_IN_PLACE (MPI_ERR_BUFFER,
 * ftc_check_not_in_place); a count not negative (MPI_ERR_COUNT);
 * a valid, committed type under 2 GiB (MPI_ERR_TYPE; `comm` returns the
 * errors of the committed test); a buffer that is not NULL when it holds
 * data, unless the type's absolute addresses make it MPI_BOTTOM
 * (MPI_ERR_BUFFER). On success *type_size is the type's size in bytes.
 */
int ftc_check_buffer(const ftc_buffer_names *names, const void *buf, int count,
                     MPI_Datatype type, MPI_Comm comm, int *type_size);

/* A predefined datatype that passed the checks, with its shape. A
 * predefined handle is never freed nor reused, so what was found stays true
 * (a derived type's handle may name another type later: never remembered). */
typedef struct {
    MPI_Datatype type;   /* MPI_DATATYPE_NULL: none yet */
    ftc_type_shape shape;
} ftc_known_type;

/*
 * ftc_check_buffer, and on success the type's shape (buffer.h). A call
 * with the type `known` remembers asks MPI nothing (the queries cost a
 * small call about as much as its message); a predefined type that
 * passes becomes the one remembered.
 */
int ftc_check_buffer_shape(const ftc_buffer_names *names, const void *buf, int count,
                           MPI_Datatype type, MPI_Comm comm, ftc_known_type *known,
                           ftc_type_shape *shape);

#endif
