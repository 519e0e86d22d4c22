/*
 * The messages of the tree algorithms: GHS construction (ghs.c), adaptation
 * (adapt.c), the latency monitor and the broadcast itself. One struct for
 * all, so the simulator of the unit tests and the MPI transport carry any
 * of them the same way; the counts by kind are what the experiments report.
 * Pure C, no MPI.
 */
#ifndef FTCOLL_BCAST_TREES_MSG_H
#define FTCOLL_BCAST_TREES_MSG_H

#include <stdint.h>

#include "weight.h"

typedef enum {
    /* building the MST: GHS (ghs.h) */
    FTC_MSG_CONNECT,
    FTC_MSG_INITIATE,
    FTC_MSG_TEST,
    FTC_MSG_ACCEPT,
    FTC_MSG_REJECT,
    FTC_MSG_REPORT,
    FTC_MSG_CHANGE_ROOT,
    FTC_MSG_GOSLEEP,
    /* repairing it as latencies change, and knowing when that is done (adapt.h) */
    FTC_MSG_PRIVILEGE,     /* the next change's turn */
    FTC_MSG_FAILURE,       /* a tree channel got slower: to the child side */
    FTC_MSG_REIDEN,        /* the cut-off fragment learns its new identity */
    FTC_MSG_REIDEN_ACK,    /* ... and its members, back to its root */
    FTC_MSG_FINDMOE,       /* find the fragment's minimum outgoing edge */
    FTC_MSG_MOE_REPORT,    /* the best outgoing edge below, up to the root */
    FTC_MSG_MOE_CHANGE,    /* towards the chosen edge, turning parents round */
    FTC_MSG_MOE_CONNECT,   /* across the chosen edge */
    FTC_MSG_DETACH,        /* to the old parent of the cut-off fragment */
    FTC_MSG_ID_CHECK,      /* a channel off the tree got faster: to its other end */
    FTC_MSG_RECOVERY,      /* up from both ends: the heaviest edge on the way */
    FTC_MSG_REPLACE,       /* down to the heaviest edge of the cycle: drop it */
    FTC_MSG_REPLACE_CONNECT, /* the faster channel joins the tree */
    FTC_MSG_GOSLEEP_REC,   /* every change handled: the tree may be used */
    /* the latency monitor */
    FTC_MSG_PING,
    FTC_MSG_PONG,
    /* the broadcast's data */
    FTC_MSG_BCAST,
    FTC_MSG_KINDS
} ftc_msg_kind;

/* "Initiate", "Test", ...: the names the experiments' tables and
 * ftc_bcast_message_name print. */
const char *ftc_msg_kind_name(ftc_msg_kind kind);

/* Fields a kind does not use are left zero. `words` points at `nwords`
 * 64-bit words of payload (a member bitmap, a list of changes), owned by
 * the sender until the send callback returns. */
typedef struct {
    int kind;
    int from, to;
    int level;            /* GHS fragment level */
    int state;            /* GHS Initiate's Find / Found */
    int step;             /* adaptation: which change this message handles */
    int flag;             /* kind-specific */
    int a, b;             /* adaptation: two ranks, in the order the kind says */
    ftc_weight fid;       /* fragment identity (its core edge) */
    ftc_weight w;         /* the weight carried: best outgoing, heaviest, ... */
    ftc_weight w2;        /* a second one: the changed edge, ... */
    double value;         /* latency: the measurement; pong: when the ping was sent */
    double value2;        /* pong: when the ping arrived */
    double sent;          /* set by the transport: when it was sent */
    double arrived;       /* set by the transport: when the network delivered it */
    int nwords;
    const uint64_t *words;
} ftc_msg;

/* A message of `kind` from `from` to `to`, every other field zero. */
ftc_msg ftc_msg_make(int kind, int from, int to);

/* How a state machine sends: the simulator queues, the MPI transport sends. */
typedef void (*ftc_send_fn)(void *ctx, const ftc_msg *msg);

#endif
