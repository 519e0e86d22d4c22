#include "select.h"

/* The first row whose bounds both hold decides; none: dissemination. */
static const struct {
    int min_procs;
    size_t min_bytes;
    ftc_bcast_algorithm algorithm;
} rules[] = {
    { 8, 12288, FTC_BCAST_SCATTER_RING },
};

ftc_bcast_algorithm ftc_bcast_decide(int p, size_t bytes)
{
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
        if (p >= rules[i].min_procs && bytes >= rules[i].min_bytes)
            return rules[i].algorithm;
    return FTC_BCAST_DISSEMINATION;
}
