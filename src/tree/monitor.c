/* The latency monitor: probes, then publication; see monitor.h. */
#include "monitor.h"

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
    double *best_rtt;     /* n: fastest round trip to each probed higher rank */
    int *pongs;           /* n: answers still awaited from each higher rank */
    int awaited;          /* Pongs still to come, Pings still to answer */
} probe_state;

static void send_kind(ftc_net *net, int kind, int to, double value, double value2)
{
    ftc_msg msg = ftc_msg_make(kind, net->rank, to);
    msg.value = value;
    msg.value2 = value2;   /* pong: when the ping came */
    ftc_net_send(net, &msg);
}

static void on_probe_message(ftc_net *net, const ftc_msg *msg, probe_state *state,
                             const ftc_tree_settings *settings, double *row)
{
    switch (msg->kind) {
    case FTC_MSG_PING:   /* echo when the ping left and when it came */
        send_kind(net, FTC_MSG_PONG, msg->from, msg->sent, msg->arrived);
        state->awaited--;
        break;
    case FTC_MSG_PONG: {
        /* NTP's rule: the time the ping waited at the other end before the
         * answer left is not the network's */
        const double rtt = (msg->arrived - msg->value) - (msg->sent - msg->value2);
        if (rtt < state->best_rtt[msg->from])
            state->best_rtt[msg->from] = rtt;
        state->awaited--;
        if (--state->pongs[msg->from] == 0)
            row[msg->from] = state->best_rtt[msg->from] > 0 ? state->best_rtt[msg->from] / 2 : 0;
        break;
    }
    default:
        break;
    }
    (void)settings;
}

/* This rank's row: the latency to every probed rank, NAN elsewhere. */
static int measure_row(ftc_net *net, const ftc_tree_settings *settings, const int *site_of,
                       double *row)
{
    const int n = net->size, self = net->rank;
    probe_state state = {calloc((size_t)n, sizeof(double)), calloc((size_t)n, sizeof(int)), 0};
    if (!state.best_rtt || !state.pongs) {
        free(state.best_rtt);
        free(state.pongs);
        return MPI_ERR_NO_MEM;
    }
    for (int j = 0; j < n; j++) {
        row[j] = j == self ? 0.0 : NAN;
        state.best_rtt[j] = INFINITY;
        if (j == self || !probed(settings, n, site_of, self, j))
            continue;
        if (j > self) {
            state.pongs[j] = settings->pings;
            state.awaited += settings->pings;
            for (int k = 0; k < settings->pings; k++)
                send_kind(net, FTC_MSG_PING, j, 0, 0);
        } else {
            state.awaited += settings->pings;   /* j's Pings, to answer */
        }
    }
    int rc = MPI_SUCCESS;
    while (state.awaited > 0 && rc == MPI_SUCCESS) {
        ftc_msg msg;
        rc = ftc_net_next(net, &msg);
        if (rc == MPI_SUCCESS)
            on_probe_message(net, &msg, &state, settings, row);
    }
    free(state.best_rtt);
    free(state.pongs);
    if (rc == MPI_SUCCESS)
        rc = ftc_net_flush(net);
    return rc;
}

/* Each pair as its lower rank measured it; unprobed pairs as their sites'
 * representatives. */
static void complete_matrix(int n, const int *site_of, double *matrix)
{
    for (int a = 0; a < n; a++) {
        matrix[a * n + a] = 0.0;
        for (int b = a + 1; b < n; b++)
            matrix[b * n + a] = matrix[a * n + b];
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
                        double *matrix)
{
    const int n = net->size;
    double *row = malloc((size_t)n * sizeof *row);
    if (!row)
        return MPI_ERR_NO_MEM;
    int rc = measure_row(net, settings, site_of, row);
    /* Everyone joins the publication even after a local failure, so nobody
     * waits for it alone; the caller agrees on the outcome. */
    const int rc2 = PMPI_Allgather(row, n, MPI_DOUBLE, matrix, n, MPI_DOUBLE, net->comm);
    free(row);
    if (rc == MPI_SUCCESS)
        rc = rc2;
    if (rc == MPI_SUCCESS)
        complete_matrix(n, site_of, matrix);
    return rc;
}
