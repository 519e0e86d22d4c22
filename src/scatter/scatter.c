/*
 * ftc_scatter: checks the arguments, picks the algorithm by Open MPI's
 * scatter rules (select.c), and runs the scatter family's flow down its
 * tree (ft_scatter.c) with every block sendcount elements, end to end in
 * rank order, as MPI_Scatter lays them out; that flow also ends the call
 * over the survivors after a failure.
 *
 *   root's sendbuf: [a a][b b][c c]   ->   rank 0 [a a]  rank 1 [b b]  rank 2 [c c]
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
#include "checks.h"
#include "ft_scatter.h"
#include "state.h"

int ftc_scatter_algorithm_parse(const char *text, ftc_scatter_algorithm *out)
{
    ftc_clear_error();
    if (!text || !out)
        return ftc_fail(MPI_ERR_ARG, "ftc_scatter_algorithm_parse: NULL argument");
    if (ftc_scatter_parse_name(text, out))
        return MPI_SUCCESS;
    char valid[256];
    ftc_scatter_list_names(valid, sizeof(valid));
    return ftc_fail(MPI_ERR_ARG, "unknown scatter algorithm \"%s\"; valid: %s", text, valid);
}

/* ---- the module (module.h) ---------------------------------------------------- */

static int scatter_create(ftc_comm_t comm)
{
    comm->scatter = calloc(1, sizeof(*comm->scatter));
    if (!comm->scatter)
        return ftc_fail(MPI_ERR_NO_MEM, "ftc_comm_create: out of memory");
    comm->scatter->forced = FTC_SCATTER_AUTO;
    comm->scatter->known_send.type = MPI_DATATYPE_NULL;
    comm->scatter->known_recv.type = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

/* FTCOLL_SCATTER_ALGORITHM: a name or number forces the algorithm. */
static int scatter_read_settings(ftc_comm_t comm)
{
    const char *text = getenv("FTCOLL_SCATTER_ALGORITHM");
    if (!text || !*text)
        return MPI_SUCCESS;
    const int rc = ftc_scatter_algorithm_parse(text, &comm->scatter->forced);
    if (rc != MPI_SUCCESS) {
        char why[400];
        snprintf(why, sizeof(why), "%s", ftc_error_message());
        return ftc_fail(rc, "FTCOLL_SCATTER_ALGORITHM: %s", why);
    }
    return MPI_SUCCESS;
}

static const char *algorithm_name(int algorithm)
{
    return ftc_scatter_algorithm_name((ftc_scatter_algorithm)algorithm);
}

/* Ranks running different trees would wait for each other forever. */
static int scatter_agreed(ftc_comm_t comm, ftc_equal_value *values)
{
    values[0] = (ftc_equal_value){ "FTCOLL_SCATTER_ALGORITHM", (int)comm->scatter->forced,
                                   algorithm_name };
    return 1;
}

static void scatter_release(ftc_comm_t comm)
{
    struct ftc_scatter_state *st = comm->scatter;
    if (!st)
        return;
    free(st->counts);
    free(st->requests);
    free(st->subtree_counts);
    free(st->subtree_displs);
    free(st->room);
    free(st);
    comm->scatter = NULL;
}

const ftc_module ftc_scatter_module = {
    .name = "scatter",
    .create = scatter_create,
    .read_settings = scatter_read_settings,
    .agreed = scatter_agreed,
    .release = scatter_release,
};

/* ---- public calls --------------------------------------------------------------- */

int ftc_scatter_set_algorithm(ftc_comm_t comm, ftc_scatter_algorithm algorithm)
{
    ftc_clear_error();
    if (!comm)
        return ftc_fail(MPI_ERR_COMM, "ftc_scatter_set_algorithm: the communicator is NULL");
    if (!ftc_scatter_algorithm_name(algorithm))
        return ftc_fail(MPI_ERR_ARG, "ftc_scatter_set_algorithm: no algorithm number %d (0..%d)",
                        (int)algorithm, FTC_SCATTER_ALGORITHM_COUNT - 1);
    comm->scatter->forced = algorithm;
    return MPI_SUCCESS;
}

int ftc_scatter_last_choice(ftc_comm_t comm, ftc_scatter_choice *out)
{
    ftc_clear_error();
    const int rc = ftc_check_query("ftc_scatter_last_choice", comm, out, "the output");
    if (rc != MPI_SUCCESS)
        return rc;
    *out = comm->scatter->last;
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
    ftc_scatter_choice choice;   /* made before the guard, which the room it needs must pass */
} arguments;

static const ftc_buffer_names send_names = { "ftc_scatter", "sendbuf", "sendcount",
                                             "sendtype" };

/* The root's side: its buffer of p blocks, its own block's bytes. */
static int check_root_side(arguments *s, ftc_comm_t comm)
{
    int rc = ftc_scatter_check_send_not_in_place("ftc_scatter", s->sendbuf);
    if (rc == MPI_SUCCESS)
        rc = ftc_check_buffer_shape(&send_names, s->sendbuf, s->sendcount, s->sendtype,
                                    comm->comm, &comm->scatter->known_send, &s->send_shape);
    if (rc != MPI_SUCCESS)
        return rc;
    const long long block = (long long)s->sendcount * s->send_shape.size;
    if (block > FTC_SCATTER_MAX_BLOCK)
        return ftc_scatter_block_too_large("ftc_scatter", block);
    const long long room = (long long)s->recvcount * s->recv_shape.size;
    if (!s->in_place && block != room)
        return ftc_fail(MPI_ERR_ARG, "ftc_scatter: the root's sendcount x size(sendtype) = %lld "
                        "bytes differs from its recvcount x size(recvtype) = %lld bytes", block,
                        room);
    return MPI_SUCCESS;
}

/* The root's counts as a scatterv's (its blocks' places are a stride, in
 * MPI_Aint: p x sendcount may pass INT_MAX), room for its sends, and the
 * tables that describe a binomial subtree held in the room. */
static int make_layout(ftc_comm_t comm, int sendcount)
{
    struct ftc_scatter_state *st = comm->scatter;
    if (st->capacity < comm->size) {
        const size_t n = (size_t)comm->size;
        int **tables[] = { &st->counts, &st->subtree_counts, &st->subtree_displs };
        bool grown = true;
        for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++) {
            int *table = grown ? realloc(*tables[t], sizeof(int) * n) : NULL;
            *tables[t] = table ? table : *tables[t];
            grown = table != NULL;
        }
        MPI_Request *requests = grown ? realloc(st->requests, sizeof(MPI_Request) * n) : NULL;
        st->requests = requests ? requests : st->requests;
        if (!requests)
            return ftc_fail(MPI_ERR_NO_MEM, "ftc_scatter: out of memory for %d ranks",
                            comm->size);
        st->capacity = comm->size;
    }
    for (int r = 0; r < comm->size; r++)
        st->counts[r] = sendcount;
    return MPI_SUCCESS;
}

/* This rank's block: what the decision weighs, as in Open MPI (the root's
 * send block, any other rank's receive block). */
static size_t own_block_bytes(const arguments *s, ftc_comm_t comm)
{
    return comm->rank == s->root ? (size_t)s->sendcount * (size_t)s->send_shape.size
                                 : (size_t)s->recvcount * (size_t)s->recv_shape.size;
}

/* The algorithm for this call over the live ranks: the binomial tree
 * carries a run of blocks in one message, which an int must count; with
 * the root dead no block moves, over the linear tree (ft_scatter.c). */
static ftc_scatter_choice choose(const arguments *s, ftc_comm_t comm)
{
    const int n = ftc_ft_live_count(comm->ft);
    ftc_scatter_choice c = { .requested = comm->scatter->forced };
    c.selected = c.requested != FTC_SCATTER_AUTO
        ? c.requested : ftc_scatter_decide(n, own_block_bytes(s, comm));
    const bool fits = (long long)own_block_bytes(s, comm) * n <= INT_MAX;
    const bool root_alive = ftc_ft_is_alive(comm->ft, s->root);
    c.executed = c.selected == FTC_SCATTER_BINOMIAL && (!fits || !root_alive)
        ? FTC_SCATTER_LINEAR : c.selected;
    return c;
}

/* The binomial tree's room on this rank: the root's, for the runs it
 * packs (those whose blocks do not lie end to end in sendbuf, at most
 * every other rank's); a rank with children's, for its run; a leaf needs
 * none. */
static int make_room(const arguments *s, ftc_comm_t comm)
{
    const int n = ftc_ft_live_count(comm->ft);
    const int root_index = ftc_ft_epoch_rank(comm->ft, s->root);
    const int v = (ftc_ft_live_index(comm->ft) - root_index + n) % n;
    const int run = v == 0 ? n - 1
                           : ftc_scatter_binomial_tree->subtree_end(v, n) - v;
    const size_t bytes = v == 0 || run > 1 ? (size_t)run * own_block_bytes(s, comm) : 0;
    struct ftc_scatter_state *st = comm->scatter;
    return ftc_ensure_capacity(&st->room, &st->room_capacity, bytes > 0 ? bytes : 1);
}

static int check_arguments(arguments *s, ftc_comm_t comm)
{
    int rc = ftc_check_comm("ftc_scatter", comm);
    if (rc == MPI_SUCCESS)
        rc = ftc_scatter_check_receiver("ftc_scatter", comm, s->root, s->recvbuf, s->recvcount,
                                        s->recvtype, &comm->scatter->known_recv, &s->recv_shape);
    if (rc == MPI_SUCCESS && comm->rank == s->root)
        rc = check_root_side(s, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    /* the layout, a send per rank on every rank (with the root dead, the
     * lowest live rank sends) and the tree's room, made here, before the
     * guard: a rank short of memory stops every rank */
    s->choice = choose(s, comm);
    rc = make_layout(comm, comm->rank == s->root ? s->sendcount : 0);
    if (rc == MPI_SUCCESS && s->choice.executed == FTC_SCATTER_BINOMIAL)
        rc = make_room(s, comm);
    return rc;
}

/* The call's choice, written where ftc_scatter_last_choice reads it, and
 * logged when it changed. */
static const ftc_vrank_tree *record_choice(ftc_comm_t comm, const ftc_scatter_choice *choice)
{
    ftc_scatter_choice *last = &comm->scatter->last;
    if (comm->verbose && comm->rank == 0 && choice->executed != last->executed)
        fprintf(stderr, "ftcoll: scatter on %d ranks: %s%s\n", ftc_ft_live_count(comm->ft),
                ftc_scatter_algorithm_name(choice->executed),
                choice->requested == FTC_SCATTER_AUTO ? " (decision table)" : " (forced)");
    *last = *choice;
    return ftc_scatter_tree_of(choice->executed);
}

/* ---- the call ---------------------------------------------------------- */

static int scatter_checked(ftc_comm_t comm, const arguments *s)
{
    const bool at_root = comm->rank == s->root;
    const bool in_place = s->in_place;
    const struct ftc_scatter_state *st = comm->scatter;
    ftc_scatter_call call = {
        .name = "ftc_scatter", .comm = comm, .root = s->root, .in_place = in_place,
        .recv = in_place ? NULL : s->recvbuf, .recv_count = in_place ? 0 : s->recvcount,
        .recv_type = in_place ? MPI_BYTE : s->recvtype,
        .recv_contiguous = in_place || s->recv_shape.contiguous,
        .recv_bytes = in_place ? 0 : (size_t)s->recvcount * (size_t)s->recv_shape.size,
        .send = at_root ? s->sendbuf : NULL, .send_counts = at_root ? st->counts : NULL,
        .displs = NULL, .stride = at_root ? s->sendcount : 0,
        .send_type = at_root ? s->sendtype : MPI_DATATYPE_NULL,
        .send_extent = at_root ? s->send_shape.extent : 0,
        .send_type_size = at_root ? s->send_shape.size : 0,
        .send_contiguous = at_root && s->send_shape.contiguous,
        .requests = st->requests,
        .room = st->room, .subtree_counts = st->subtree_counts,
        .subtree_displs = st->subtree_displs,
    };
    call.tree = record_choice(comm, &s->choice);
    call.number = ftc_ft_begin_call(comm->ft);
    return ftc_scatter_run(&call);
}

int ftc_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, ftc_comm_t comm)
{
    ftc_clear_error();
    arguments s = { .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype,
                    .recvbuf = recvbuf, .recvcount = recvcount, .recvtype = recvtype,
                    .root = root, .in_place = recvbuf == MPI_IN_PLACE };
    int rc = check_arguments(&s, comm);
    if (comm) {   /* guarded: bad arguments here stop every rank cleanly */
        const ftc_guard_args same =
            ftc_guard_args_of(root, (long long)own_block_bytes(&s, comm));
        rc = ftc_guard_enter(comm, FTC_GUARDED_SCATTER, rc, &same);
    }
    if (rc == MPI_SUCCESS)
        rc = scatter_checked(comm, &s);
    if (comm)
        ftc_guard_leave(comm);
    return rc;
}
