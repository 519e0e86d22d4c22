/*
 * The allgather algorithms by number and name, what process counts each
 * serves, and the fallbacks for the counts it does not. Numbers, names and
 * fallbacks are those of Open MPI's coll_tuned, so that a setting runs the
 * same algorithm under both libraries and their timings compare.
 */
#include <stdio.h>
#include <string.h>

#include "algorithms.h"
#include "../decision.h"

static bool any_p(int p) { return p >= 1; }
static bool power_of_two_p(int p) { return ftc_is_power_of_two(p); }
static bool even_p_or_one(int p) { return p == 1 || p % 2 == 0; }
static bool exactly_two_p(int p) { return p == 2; }

static const ftc_allgather_info algorithms[FTC_ALLGATHER_ALGORITHM_COUNT] = {
    [FTC_ALLGATHER_LINEAR] = { FTC_ALLGATHER_LINEAR, "linear", ftc_allgather_plan_linear, any_p, "" },
    [FTC_ALLGATHER_BRUCK] = { FTC_ALLGATHER_BRUCK, "bruck", ftc_allgather_plan_bruck, any_p, "" },
    [FTC_ALLGATHER_RECURSIVE_DOUBLING] = { FTC_ALLGATHER_RECURSIVE_DOUBLING, "recursive_doubling",
        ftc_allgather_plan_recursive_doubling, power_of_two_p, "a power-of-two process count" },
    [FTC_ALLGATHER_RING] = { FTC_ALLGATHER_RING, "ring", ftc_allgather_plan_ring, any_p, "" },
    [FTC_ALLGATHER_NEIGHBOR_EXCHANGE] = { FTC_ALLGATHER_NEIGHBOR_EXCHANGE, "neighbor_exchange",
        ftc_allgather_plan_neighbor_exchange, even_p_or_one, "an even process count" },
    [FTC_ALLGATHER_TWO_PROC] = { FTC_ALLGATHER_TWO_PROC, "two_proc", ftc_allgather_plan_two_proc,
        exactly_two_p, "exactly 2 processes" },
    [FTC_ALLGATHER_SPARBIT] = { FTC_ALLGATHER_SPARBIT, "sparbit", ftc_allgather_plan_sparbit, any_p, "" },
};

const ftc_allgather_info *ftc_allgather_info_of(ftc_allgather_algorithm id)
{
    if ((int)id <= FTC_ALLGATHER_AUTO || (int)id >= FTC_ALLGATHER_ALGORITHM_COUNT)
        return NULL;
    return &algorithms[id];
}

/* The replacement for an algorithm that cannot serve p (as Open MPI's, see
 * above). */
static ftc_allgather_algorithm fallback_of(ftc_allgather_algorithm id, int p, size_t block_bytes)
{
    switch (id) {
    case FTC_ALLGATHER_RECURSIVE_DOUBLING: return FTC_ALLGATHER_BRUCK;
    case FTC_ALLGATHER_NEIGHBOR_EXCHANGE: return FTC_ALLGATHER_RING;
    default: return ftc_allgather_decide(p, block_bytes);
    }
}

/* Appends one "x needs y (p=..): using z" clause to the reason text. */
static void explain_fallback(char *reason, size_t reason_size, const ftc_allgather_info *from,
                             ftc_allgather_algorithm to, int p)
{
    if (!reason || reason_size == 0)
        return;
    const size_t used = strlen(reason);
    snprintf(reason + used, reason_size - used, "%s%s needs %s (p=%d): using %s",
             used ? "; " : "", from->name, from->needs, p, ftc_allgather_info_of(to)->name);
}

ftc_allgather_algorithm ftc_allgather_resolve(ftc_allgather_algorithm selected, int p,
                                              size_t block_bytes, char *reason, size_t reason_size)
{
    if (reason && reason_size)
        reason[0] = '\0';
    ftc_allgather_algorithm alg = selected;
    /* Each fallback serves more process counts than the one it replaces, so
     * this ends within two hops (two_proc -> recursive_doubling -> bruck). */
    for (int hop = 0; hop < FTC_ALLGATHER_ALGORITHM_COUNT; hop++) {
        const ftc_allgather_info *info = ftc_allgather_info_of(alg);
        if (info->serves(p))
            break;
        const ftc_allgather_algorithm next = fallback_of(alg, p, block_bytes);
        explain_fallback(reason, reason_size, info, next, p);
        alg = next;
    }
    return alg;
}

/* ---- the allgatherv's algorithms: its numbers, the same plans ---------------- */

static const ftc_decision_name v_names[] = {
    { "auto", FTC_ALLGATHERV_AUTO },
    { "linear", FTC_ALLGATHERV_LINEAR },
    { "bruck", FTC_ALLGATHERV_BRUCK },
    { "ring", FTC_ALLGATHERV_RING },
    { "neighbor_exchange", FTC_ALLGATHERV_NEIGHBOR_EXCHANGE },
    { "two_proc", FTC_ALLGATHERV_TWO_PROC },
    { "sparbit", FTC_ALLGATHERV_SPARBIT },
    /* Open MPI's spellings */
    { "ignore", FTC_ALLGATHERV_AUTO },
    { "default", FTC_ALLGATHERV_LINEAR },
    { "neighbor", FTC_ALLGATHERV_NEIGHBOR_EXCHANGE },
    { "two_procs", FTC_ALLGATHERV_TWO_PROC },
};

const char *ftc_allgatherv_algorithm_name(ftc_allgatherv_algorithm algorithm)
{
    if ((int)algorithm < 0 || (int)algorithm >= FTC_ALLGATHERV_ALGORITHM_COUNT)
        return NULL;
    return v_names[algorithm].name;   /* the first names are the canonical ones, in order */
}

bool ftc_allgatherv_parse_name(const char *text, ftc_allgatherv_algorithm *out)
{
    int value = 0;
    if (text[0] >= '0' && text[0] <= '9' && text[1] == '\0')   /* one digit */
        value = text[0] - '0';
    else if (!ftc_decision_parse_name(v_names, sizeof(v_names) / sizeof(v_names[0]), text,
                                      &value))
        return false;
    if (value >= FTC_ALLGATHERV_ALGORITHM_COUNT)
        return false;
    *out = (ftc_allgatherv_algorithm)value;
    return true;
}

void ftc_allgatherv_list_names(char *out, size_t size)
{
    if (size == 0)
        return;
    out[0] = '\0';
    for (int id = 0; id < FTC_ALLGATHERV_ALGORITHM_COUNT; id++) {
        const size_t used = strlen(out);
        snprintf(out + used, size - used, "%s%s (%d)", id ? ", " : "", v_names[id].name, id);
    }
}

ftc_allgather_algorithm ftc_allgatherv_plan_of(ftc_allgatherv_algorithm id)
{
    static const ftc_allgather_algorithm plans[FTC_ALLGATHERV_ALGORITHM_COUNT] = {
        [FTC_ALLGATHERV_AUTO] = FTC_ALLGATHER_AUTO,
        [FTC_ALLGATHERV_LINEAR] = FTC_ALLGATHER_LINEAR,
        [FTC_ALLGATHERV_BRUCK] = FTC_ALLGATHER_BRUCK,
        [FTC_ALLGATHERV_RING] = FTC_ALLGATHER_RING,
        [FTC_ALLGATHERV_NEIGHBOR_EXCHANGE] = FTC_ALLGATHER_NEIGHBOR_EXCHANGE,
        [FTC_ALLGATHERV_TWO_PROC] = FTC_ALLGATHER_TWO_PROC,
        [FTC_ALLGATHERV_SPARBIT] = FTC_ALLGATHER_SPARBIT,
    };
    return (int)id < 0 || (int)id >= FTC_ALLGATHERV_ALGORITHM_COUNT ? FTC_ALLGATHER_AUTO
                                                                     : plans[id];
}

ftc_allgatherv_algorithm ftc_allgatherv_resolve(ftc_allgatherv_algorithm selected, int p,
                                                size_t total_bytes, char *reason,
                                                size_t reason_size)
{
    if (reason && reason_size)
        reason[0] = '\0';
    ftc_allgatherv_algorithm alg = selected;
    /* two_proc -> the table's choice (perhaps neighbor exchange) -> ring */
    for (int hop = 0; hop < FTC_ALLGATHERV_ALGORITHM_COUNT; hop++) {
        const ftc_allgather_info *info = ftc_allgather_info_of(ftc_allgatherv_plan_of(alg));
        if (info->serves(p))
            break;
        const ftc_allgatherv_algorithm next = alg == FTC_ALLGATHERV_NEIGHBOR_EXCHANGE
            ? FTC_ALLGATHERV_RING : ftc_allgatherv_decide(p, total_bytes);
        explain_fallback(reason, reason_size, info, ftc_allgatherv_plan_of(next), p);
        alg = next;
    }
    return alg;
}

bool ftc_allgather_build_plan(ftc_allgather_algorithm id, ftc_schedule *s)
{
    return ftc_allgather_info_of(id)->plan(s);
}
