/*
 * Bruck's allgather as a plan (schedule.h): pure, no MPI. It lives below
 * the collectives because the fault-tolerance layer runs it too (the
 * survivors' records, ft/meeting.c), and that layer must not depend on
 * src/allgather/.
 */
#ifndef FTCOLL_PLANS_BRUCK_H
#define FTCOLL_PLANS_BRUCK_H

#include <stdbool.h>

#include "../schedule.h"

/* Fills `s`, initialised for (rank, p), with Bruck's steps; slot j of rank r
 * holds block (r + j) mod p (s->rotation = r). False only when out of memory. */
bool ftc_plan_bruck(ftc_schedule *s);

#endif
