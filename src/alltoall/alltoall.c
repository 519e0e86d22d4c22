/*
 * ftc_alltoall: checks the arguments, picks the algorithm for the live
 * ranks by Open MPI's alltoall rules (select.c), and runs it over them
 * (exchange.c), which also ends the call over the survivors after a
 * failure. The module's state serves ftc_alltoallv too (alltoallv.c).
 *
 *   rank 0 [a0 a1]  rank 1 [b0 b1]   ->   rank 0 [a0 b0]  rank 1 [a1 b1]
 *
 * Cost: the algorithm's (see its file).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "../args.h"
#include "../buffer.h"
#include "../comm.h"
#include "../error.h"
#include "../ft/ft.h"
#include "../guard/guard.h"
#include "../module.h"
#include "algorithms.h"
#include "exchange.h"
#include "state.h"

int ftc_alltoall_algorithm_parse(const char *text, ftc_alltoall_algorithm *out)
{
    ftc_clear_error();
    if (!text || !out)
        return ftc_fail(MPI_ERR_ARG, "ftc_alltoall_algorithm_parse: NULL argument");
    if (ftc_alltoall_parse_name(text, out))
        return MPI_SUCCESS;
    char valid[256];
    ftc_alltoall_list_names(valid, sizeof(valid));
    return ftc_fail(MPI_ERR_ARG, "unknown alltoall algorithm \"%s\"; valid: %s", text, valid);
}

/* ---- the module (module.h) ---------------------------------------------------- */

static int alltoall_create(ftc_comm_t comm)
{
    comm->alltoall = calloc(1, sizeof(*comm->alltoall));
    if (!comm->alltoall)
        return ftc_fail(MPI_ERR_NO_MEM, "ftc_comm_create: out of memory");
    comm->alltoall->forced = FTC_ALLTOALL_AUTO;
    comm->alltoall->known_send.type = MPI_DATATYPE_NULL;
    comm->alltoall->known_recv.type = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

/* FTCOLL_ALLTOALL_ALGORITHM: a name or number forces the algorithm. */
static int alltoall_read_settings(ftc_comm_t comm)
{
    const char *text = getenv("FTCOLL_ALLTOALL_ALGORITHM");
    if (!text || !*text)
        return MPI_SUCCESS;
    const int rc = ftc_alltoall_algorithm_parse(text, &comm->alltoall->forced);
    if (rc != MPI_SUCCESS) {
        char why[400];
        snprintf(why, sizeof(why), "%s", ftc_error_message());
        return ftc_fail(rc, "FTCOLL_ALLTOALL_ALGORITHM: %s", why);
    }
    return MPI_SUCCESS;
}

static const char *algorithm_name(int algorithm)
{
    return ftc_alltoall_algorithm_name((ftc_alltoall_algorithm)algorithm);
}

/* Ranks running different algorithms would wait for each other forever. */
static int alltoall_agreed(ftc_comm_t comm, ftc_equal_value *values)
{
    values[0] = (ftc_equal_value){ "FTCOLL_ALLTOALL_ALGORITHM", (int)comm->alltoall->forced,
                                   algorithm_name };
    return 1;
}

static void alltoall_release(ftc_comm_t comm)
{
    struct ftc_alltoall_state *s = comm->alltoall;
    if (!s)
        return;
    free(s->requests);
    free(s->send_counts);
    free(s->recv_counts);
    free(s->packed_counts);
    free(s->packed_displs);
    free(s->packed);
    free(s->relayed);
    free(s);
    comm->alltoall = NULL;
}

const ftc_module ftc_alltoall_module = {
    .name = "alltoall",
    .create = alltoall_create,
    .read_settings = alltoall_read_settings,
    .agreed = alltoall_agreed,
    .release = alltoall_release,
};

/* ftc_alltoallv keeps its state in the alltoall module's. */
const ftc_module ftc_alltoallv_module = { .name = "alltoallv" };

/* ---- public calls --------------------------------------------------------------- */

int ftc_alltoall_set_algorithm(ftc_comm_t comm, ftc_alltoall_algorithm algorithm)
{
    ftc_clear_error();
    if (!comm)
        return ftc_fail(MPI_ERR_COMM, "ftc_alltoall_set_algorithm: the communicator is NULL");
    if (!ftc_alltoall_algorithm_name(algorithm))
        return ftc_fail(MPI_ERR_ARG, "ftc_alltoall_set_algorithm: no algorithm number %d "
                        "(0..%d)", (int)algorithm, FTC_ALLTOALL_ALGORITHM_COUNT - 1);
    comm->alltoall->forced = algorithm;
    return MPI_SUCCESS;
}

int ftc_alltoall_last_choice(ftc_comm_t comm, ftc_alltoall_choice *out)
{
    ftc_clear_error();
    const int rc = ftc_check_query("ftc_alltoall_last_choice", comm, out, "the output");
    if (rc != MPI_SUCCESS)
        return rc;
    *out = comm->alltoall->last;
    return MPI_SUCCESS;
}

/* ---- argument checks --------------------------------------------------- */

typedef struct {
    const void *sendbuf;
    int sendcount;
    MPI_Datatype sendtype;
    void *recvbuf;
    int recvcount;
    MPI_Datatype recvtype;
    bool in_place;
    ftc_type_shape send_shape, recv_shape;
    size_t relayed;   /* the modified Bruck's room, reserved where it may run; else 0 */
} arguments;

static const ftc_buffer_names send_names = { "ftc_alltoall", "sendbuf", "sendcount",
                                             "sendtype" };
static const ftc_buffer_names recv_names = { "ftc_alltoall", "recvbuf", "recvcount",
                                             "recvtype" };

static int block_too_large(long long bytes)
{
    return ftc_fail(MPI_ERR_COUNT, "ftc_alltoall: a block of %lld bytes; a message carries at "
                    "most %d", bytes, FTC_ALLTOALL_MAX_BLOCK);
}

/* The send side: a buffer of blocks as large as the receive side's. */
static int check_send_side(arguments *a, ftc_comm_t comm)
{
    int rc = ftc_check_buffer_shape(&send_names, a->sendbuf, a->sendcount, a->sendtype,
                                    comm->comm, &comm->alltoall->known_send, &a->send_shape);
    if (rc != MPI_SUCCESS)
        return rc;
    const long long sent = (long long)a->sendcount * a->send_shape.size;
    const long long room = (long long)a->recvcount * a->recv_shape.size;
    if (sent != room)
        return ftc_fail(MPI_ERR_ARG, "ftc_alltoall: sendcount x size(sendtype) = %lld bytes "
                        "differs from recvcount x size(recvtype) = %lld bytes", sent, room);
    return MPI_SUCCESS;
}

/* The modified Bruck's room where it may run (forced, or the table's pick
 * for some live count up to p), decided alike on every rank from p and
 * the block's bytes; 0 elsewhere, and then linear runs in its place. */
static size_t bruck_room(ftc_comm_t comm, size_t block)
{
    const ftc_alltoall_algorithm forced = comm->alltoall->forced;
    const bool may_run = forced == FTC_ALLTOALL_MODIFIED_BRUCK
        || (forced == FTC_ALLTOALL_AUTO && ftc_alltoall_may_pick_bruck(comm->size, block));
    return may_run ? ftc_alltoall_bruck_room(comm->size, block) : 0;
}

static int check_arguments(arguments *a, ftc_comm_t comm)
{
    int rc = ftc_check_comm("ftc_alltoall", comm);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = ftc_check_buffer_shape(&recv_names, a->recvbuf, a->recvcount, a->recvtype, comm->comm,
                                &comm->alltoall->known_recv, &a->recv_shape);
    if (rc != MPI_SUCCESS)
        return rc;
    const long long block = (long long)a->recvcount * a->recv_shape.size;
    if (block > FTC_ALLTOALL_MAX_BLOCK)
        return block_too_large(block);
    if (!a->in_place)
        rc = check_send_side(a, comm);
    else if (block * comm->size > INT_MAX)
        return ftc_fail(MPI_ERR_COUNT, "ftc_alltoall: in place, the %d blocks come to %lld "
                        "bytes; the copy of them to send carries at most %d", comm->size,
                        block * comm->size, INT_MAX);
    if (rc != MPI_SUCCESS)
        return rc;
    a->relayed = bruck_room(comm, (size_t)block);
    return ftc_alltoall_reserve(comm, "ftc_alltoall",
                                a->in_place ? (size_t)block * (size_t)comm->size : 0, a->relayed);
}

/* ---- the call ---------------------------------------------------------- */

/* The call, made before the guard: an in-place call's blocks are packed
 * here, so that a failure to (a derived type's) stops every rank cleanly. */
static int build_call(ftc_comm_t comm, const arguments *a, ftc_alltoall_call *call)
{
    struct ftc_alltoall_state *s = comm->alltoall;
    for (int r = 0; r < comm->size; r++) {
        s->send_counts[r] = a->sendcount;
        s->recv_counts[r] = a->recvcount;
    }
    *call = (ftc_alltoall_call){
        .name = "ftc_alltoall", .comm = comm, .in_place = a->in_place,
        .recv = { .base = a->recvbuf, .counts = s->recv_counts,
                  .stride = a->recvcount, .type = a->recvtype,
                  .extent = a->recv_shape.extent, .type_size = a->recv_shape.size },
        .recv_contiguous = a->recv_shape.contiguous && ftc_type_is_predefined(a->recvtype),
        .requests = s->requests,
    };
    if (a->in_place)
        return ftc_alltoall_pack_in_place(call);
    call->send = (ftc_block_places){ .base = (char *)a->sendbuf, .counts = s->send_counts,
                                     .stride = a->sendcount, .type = a->sendtype,
                                     .extent = a->send_shape.extent,
                                     .type_size = a->send_shape.size };
    call->send_contiguous = a->send_shape.contiguous && ftc_type_is_predefined(a->sendtype);
    return MPI_SUCCESS;
}

static int run_call(ftc_comm_t comm, ftc_alltoall_call *call, const arguments *a)
{
    call->number = ftc_ft_begin_call(comm->ft);
    const int n = ftc_ft_live_count(comm->ft);
    const size_t block = (size_t)a->recvcount * (size_t)a->recv_shape.size;
    call->algorithm = ftc_alltoall_choose(comm, n, ftc_alltoall_decide(n, block), a->relayed > 0);
    return ftc_alltoall_run(call);
}

int ftc_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, ftc_comm_t comm)
{
    ftc_clear_error();
    arguments a = { .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype,
                    .recvbuf = recvbuf, .recvcount = recvcount, .recvtype = recvtype,
                    .in_place = sendbuf == MPI_IN_PLACE };
    ftc_alltoall_call call;
    int rc = check_arguments(&a, comm);
    if (rc == MPI_SUCCESS)
        rc = build_call(comm, &a, &call);
    if (comm) {   /* guarded: bad arguments here stop every rank cleanly */
        const ftc_guard_args same =
            ftc_guard_args_of(-1, (long long)a.recvcount * a.recv_shape.size);
        rc = ftc_guard_enter(comm, FTC_GUARDED_ALLTOALL, rc, &same);
    }
    if (rc == MPI_SUCCESS)
        rc = run_call(comm, &call, &a);
    if (comm)
        ftc_guard_leave(comm);
    return rc;
}
