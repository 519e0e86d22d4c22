/*
 * A protocol model, without MPI, of the fault-tolerant allreduce as
 * src/ft/ (ft.c, meeting.c, reconcile.c) and src/allreduce/ (ft_engine.c,
 * ft_recovery.c, recovery.c, recursive_doubling.c) implement it: p ranks,
 * each making two allreduce calls of different lengths, then
 * ftc_comm_survivors (settling, then a shrink) and ftc_comm_free, with
 * ranks killed at given instants of a schedule. The
 * model and what it checks are described in ft_model.c; the coverage in
 * test_ft_protocol.c.
 */
#ifndef FTCOLL_TEST_FT_MODEL_H
#define FTCOLL_TEST_FT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { FTM_MAX_P = 64, FTM_MAX_KILLS = 3, FTM_CALLS = 2 };

/* Who moves next among the events that can happen. */
typedef enum {
    FTM_ORDER_LOWEST,        /* the lowest rank that can move (it runs until it blocks) */
    FTM_ORDER_ROUND_ROBIN,   /* one event per rank in turn */
    FTM_ORDER_RANDOM,        /* any, uniformly; the network's choices random too */
} ftm_order;

/* When a survivor notices a failure, among the instants it may. */
typedef enum {
    FTM_DETECT_LATE,         /* only when nothing else can happen */
    FTM_DETECT_EARLY,        /* as soon as it may */
    FTM_DETECT_ANY,          /* like any other event */
} ftm_detect;

/* When the network completes a request it may complete later (random orders). */
typedef enum {
    FTM_NETWORK_ANY,         /* like any other event */
    FTM_NETWORK_SLOW,        /* only when no rank can move: long windows in which a
                              * receive is matched but not complete */
} ftm_network;

typedef struct {
    int victim;
    long after;              /* dies once this many events have happened */
} ftm_kill;

typedef struct {
    int p;
    int lengths[FTM_CALLS];  /* the calls' vector lengths */
    int window;              /* calls in the failure-free attempts' tag window */
    bool isolate_epochs;     /* false: the NEGATIVE control, a message of any epoch
                              * can be matched in any later one */
    bool survivors;          /* ftc_comm_survivors between the calls and ftc_comm_free */
    ftm_order prefix_order;  /* until the first death */
    ftm_order order;         /* from the first death on */
    ftm_detect detect;
    ftm_network network;
    uint32_t seed;           /* for FTM_ORDER_RANDOM (not 0) */
    int nkills;
    ftm_kill kills[FTM_MAX_KILLS];
} ftm_scenario;

/* What went wrong: the checks of ft_model.c. */
typedef enum {
    FTM_OK = 0,
    FTM_MATCHED_OTHER_CALL,  /* 1: a receive got a message of another call */
    FTM_MATCHED_OTHER_EPOCH, /* 1: ... of another epoch */
    FTM_MATCHED_WRONG,       /* 1: ... of another kind or length */
    FTM_COUNTED_TWICE,       /* 2 */
    FTM_WRONG_RESULT,        /* 3: a value other than S, different S, S too small */
    FTM_DEADLOCK,            /* 4 */
    FTM_UNBOUNDED,           /* 5: too many meetings or events */
    FTM_CODE_ERROR,          /* an error the code itself would raise */
    FTM_MODEL_ERROR,         /* the model's own limits and consistency */
} ftm_violation;

typedef struct {
    bool ok;
    ftm_violation violation; /* FTM_OK when ok */
    long events;             /* events the run took */
    int most_meetings;       /* by any one rank */
    int survivors;
    long unmatched;          /* messages left in the network: stranded by failures */
    long belief_differs;     /* times a value's data differed from its holdings when
                              * recorded (a diagnostic, not a failure by itself) */
    char why[512];           /* the first violation */
} ftm_outcome;

/* A scenario with the defaults: lengths 3 and 7, window 2, epochs isolated,
 * ftc_comm_survivors before ftc_comm_free, lowest-rank order, late
 * detection, no kill. */
ftm_scenario ftm_default(int p);

/*
 * Runs the scenario to its end and checks it. `trace`, if not NULL, gets
 * the schedule (every event, one a line), truncated to `room`.
 */
void ftm_run(const ftm_scenario *s, ftm_outcome *out, char *trace, size_t room);

/* "p=4 prefix=lowest order=random detect=any seed=7 kills=[r2@31]" */
void ftm_describe(const ftm_scenario *s, char *out, size_t room);

#endif
