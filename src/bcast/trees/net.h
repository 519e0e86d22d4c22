/*
 * The tree algorithms' messages over MPI, with an emulated network.
 *
 * Every message carries its send time. With a topology, the receiver holds
 * it until send time + the channel's latency (topology.h) before handing it
 * over, so a rank sees the messages in the order a wide-area network would
 * deliver them; the clock is CLOCK_MONOTONIC, shared by the processes of
 * one host (a tree broadcast refuses a topology over ranks on several
 * hosts). Without a topology, messages are handed over as they come.
 * Counts by kind are kept for the experiments' tables.
 */
#ifndef FTCOLL_BCAST_TREES_NET_H
#define FTCOLL_BCAST_TREES_NET_H

#include <mpi.h>

#include "msg.h"
#include "topology.h"

typedef struct ftc_net_held ftc_net_held;

typedef struct {
    MPI_Comm comm;                 /* the caller's (private) communicator */
    int rank, size;
    const ftc_topology *topology;  /* NULL: no emulation */
    int epoch;                     /* the broadcast number latencies are taken at */
    long counts[FTC_MSG_KINDS];
    ftc_net_held *held;            /* received, not yet due */
    int nheld, held_capacity;
    long arrivals;                 /* messages taken in: FIFO among equal due times */
    void *sends;                   /* sends in flight */
    int nsends, sends_capacity;
    uint64_t *words;               /* the last handed-over message's payload */
    int words_capacity;
    int failed;                    /* an MPI error, or stop's answer: every call fails
                                    * after it */
    /* Asked between polls (NULL: never): a non-zero answer stops every
     * wait with it. Before answering, stop must make every transfer in
     * flight on the communicator complete, here and on the other ranks
     * (ULFM: it revokes the communicator), so that a stopped wait can
     * still see its request complete before its buffers go, and nobody
     * waits for a rank that stopped. The fault-tolerant broadcast stops
     * the protocols there once a rank died. */
    int (*stop)(void *context);
    void *stop_context;
    int stopped;                   /* stop answered: no publication is joined any more */
} ftc_net;

/* Seconds on the clock the emulation shares. */
double ftc_net_now(void);

/* Sleeps until `when` (ftc_net_now's clock), a little at a time so that
 * 2 cores can run many ranks. */
void ftc_net_sleep_until(double when);

/* One pause of a polling loop (the transport's, the broadcast's). */
void ftc_net_nap(void);

/* MPI_Wait without spinning: polls with ftc_net_nap between, and asks
 * net->stop; stopped, it still waits for the request (which stop made
 * complete), then returns stop's answer. */
int ftc_net_wait(ftc_net *net, MPI_Request *request);

/* MPI_Allgather of `count` items each on the net's communicator, waited
 * for without spinning (a spinning rank starves the others of a busy host). */
int ftc_net_allgather(const void *mine, int count, MPI_Datatype type, void *all, ftc_net *net);

int ftc_net_init(ftc_net *net, MPI_Comm comm, const ftc_topology *topology);
void ftc_net_free(ftc_net *net);

/* The emulated one-way latency of channel (a, b) now (0 without topology). */
double ftc_net_latency(const ftc_net *net, int a, int b);

/* Sends (never blocks for the receiver); counts the kind. An ftc_send_fn. */
void ftc_net_send(void *net, const ftc_msg *msg);

/* The next message due here, waiting for it. Its words stay valid until the
 * next call. MPI_SUCCESS, or an MPI error class. */
int ftc_net_next(ftc_net *net, ftc_msg *out);

/* Waits for every send to complete (before the communicator is reused). */
int ftc_net_flush(ftc_net *net);

/* Before the communicator goes: every rank's sends complete, then the
 * messages nobody waited for (a slow channel's late probe answers) are taken
 * in and dropped, so that MPI frees no communicator with messages pending.
 * Collective. */
int ftc_net_quiesce(ftc_net *net);

#endif
