/*
 * A simulator for allgather schedules: runs the schedules of all p ranks
 * against each other, step by step, with no MPI, and reports the first rule
 * they break (see schedule.h for the rules).
 */
#ifndef FTCOLL_TEST_SIMULATE_H
#define FTCOLL_TEST_SIMULATE_H

#include <stdbool.h>

#include "ftcoll.h"
#include "schedule.h"

typedef struct {
    bool ok;
    char why[256];      /* the broken rule, with rank / step / peer, when !ok */
    int steps;          /* most steps any rank has */
    long messages;      /* total messages sent by all ranks */
    long blocks_moved;  /* total blocks sent by all ranks */
    bool rewrites_held_blocks; /* some rank's plan declares it */
} simulation;

/* Plans every rank with `alg` and simulates them. */
simulation simulate_allgather(ftc_allgather_algorithm alg, int p);

/* Simulates hand-made schedules, one per rank (plans[r] is rank r's). */
simulation simulate_schedules(ftc_schedule *plans, int p);

#endif
