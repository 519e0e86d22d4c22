/* The latency monitor: probes, then publication; see monitor.h. */
#include "monitor.h"

#include "shape.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The first rank of each rank's site: the clique's representative. */
static int site_leader(int n, const int *site_of, int rank)
{
    for (int r = 0; r < n; r++)
        if (site_of[r] == site_of[rank])
            return r;
    return rank;
}

static int probed(const ftc_tree_settings *settings, int n, const int *site_of, int a, int b)
{
    if (!settings->probe_cliques || !site_of)
        return 1;
    if (site_of[a] == site_of[b])
        return 1;
    return site_leader(n, site_of, a) == a && site_leader(n, site_of, b) == b;
}

typedef struct {
    int round;            /* the measurement's number */
    double *best_rtt;     /* n: fastest round trip this round, to each higher rank */
    double *late_rtt;     /* n: from a Pong of an earlier round that came now */
    int pongs_left;       /* answers still awaited (round numbers: awaited probes
                           * carry the measurement's, the others its negative) */
    int pings_left;       /* awaited Pings from lower ranks still to answer */
} probe_state;

static void send_probe(ftc_net *net, int kind, int to, int round, double value, double value2)
{
    ftc_msg msg = ftc_msg_make(kind, net->rank, to);
    msg.step = round;
    msg.value = value;
    msg.value2 = value2;   /* pong: when the ping came */
    ftc_net_send(net, &msg);
}

/* Pings are answered whatever their round, and a Pong of an earlier round
 * still measures its channel: a slow channel's answer may come one or more
 * measurements late. */
static void on_probe_message(ftc_net *net, const ftc_msg *msg, probe_state *state)
{
    const int current = msg->step == state->round;   /* awaited, of this measurement */
    switch (msg->kind) {
    case FTC_MSG_PING:   /* echo when the ping left and when it came */
        send_probe(net, FTC_MSG_PONG, msg->from, msg->step, msg->sent, msg->arrived);
        state->pings_left -= current;
        break;
    case FTC_MSG_PONG: {
        /* NTP's rule: the time the ping waited at the other end before the
         * answer left is not the network's */
        const double rtt = (msg->arrived - msg->value) - (msg->sent - msg->value2);
        const int this_round = current || msg->step == -state->round;
        double *best = this_round ? &state->best_rtt[msg->from] : &state->late_rtt[msg->from];
        if (rtt < *best)
            *best = rtt;
        if (current)
            state->pongs_left--;
        break;
    }
    default:
        break;
    }
}

/* The slowest channel of the MST of the known latencies: every pair of
 * ranks is joined by channels no slower than it. */
static double bottleneck(int n, const double *current)
{
    unsigned char *tree = malloc((size_t)n * (size_t)n);
    double slowest = 0;
    if (!tree || ftc_tree_prim(n, current, tree) != 0) {
        for (int i = 0; i < n * n; i++)   /* no memory: every channel */
            slowest = current[i] > slowest ? current[i] : slowest;
    } else {
        for (int i = 0; i < n * n; i++)
            if (tree[i] && current[i] > slowest)
                slowest = current[i];
    }
    free(tree);
    return slowest;
}

/* Which channels a measurement waits for: those no slower than the MST's
 * slowest channel (every channel of the MST, and every channel that could
 * join it by getting faster, answers in that time or has got slower). The
 * others are probed too, but their answers are taken when they come, in
 * this measurement or a later one, instead of making every rank wait for
 * them (a channel gone from 15 ms to 7 s would cost 14 s a measurement).
 * The first measurement, knowing nothing, waits for every channel. */
static int awaited(const double *current, double expected, int n, int a, int b)
{
    return !current || current[a * n + b] <= expected;
}

/* The row's value for higher rank j once the measurement ends: this
 * measurement's answer, or a late one, or no news (NAN: the known latency
 * stands). */
static double latency_found(const probe_state *state, int j)
{
    if (!isinf(state->best_rtt[j]))
        return state->best_rtt[j] / 2;
    if (!isinf(state->late_rtt[j]))
        return state->late_rtt[j] / 2;
    return NAN;
}

/* This rank's row: the latency to every probed rank, NAN elsewhere. */
static int measure_row(ftc_net *net, const ftc_tree_settings *settings, const int *site_of,
                       const double *current, int round, double *row)
{
    const int n = net->size, self = net->rank;
    probe_state state = {round, malloc((size_t)n * sizeof(double)),
                         malloc((size_t)n * sizeof(double)), 0, 0};
    if (!state.best_rtt || !state.late_rtt) {
        free(state.best_rtt);
        free(state.late_rtt);
        return MPI_ERR_NO_MEM;
    }
    const double expected = current ? bottleneck(n, current) : INFINITY;
    for (int j = 0; j < n; j++) {
        row[j] = j == self ? 0.0 : NAN;
        state.best_rtt[j] = state.late_rtt[j] = INFINITY;
        if (j == self || !probed(settings, n, site_of, self, j))
            continue;
        const int wait = awaited(current, expected, n, self, j);
        if (j > self) {
            state.pongs_left += wait ? settings->pings : 0;
            for (int k = 0; k < settings->pings; k++)
                send_probe(net, FTC_MSG_PING, j, wait ? round : -round, 0, 0);
        } else {
            state.pings_left += wait ? settings->pings : 0;
        }
    }
    int rc = MPI_SUCCESS;
    while ((state.pongs_left > 0 || state.pings_left > 0) && rc == MPI_SUCCESS) {
        ftc_msg msg;
        rc = ftc_net_next(net, &msg);
        if (rc == MPI_SUCCESS)
            on_probe_message(net, &msg, &state);
    }
    for (int j = self + 1; j < n; j++)
        if (probed(settings, n, site_of, self, j))
            row[j] = latency_found(&state, j);
    free(state.best_rtt);
    free(state.late_rtt);
    if (rc == MPI_SUCCESS)
        rc = ftc_net_flush(net);
    return rc;
}

/* Each pair as its lower rank measured it; unprobed pairs as their sites'
 * representatives. */
static void complete_matrix(const ftc_tree_settings *settings, int n, const int *site_of,
                            const double *current, double *matrix)
{
    for (int a = 0; a < n; a++) {
        matrix[a * n + a] = 0.0;
        for (int b = a + 1; b < n; b++) {
            if (isnan(matrix[a * n + b]) && current && probed(settings, n, site_of, a, b))
                matrix[a * n + b] = current[a * n + b];   /* probed, no answer yet */
            matrix[b * n + a] = matrix[a * n + b];
        }
    }
    for (int a = 0; a < n; a++) {
        for (int b = 0; b < n; b++) {
            if (!isnan(matrix[a * n + b]) || !site_of)
                continue;
            const int la = site_leader(n, site_of, a), lb = site_leader(n, site_of, b);
            matrix[a * n + b] = matrix[la * n + lb];
        }
    }
}

int ftc_monitor_measure(ftc_net *net, const ftc_tree_settings *settings, const int *site_of,
                        const double *current, int round, double *matrix)
{
    const int n = net->size;
    double *row = malloc((size_t)n * sizeof *row);
    if (!row)
        return MPI_ERR_NO_MEM;
    int rc = measure_row(net, settings, site_of, current, round, row);
    /* Everyone joins the publication even after a local failure, so nobody
     * waits for it alone; the caller agrees on the outcome. */
    const int rc2 = ftc_net_allgather(row, n, MPI_DOUBLE, matrix, net);
    free(row);
    if (rc == MPI_SUCCESS)
        rc = rc2;
    if (rc == MPI_SUCCESS)
        complete_matrix(settings, n, site_of, current, matrix);
    return rc;
}
