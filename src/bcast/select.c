#include "select.h"

#include <limits.h>

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
    static const ftc_decision_name names[] = {
        { "auto", FTC_BCAST_AUTO },
        { "binomial", BIN },
        { "scatter_ring", RING },
    };
    int value;
    if (!ftc_decision_parse_name(names, sizeof(names) / sizeof(names[0]), name, &value))
        return false;
    *out = (ftc_bcast_algorithm)value;
    return true;
}

bool ftc_bcast_confirmation_parse(const char *name, ftc_bcast_confirmation *out)
{
    static const ftc_decision_name names[] = {
        { "auto", FTC_BCAST_CONFIRM_AUTO },
        { "on", FTC_BCAST_CONFIRM_ON },
        { "off", FTC_BCAST_CONFIRM_OFF },
    };
    int value;
    if (!ftc_decision_parse_name(names, sizeof(names) / sizeof(names[0]), name, &value))
        return false;
    *out = (ftc_bcast_confirmation)value;
    return true;
}

bool ftc_bcast_confirms(size_t bytes, ftc_bcast_algorithm plan, ftc_bcast_confirmation setting,
                        bool processors_shared)
{
    if (bytes < FTC_BCAST_CONFIRM_BYTES || setting == FTC_BCAST_CONFIRM_OFF)
        return false;
    return setting == FTC_BCAST_CONFIRM_ON || processors_shared || plan == RING ||
           bytes > FTC_FT_KEPT_BYTES;
}
