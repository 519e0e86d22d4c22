/*
 * ftc_gather: checks the arguments, picks the algorithm for the live ranks
 * by Open MPI's gather rules (select.c), and runs its tree over them
 * (ft_gather.c), which also ends the call over the survivors after a
 * failure.
 *
 *   rank 0 [a]  rank 1 [b]  rank 2 [c]   ->   root's recvbuf [a][b][c]
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
#include "ft_gather.h"
#include "state.h"

int ftc_gather_algorithm_parse(const char *text, ftc_gather_algorithm *out)
{
    ftc_clear_error();
    if (!text || !out)
        return ftc_fail(MPI_ERR_ARG, "ftc_gather_algorithm_parse: NULL argument");
    if (ftc_gather_parse_name(text, out))
        return MPI_SUCCESS;
    char valid[256];
    ftc_gather_list_names(valid, sizeof(valid));
    return ftc_fail(MPI_ERR_ARG, "unknown gather algorithm \"%s\"; valid: %s", text, valid);
}

/* ---- the module (module.h) ---------------------------------------------------- */

static int gather_create(ftc_comm_t comm)
{
    comm->gather = calloc(1, sizeof(*comm->gather));
    if (!comm->gather)
        return ftc_fail(MPI_ERR_NO_MEM, "ftc_comm_create: out of memory");
    comm->gather->forced = FTC_GATHER_AUTO;
    comm->gather->known_send.type = MPI_DATATYPE_NULL;
    comm->gather->known_recv.type = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

/* FTCOLL_GATHER_ALGORITHM: a name or number forces the algorithm. */
static int gather_read_settings(ftc_comm_t comm)
{
    const char *text = getenv("FTCOLL_GATHER_ALGORITHM");
    if (!text || !*text)
        return MPI_SUCCESS;
    const int rc = ftc_gather_algorithm_parse(text, &comm->gather->forced);
    if (rc != MPI_SUCCESS) {
        char why[400];
        snprintf(why, sizeof(why), "%s", ftc_error_message());
        return ftc_fail(rc, "FTCOLL_GATHER_ALGORITHM: %s", why);
    }
    return MPI_SUCCESS;
}

static const char *algorithm_name(int algorithm)
{
    return ftc_gather_algorithm_name((ftc_gather_algorithm)algorithm);
}

/* Ranks running different trees would wait for each other forever. */
static int gather_agreed(ftc_comm_t comm, ftc_equal_value *values)
{
    values[0] = (ftc_equal_value){ "FTCOLL_GATHER_ALGORITHM", (int)comm->gather->forced,
                                   algorithm_name };
    return 1;
}

static void gather_release(ftc_comm_t comm)
{
    if (!comm->gather)
        return;
    free(comm->gather->slots);
    free(comm->gather->requests);
    free(comm->gather);
    comm->gather = NULL;
}

const ftc_module ftc_gather_module = {
    .name = "gather",
    .create = gather_create,
    .read_settings = gather_read_settings,
    .agreed = gather_agreed,
    .release = gather_release,
};

/* ---- public calls --------------------------------------------------------------- */

int ftc_gather_set_algorithm(ftc_comm_t comm, ftc_gather_algorithm algorithm)
{
    ftc_clear_error();
    if (!comm)
        return ftc_fail(MPI_ERR_COMM, "ftc_gather_set_algorithm: the communicator is NULL");
    if (!ftc_gather_algorithm_name(algorithm))
        return ftc_fail(MPI_ERR_ARG, "ftc_gather_set_algorithm: no algorithm number %d (0..%d)",
                        (int)algorithm, FTC_GATHER_ALGORITHM_COUNT - 1);
    comm->gather->forced = algorithm;
    return MPI_SUCCESS;
}

int ftc_gather_last_choice(ftc_comm_t comm, ftc_gather_choice *out)
{
    ftc_clear_error();
    const int rc = ftc_check_query("ftc_gather_last_choice", comm, out, "the output");
    if (rc != MPI_SUCCESS)
        return rc;
    *out = comm->gather->last;
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
    int root;
    bool in_place;
    ftc_type_shape send_shape, recv_shape;
} arguments;

static const ftc_buffer_names send_names = { "ftc_gather", "sendbuf", "sendcount", "sendtype" };
static const ftc_buffer_names recv_names = { "ftc_gather", "recvbuf", "recvcount", "recvtype" };

/* The root's side: its buffer of p blocks, and its own block's bytes. */
static int check_root_side(arguments *g, ftc_comm_t comm)
{
    if ((long long)g->recvcount * comm->size > INT_MAX)
        return ftc_fail(MPI_ERR_COUNT, "ftc_gather: %d blocks of recvcount = %d come to more "
                        "than INT_MAX elements", comm->size, g->recvcount);
    int rc = ftc_check_buffer_shape(&recv_names, g->recvbuf, g->recvcount, g->recvtype,
                                    comm->comm, &comm->gather->known_recv, &g->recv_shape);
    if (rc != MPI_SUCCESS || g->in_place)
        return rc;
    const long long sent = (long long)g->sendcount * g->send_shape.size;
    const long long room = (long long)g->recvcount * g->recv_shape.size;
    if (sent != room)
        return ftc_fail(MPI_ERR_ARG, "ftc_gather: the root's sendcount x size(sendtype) = %lld "
                        "bytes differs from recvcount x size(recvtype) = %lld bytes", sent,
                        room);
    return MPI_SUCCESS;
}

static size_t block_bytes_of(const arguments *g, bool at_root)
{
    return at_root && g->in_place ? (size_t)g->recvcount * (size_t)g->recv_shape.size
                                  : (size_t)g->sendcount * (size_t)g->send_shape.size;
}

static int check_arguments(arguments *g, ftc_comm_t comm)
{
    int rc = ftc_check_comm("ftc_gather", comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (g->root < 0 || g->root >= comm->size)
        return ftc_fail(MPI_ERR_ROOT, "ftc_gather: root %d is not a rank of the communicator "
                        "(0..%d)", g->root, comm->size - 1);
    const bool at_root = comm->rank == g->root;
    if (g->in_place && !at_root)
        return ftc_fail(MPI_ERR_BUFFER, "ftc_gather: MPI_IN_PLACE is the root's only (rank %d "
                        "is not root %d)", comm->rank, g->root);
    if (!g->in_place)
        rc = ftc_check_buffer_shape(&send_names, g->sendbuf, g->sendcount, g->sendtype,
                                    comm->comm, &comm->gather->known_send, &g->send_shape);
    if (rc == MPI_SUCCESS && at_root)
        rc = check_root_side(g, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    const long long all_bytes = (long long)block_bytes_of(g, at_root) * comm->size;
    if (all_bytes > FTC_GATHER_MAX_BYTES)
        return ftc_fail(MPI_ERR_COUNT, "ftc_gather: the %d blocks come to %lld bytes; a "
                        "subtree's message and the recovery after a failure carry at most %d",
                        comm->size, all_bytes, FTC_GATHER_MAX_BYTES);
    /* a request per child, made here, before the guard: a rank short of
     * memory stops every rank */
    return ftc_ensure_requests(&comm->gather->requests, &comm->gather->capacity, comm->size,
                               "ftc_gather");
}

/* ---- the call ---------------------------------------------------------- */

/* The call's choice, written where ftc_gather_last_choice reads it, and
 * logged when it changed. */
static ftc_gather_algorithm choose(ftc_comm_t comm, int n, size_t block_bytes)
{
    ftc_gather_choice *choice = &comm->gather->last;
    const ftc_gather_algorithm executed_before = choice->executed;
    choice->requested = comm->gather->forced;
    choice->executed = choice->requested == FTC_GATHER_AUTO ? ftc_gather_decide(n, block_bytes)
                                                            : choice->requested;
    if (comm->verbose && comm->rank == 0 && choice->executed != executed_before)
        fprintf(stderr, "ftcoll: gather on %d ranks: %s%s\n", n,
                ftc_gather_algorithm_name(choice->executed),
                choice->requested == FTC_GATHER_AUTO ? " (decision table)" : " (forced)");
    return choice->executed;
}

static int gather_checked(ftc_comm_t comm, const arguments *g)
{
    const bool at_root = comm->rank == g->root;
    const bool in_place = g->in_place;
    char *recv = g->recvbuf;
    const MPI_Aint recv_stride = g->recv_shape.extent * g->recvcount;
    ftc_gather_call call = {
        .comm = comm, .root = g->root, .in_place = in_place,
        .send = in_place ? recv + (MPI_Aint)comm->rank * recv_stride : g->sendbuf,
        .send_count = in_place ? g->recvcount : g->sendcount,
        .send_type = in_place ? g->recvtype : g->sendtype,
        .send_extent = in_place ? g->recv_shape.extent : g->send_shape.extent,
        .send_contiguous = in_place ? g->recv_shape.contiguous : g->send_shape.contiguous,
        .recv = at_root ? recv : NULL, .recv_count = at_root ? g->recvcount : 0,
        .recv_type = at_root ? g->recvtype : MPI_DATATYPE_NULL,
        .recv_extent = at_root ? g->recv_shape.extent : 0,
        .recv_contiguous = at_root && g->recv_shape.contiguous,
        .block_bytes = block_bytes_of(g, at_root),
    };
    call.number = ftc_ft_begin_call(comm->ft);
    call.algorithm = choose(comm, ftc_ft_live_count(comm->ft), call.block_bytes);
    return ftc_gather_run(&call);
}

int ftc_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, ftc_comm_t comm)
{
    ftc_clear_error();
    arguments g = { .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype,
                    .recvbuf = recvbuf, .recvcount = recvcount, .recvtype = recvtype,
                    .root = root, .in_place = sendbuf == MPI_IN_PLACE };
    int rc = check_arguments(&g, comm);
    if (comm) {   /* guarded: bad arguments here stop every rank cleanly */
        const ftc_guard_args same =
            ftc_guard_args_of(root, (long long)block_bytes_of(&g, comm->rank == root));
        rc = ftc_guard_enter(comm, FTC_GUARDED_GATHER, rc, &same);
    }
    if (rc == MPI_SUCCESS)
        rc = gather_checked(comm, &g);
    if (comm)
        ftc_guard_leave(comm);
    return rc;
}
