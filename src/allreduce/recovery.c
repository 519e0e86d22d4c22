#include "recovery.h"

#include <stdlib.h>
#include <string.h>

static bool strictly_inside(const ftc_holdings *inner, const ftc_holdings *outer)
{
    return ftc_holdings_subset(inner, outer) && !ftc_holdings_equal(inner, outer);
}

/* Nested or disjoint, for every pair of survivors. */
static bool holdings_are_laminar(int size, const bool *alive, const ftc_holdings *held)
{
    for (int a = 0; a < size; a++) {
        for (int b = a + 1; b < size && alive[a]; b++) {
            if (!alive[b] || ftc_holdings_disjoint(&held[a], &held[b]))
                continue;
            if (!ftc_holdings_subset(&held[a], &held[b])
                && !ftc_holdings_subset(&held[b], &held[a]))
                return false;
        }
    }
    return true;
}

/* A master: no survivor holds more, and no lower survivor holds the same. */
static bool is_master(int r, int size, const bool *alive, const ftc_holdings *held)
{
    for (int other = 0; other < size; other++) {
        if (!alive[other] || other == r)
            continue;
        if (strictly_inside(&held[r], &held[other]))
            return false;
        if (other < r && ftc_holdings_equal(&held[r], &held[other]))
            return false;
    }
    return true;
}

static int master_containing(const ftc_recovery_plan *plan, const ftc_holdings *held, int r)
{
    for (int i = 0; i < plan->nmasters; i++)
        if (ftc_holdings_subset(&held[r], &held[plan->masters[i]]))
            return plan->masters[i];
    return -1;   /* unreachable for laminar holdings */
}

static bool allocate(ftc_recovery_plan *plan, int size)
{
    memset(plan, 0, sizeof(*plan));
    plan->size = size;
    plan->masters = malloc(sizeof(int) * (size_t)(size > 0 ? size : 1));
    plan->master_of = malloc(sizeof(int) * (size_t)(size > 0 ? size : 1));
    bool ok = plan->masters && plan->master_of;
    ok = ftc_holdings_init(&plan->result, size) && ok;
    ok = ftc_holdings_init(&plan->lost, size) && ok;
    return ok;
}

ftc_plan_status ftc_recovery_plan_build(ftc_recovery_plan *plan, int size, const bool *alive,
                                        const ftc_holdings *held)
{
    if (!allocate(plan, size))
        return FTC_PLAN_NO_MEMORY;
    if (!holdings_are_laminar(size, alive, held))
        return FTC_PLAN_NOT_LAMINAR;
    for (int r = 0; r < size; r++) {
        if (!alive[r])
            continue;
        ftc_holdings_unite(&plan->result, &held[r]);
        if (is_master(r, size, alive, held))
            plan->masters[plan->nmasters++] = r;
    }
    if (plan->nmasters == 0)
        return FTC_PLAN_NO_SURVIVOR;
    for (int r = 0; r < size; r++)
        plan->master_of[r] = alive[r] ? master_containing(plan, held, r) : -1;
    for (int r = 0; r < size; r++)
        if (!ftc_holdings_has(&plan->result, r))
            ftc_holdings_add(&plan->lost, r);
    plan->complete = plan->nmasters == 1;
    return FTC_PLAN_OK;
}

void ftc_recovery_plan_destroy(ftc_recovery_plan *plan)
{
    free(plan->masters);
    free(plan->master_of);
    ftc_holdings_destroy(&plan->result);
    ftc_holdings_destroy(&plan->lost);
    memset(plan, 0, sizeof(*plan));
}

int ftc_recovery_block_sender(int size, const bool *participant, const ftc_holdings *held,
                              int destination, int owner)
{
    if (participant[destination] && ftc_holdings_has(&held[destination], owner))
        return -1;
    for (int q = 0; q < size; q++)
        if (q != destination && participant[q] && ftc_holdings_has(&held[q], owner))
            return q;
    return -1;
}

int ftc_recovery_pair_sender(int size, const bool *participant, const ftc_holdings *held,
                             int destination, int sender)
{
    if (sender < 0 || sender >= size || sender == destination || !participant[sender])
        return -1;
    if (participant[destination] && ftc_holdings_has(&held[destination], sender))
        return -1;
    return sender;
}
