/*
 * Allgather, two processes: one exchange.
 *
 *   0:[a .]  <── b ──  1:[. b]
 *   0:[a .]  ── a ──>  1:[. b]      both end with [a b]
 *
 * Cost: alpha + n beta — the lower bound.
 * Why pick it: p = 2, always. Other p: the decision table's choice (Open MPI
 * returns MPI_ERR_UNSUPPORTED_OPERATION there), chosen in registry.c.
 */
#include "algorithms.h"

bool ftc_allgather_plan_two_proc(ftc_schedule *s)
{
    if (s->size == 2) {
        const int peer = s->rank ^ 1;
        ftc_schedule_step(s);
        ftc_schedule_exchange(s, peer, s->rank, peer, 1);
    }
    return ftc_schedule_ok(s);
}
