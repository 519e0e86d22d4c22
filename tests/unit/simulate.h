/*
 * A simulator for allgather schedules: runs the schedules of all p ranks
 * against each other, step by step, with no MPI, and reports the first rule
 * they break (see schedule.h for the rules).
 */
#ifndef FTCOLL_TEST_SIMULATE_H
#define FTCOLL_TEST_SIMULATE_H

#include <stdbool.h>

#include "ftcoll.h"

typedef struct {
    bool ok;
    char why[256];      /* the broken rule, with rank / step / peer, when !ok */
    int steps;          /* most steps any rank has */
    long messages;      /* total messages sent by all ranks */
    long blocks_moved;  /* total blocks sent by all ranks */
    bool rewrites_own_block; /* some rank's plan declares it */
} simulation;

simulation simulate_allgather(ftc_allgather_algorithm alg, int p);

#endif
