/* The tree algorithms' transport with an emulated network; see net.h. */
#define _POSIX_C_SOURCE 200809L
#include "net.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../p2p.h"

/* What travels: the message's fields, its send time, then its words. */
typedef struct {
    int kind, from, to, level, state, step, flag, a, b, nwords;
    ftc_weight fid, w, w2;
    double value, value2;
    double sent;
} wire_header;

struct ftc_net_held {
    double due;     /* sent + the channel's latency, or when it came if later */
    long seq;       /* arrival order: equal due times keep it (FIFO channels) */
    char *bytes;
};

typedef struct {
    MPI_Request request;
    char *bytes;
} pending_send;

double ftc_net_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Short naps rather than a busy loop: with many ranks on few cores, a
 * spinning rank would delay the ranks that have work. */
void ftc_net_sleep_until(double when)
{
    for (;;) {
        const double left = when - ftc_net_now();
        if (left <= 0)
            return;
        const double nap = left < 200e-6 ? left : 200e-6;
        struct timespec ts = {0, (long)(nap * 1e9)};
        nanosleep(&ts, NULL);
    }
}

/* Between polls: long enough that two cores can carry dozens of waiting
 * ranks, short against the emulated latencies. */
enum { POLL_NAP_US = 300 };

void ftc_net_nap(void)
{
    struct timespec ts = {0, POLL_NAP_US * 1000L};
    nanosleep(&ts, NULL);
}

int ftc_net_init(ftc_net *net, MPI_Comm comm, const ftc_topology *topology)
{
    memset(net, 0, sizeof *net);
    net->comm = comm;
    net->topology = topology;
    MPI_Comm_rank(comm, &net->rank);
    MPI_Comm_size(comm, &net->size);
    return MPI_SUCCESS;
}

double ftc_net_latency(const ftc_net *net, int a, int b)
{
    if (!net->topology || a == b)
        return 0.0;
    return ftc_topology_latency(net->topology, a, b, net->epoch);
}

/* Whether net->stop says so; its answer becomes the net's failure. */
static int stopped(ftc_net *net)
{
    if (!net->failed && net->stop) {
        net->failed = net->stop(net->stop_context);
        net->stopped = net->failed != 0;
    }
    return net->failed;
}

/* Frees the sends that have completed (wait: all of them, unless the net
 * stopped: a receiver that stopped too may never take one). */
static int reap_sends(ftc_net *net, int wait)
{
    pending_send *sends = net->sends;
    int kept = 0;
    if (wait && net->stopped)
        wait = 0;
    for (int i = 0; i < net->nsends; i++) {
        int done = 0;
        int rc = wait ? MPI_Wait(&sends[i].request, MPI_STATUS_IGNORE)
                      : MPI_Test(&sends[i].request, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            net->failed = rc;
            done = 1;
        }
        if (wait || done)
            free(sends[i].bytes);
        else
            sends[kept++] = sends[i];
    }
    net->nsends = kept;
    return net->failed ? net->failed : MPI_SUCCESS;
}

int ftc_net_flush(ftc_net *net)
{
    return reap_sends(net, 1);
}

/* A stopped net's last sends: small ones (every protocol message) leave
 * at once, and one to a dead rank fails; a second is plenty. What is
 * still pending then is released, its bytes left to MPI. */
enum { STOPPED_SENDS_WAIT_NAPS = 3000 };

static void settle_stopped_sends(ftc_net *net)
{
    for (int nap = 0; net->nsends > 0 && nap < STOPPED_SENDS_WAIT_NAPS; nap++) {
        reap_sends(net, 0);
        if (net->nsends > 0)
            ftc_net_nap();
    }
    pending_send *sends = net->sends;
    for (int i = 0; i < net->nsends; i++)
        ftc_p2p_abandon(&sends[i].request, false);
    net->nsends = 0;
}

void ftc_net_free(ftc_net *net)
{
    if (net->stopped)
        settle_stopped_sends(net);
    ftc_net_flush(net);
    for (int i = 0; i < net->nheld; i++)
        free(net->held[i].bytes);
    free(net->held);
    free(net->sends);
    free(net->words);
    memset(net, 0, sizeof *net);
}

static int grow(void **array, int *capacity, int needed, size_t item)
{
    if (needed <= *capacity)
        return 1;
    int capacity2 = *capacity ? *capacity * 2 : 16;
    while (capacity2 < needed)
        capacity2 *= 2;
    void *bigger = realloc(*array, (size_t)capacity2 * item);
    if (!bigger)
        return 0;
    *array = bigger;
    *capacity = capacity2;
    return 1;
}

void ftc_net_send(void *context, const ftc_msg *msg)
{
    ftc_net *net = context;
    if (net->failed)
        return;
    const size_t bytes = sizeof(wire_header) + (size_t)msg->nwords * sizeof(uint64_t);
    char *buffer = malloc(bytes);
    if (!buffer
        || !grow(&net->sends, &net->sends_capacity, net->nsends + 1, sizeof(pending_send))) {
        free(buffer);
        net->failed = MPI_ERR_NO_MEM;
        return;
    }
    const wire_header header = {msg->kind, msg->from, msg->to, msg->level, msg->state,
                                msg->step, msg->flag, msg->a, msg->b, msg->nwords,
                                msg->fid, msg->w, msg->w2, msg->value, msg->value2,
                                ftc_net_now()};
    memcpy(buffer, &header, sizeof header);
    if (msg->nwords > 0)
        memcpy(buffer + sizeof header, msg->words, (size_t)msg->nwords * sizeof(uint64_t));
    pending_send *slot = &((pending_send *)net->sends)[net->nsends];
    slot->bytes = buffer;
    int rc = ftc_p2p_isend(buffer, (int)bytes, MPI_BYTE, msg->to, FTC_TAG_TREE_MSG, net->comm,
                           &slot->request);
    if (rc != MPI_SUCCESS) {
        free(buffer);
        net->failed = rc;
        return;
    }
    net->nsends++;
    if (msg->kind >= 0 && msg->kind < FTC_MSG_KINDS)
        net->counts[msg->kind]++;
}

/* Takes in every message that has arrived, stamping when it is due. */
static int receive_arrivals(ftc_net *net)
{
    for (;;) {
        int flag = 0;
        MPI_Status status;
        int rc = ftc_p2p_iprobe(MPI_ANY_SOURCE, FTC_TAG_TREE_MSG, net->comm, &flag, &status);
        if (rc != MPI_SUCCESS)
            return rc;
        if (!flag)
            return MPI_SUCCESS;
        int bytes = 0;
        MPI_Get_count(&status, MPI_BYTE, &bytes);
        char *buffer = malloc(bytes > 0 ? (size_t)bytes : 1);
        if (!buffer || !grow((void **)&net->held, &net->held_capacity, net->nheld + 1,
                             sizeof *net->held)) {
            free(buffer);
            return MPI_ERR_NO_MEM;
        }
        rc = ftc_p2p_recv(buffer, bytes, MPI_BYTE, status.MPI_SOURCE, FTC_TAG_TREE_MSG, net->comm,
                          MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || (size_t)bytes < sizeof(wire_header)) {
            free(buffer);
            return rc != MPI_SUCCESS ? rc : MPI_ERR_TRUNCATE;
        }
        wire_header header;
        memcpy(&header, buffer, sizeof header);
        ftc_net_held *held = &net->held[net->nheld++];
        /* The emulated network delivers at sent + latency: the host's own
         * transport (microseconds) and the time a busy rank takes to look
         * are not the network's. Without emulation: when it came. */
        held->due = net->topology
                        ? header.sent + ftc_net_latency(net, header.from, net->rank)
                        : ftc_net_now();
        held->seq = net->arrivals++;
        held->bytes = buffer;
    }
}

static int earliest_held(const ftc_net *net)
{
    int best = -1;
    for (int i = 0; i < net->nheld; i++) {
        const ftc_net_held *h = &net->held[i];
        if (best < 0 || h->due < net->held[best].due
            || (h->due == net->held[best].due && h->seq < net->held[best].seq))
            best = i;
    }
    return best;
}

static int hand_over(ftc_net *net, int index, ftc_msg *out)
{
    char *buffer = net->held[index].bytes;
    const double arrived = net->held[index].due;
    net->held[index] = net->held[--net->nheld];
    wire_header header;
    memcpy(&header, buffer, sizeof header);
    if (!grow((void **)&net->words, &net->words_capacity, header.nwords, sizeof(uint64_t))) {
        free(buffer);
        return MPI_ERR_NO_MEM;
    }
    if (header.nwords > 0)
        memcpy(net->words, buffer + sizeof header, (size_t)header.nwords * sizeof(uint64_t));
    free(buffer);
    memset(out, 0, sizeof *out);
    out->kind = header.kind;
    out->from = header.from;
    out->to = header.to;
    out->level = header.level;
    out->state = header.state;
    out->step = header.step;
    out->flag = header.flag;
    out->a = header.a;
    out->b = header.b;
    out->fid = header.fid;
    out->w = header.w;
    out->w2 = header.w2;
    out->value = header.value;
    out->value2 = header.value2;
    out->sent = header.sent;
    out->arrived = arrived;
    out->nwords = header.nwords;
    out->words = net->words;
    return MPI_SUCCESS;
}

int ftc_net_next(ftc_net *net, ftc_msg *out)
{
    for (;;) {
        if (stopped(net))
            return net->failed;
        int rc = receive_arrivals(net);
        if (rc == MPI_SUCCESS)
            rc = reap_sends(net, 0);
        if (rc != MPI_SUCCESS) {
            net->failed = rc;
            return rc;
        }
        const int next = earliest_held(net);
        const double now = ftc_net_now();
        if (next >= 0 && net->held[next].due <= now)
            return hand_over(net, next, out);
        if (next >= 0 && net->held[next].due - now < POLL_NAP_US * 1e-6)
            ftc_net_sleep_until(net->held[next].due);
        else
            ftc_net_nap();
    }
}

int ftc_net_wait(ftc_net *net, MPI_Request *request)
{
    for (;;) {
        int done = 0;
        int rc = MPI_Test(request, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || done)
            return net->stopped ? net->failed : rc;
        if (!net->stopped)
            stopped(net);   /* then the request completes, with an error */
        ftc_net_nap();
    }
}

int ftc_net_quiesce(ftc_net *net)
{
    int rc = ftc_net_flush(net);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Barrier(net->comm);
    for (int quiet = 0; quiet < 5 && rc == MPI_SUCCESS; quiet++) {
        const int before = net->nheld;
        rc = receive_arrivals(net);
        if (net->nheld > before)
            quiet = -1;   /* something came: look again until five quiet polls */
        else
            ftc_net_nap();
    }
    for (int i = 0; i < net->nheld; i++)
        free(net->held[i].bytes);
    net->nheld = 0;
    return rc;
}

int ftc_net_allgather(const void *mine, int count, MPI_Datatype type, void *all, ftc_net *net)
{
    if (net->stopped)
        return net->failed;   /* the others stop too: nobody waits for this one */
    MPI_Request request;
    int rc = PMPI_Iallgather(mine, count, type, all, count, type, net->comm, &request);
    return rc == MPI_SUCCESS ? ftc_net_wait(net, &request) : rc;
}
