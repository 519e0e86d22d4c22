#include "select.h"

#include <limits.h>
#include <string.h>

#include "../decision.h"
#include "../ft/reconcile.h"

#define BIN FTC_BCAST_DISSEMINATION
#define RING FTC_BCAST_SCATTER_RING
#define ELSE FTC_DECISION_ELSE

_Static_assert((FTC_FT_WINDOW & (FTC_FT_WINDOW - 1)) == 0,
               "token periods halve the window: it must be a power of two");

static const ftc_decision_row decision_table[] = {
    {       16, {{ELSE, BIN}} },
    {       32, {{1048576, BIN}, {ELSE, RING}} },
    {     1024, {{ELSE, BIN}} },
    {     2048, {{524288, BIN}, {ELSE, RING}} },
    { LONG_MAX, {{262144, BIN}, {ELSE, RING}} },
};

ftc_bcast_algorithm ftc_bcast_decide(int p, size_t bytes, ftc_bcast_algorithm forced)
{
    if (forced != FTC_BCAST_AUTO)
        return forced;
    return (ftc_bcast_algorithm)ftc_decision_look_up(
        decision_table, sizeof(decision_table) / sizeof(decision_table[0]), p, bytes, BIN);
}

bool ftc_bcast_algorithm_parse(const char *name, ftc_bcast_algorithm *out)
{
    static const struct {
        const char *name;
        ftc_bcast_algorithm algorithm;
    } names[] = {
        { "auto", FTC_BCAST_AUTO },
        { "binomial", BIN },
        { "scatter_ring", RING },
    };
    for (size_t i = 0; name && i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcmp(name, names[i].name) == 0) {
            *out = names[i].algorithm;
            return true;
        }
    }
    return false;
}

long ftc_bcast_token_period(size_t bytes)
{
    long period = FTC_FT_WINDOW;
    while (period > 1 && bytes > FTC_BCAST_KEPT_BYTES / (size_t)period)
        period /= 2;
    return period;
}
