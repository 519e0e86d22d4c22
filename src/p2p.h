/*
 * The point-to-point layer every message of ftcoll goes through.
 *
 * The rule: a message is posted, probed and taken in here only
 * (ftc_p2p_isend, _irecv, _iprobe, _recv), its tag is one of the enum
 * below, and a transfer stopped before it completed is cancelled or
 * released here only (ftc_p2p_abandon, ftc_p2p_retract): no other file
 * calls MPI_Isend, MPI_Irecv, MPI_Iprobe, MPI_Recv, MPI_Cancel or
 * MPI_Request_free. A request may be completed anywhere with an MPI_Test*
 * poll or an MPI_Wait on that one request; a blocking wait on several goes
 * through ftc_p2p_waitall / ftc_p2p_waitany, never MPI_Waitall / _Waitany /
 * _Waitsome (why: below). Not messages, so not here: the collectives
 * ftcoll calls inside itself (PMPI_Barrier, MPIX_Comm_agree, ...), and
 * buffer.c's empty MPI_Send to MPI_PROC_NULL, which sends nothing and only
 * asks Open MPI whether a datatype is committed.
 *
 * It forwards to MPI_, not PMPI_: the PMPI layer (src/pmpi/) defines no
 * point-to-point function, so both names reach the same one in libftcoll
 * and in libftcoll-pmpi.
 */
#ifndef FTCOLL_P2P_H
#define FTCOLL_P2P_H

#include <stdbool.h>

#include <mpi.h>

/* Every tag of ftcoll's messages, on its private communicators: each is
 * distinct from the others, so no two kinds of message can match each other
 * whichever communicator they share, and all stay below MPI's minimum tag
 * bound, 32767. The fault-tolerant engine's failure-free attempts carry the
 * call's number (a window of calls wide, FTCOLL_TAG_WINDOW); a meeting's
 * messages have tags of their own, as each meeting opens a new communicator
 * (ft/ft.h). The tree broadcast's messages travel on its own duplicate of
 * the communicator (bcast/adaptive_config.c). */
enum {
    FTC_TAG_SENTINEL = 7002,          /* never sent: a wildcard receive that ULFM fails */
    FTC_TAG_GUARD_UP = 7003,          /* check-in reports, child to parent */
    FTC_TAG_GUARD_DOWN = 7004,        /* the decision, parent to child */
    FTC_TAG_FT_RECORDS = 7005,        /* a meeting: where each survivor is */
    FTC_TAG_FT_REDUCE = 7006,         /* a recovery round: values among the masters */
    FTC_TAG_FT_HANDOUT = 7007,        /* a recovery round: the result to the others */
    FTC_TAG_FT_BLOCKS = 7008,         /* a recovery round: blocks routed each to one rank */
    FTC_TAG_TREE_MSG = 7101,          /* the tree algorithms' messages (bcast/trees/net.c):
                                       * probes, GHS, the adaptation */
    FTC_TAG_TREE_DATA = 7102,         /* a tree broadcast's data, parent to child */
    FTC_TAG_TREE_STAMP = 7103,        /* its send time, just before the data */
    FTC_TAG_ALLREDUCE_BASE = 8192,    /* + call number mod the window (at most 16384):
                                       * below MPI's minimum tag bound, 32767 */
};

int ftc_p2p_isend(const void *buf, int count, MPI_Datatype type, int peer, int tag,
                  MPI_Comm comm, MPI_Request *request);
int ftc_p2p_irecv(void *buf, int count, MPI_Datatype type, int peer, int tag,
                  MPI_Comm comm, MPI_Request *request);

/* MPI_Iprobe and MPI_Recv: a message taken in once it is known to have
 * arrived (the tree transport's, whose sizes vary), so the receive never
 * blocks for long. */
int ftc_p2p_iprobe(int peer, int tag, MPI_Comm comm, int *arrived, MPI_Status *status);
int ftc_p2p_recv(void *buf, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                 MPI_Status *status);
/*
 * MPI_Waitall and MPI_Waitany, polled with MPI_Testall / MPI_Testany under
 * ULFM. Open MPI 5.0.7's blocking waits attach every request to a
 * synchronisation object on the waiting call's stack; when the wait
 * returns on a process failure, a request still pending (a receive from a
 * live peer, or the failure sentinel, MPIX_ERR_PROC_FAILED_PENDING) stays
 * attached, and when it completes later (cancelled at the next epoch) MPI
 * writes a count and an error code into whatever frame lies there by then:
 * a survivor's own locals, silently corrupted. The test calls attach
 * nothing. Both spin the same progress engine.
 */
int ftc_p2p_waitall(int n, MPI_Request *requests, MPI_Status *statuses);
int ftc_p2p_waitany(int n, MPI_Request *requests, int *index, MPI_Status *status);

/*
 * A transfer stopped before it completed (a failure, a timeout): a receive
 * is cancelled and waited for, so that it writes nothing into its buffer
 * later (one whose message already came completes instead); a send is
 * released, MPI finishing it on its own, so the caller must not touch its
 * buffer while a receive may still take it. A null request is left alone;
 * the request is null afterwards.
 */
void ftc_p2p_abandon(MPI_Request *request, bool is_receive);

/*
 * A receive that may never complete, even cancelled (ULFM keeps a wildcard
 * receive a failure has fired pending until the failure is acknowledged):
 * cancelled if that completes at once, released otherwise; never waits.
 * The request is null afterwards.
 */
void ftc_p2p_retract(MPI_Request *receive);

/* Whether `rc` says a process failed (with ULFM: a peer's failure, one not
 * yet acknowledged, or a revoked communicator); false without ULFM. */
bool ftc_p2p_is_process_failure(int rc);

#endif
