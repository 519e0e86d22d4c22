/*
 * The allgather algorithms, as planners: each fills a schedule (schedule.h)
 * for one rank, without MPI. One file per algorithm, named after it.
 *
 * A planner is called with a schedule already initialised for (rank, p) and
 * returns false only when it ran out of memory. It is called only for a p the
 * algorithm serves (see registry.c); p = 1 always gives an empty schedule.
 */
#ifndef FTCOLL_ALLGATHER_ALGORITHMS_H
#define FTCOLL_ALLGATHER_ALGORITHMS_H

#include <stdbool.h>
#include <stddef.h>

#include "ftcoll.h"
#include "../schedule.h"

bool ftc_allgather_plan_linear(ftc_schedule *s);
bool ftc_allgather_plan_bruck(ftc_schedule *s);
bool ftc_allgather_plan_recursive_doubling(ftc_schedule *s);
bool ftc_allgather_plan_ring(ftc_schedule *s);
bool ftc_allgather_plan_neighbor_exchange(ftc_schedule *s);
bool ftc_allgather_plan_two_proc(ftc_schedule *s);
bool ftc_allgather_plan_sparbit(ftc_schedule *s);

typedef bool (*ftc_allgather_planner)(ftc_schedule *s);

/* What ftcoll knows about each algorithm. */
typedef struct {
    ftc_allgather_algorithm id;
    const char *name;
    ftc_allgather_planner plan;
    bool (*serves)(int p);        /* can it run on p processes? */
    const char *needs;            /* what it needs, in words, when it cannot */
} ftc_allgather_info;

/* The entry for `id`, or NULL for FTC_ALLGATHER_AUTO / out of range. */
const ftc_allgather_info *ftc_allgather_info_of(ftc_allgather_algorithm id);

/*
 * The algorithm that really runs when `selected` is asked for on p processes
 * with blocks of block_bytes: `selected` itself, or its fallback for a p it
 * cannot serve (recursive doubling -> bruck, neighbor exchange -> ring,
 * two-proc -> the decision table; Open MPI's, so a setting means the same to
 * both libraries). When it falls back, `reason` (if not NULL)
 * says why, in words; otherwise it is set to "".
 */
ftc_allgather_algorithm ftc_allgather_resolve(ftc_allgather_algorithm selected, int p,
                                              size_t block_bytes, char *reason,
                                              size_t reason_size);

/* An allgatherv algorithm's name ("ring", Open MPI's "default", ...) or
 * number ("3"), into *out; false (nothing written) for anything else. */
bool ftc_allgatherv_parse_name(const char *text, ftc_allgatherv_algorithm *out);

/* "auto (0), linear (1), ...": the valid names, for messages. */
void ftc_allgatherv_list_names(char *out, size_t size);

/* The allgather plan an allgatherv algorithm runs (FTC_ALLGATHER_AUTO
 * for FTC_ALLGATHERV_AUTO or out of range). */
ftc_allgather_algorithm ftc_allgatherv_plan_of(ftc_allgatherv_algorithm id);

/* As ftc_allgather_resolve, for an allgatherv whose blocks come to
 * total_bytes: neighbor exchange -> ring, two-proc -> the decision table. */
ftc_allgatherv_algorithm ftc_allgatherv_resolve(ftc_allgatherv_algorithm selected, int p,
                                                size_t total_bytes, char *reason,
                                                size_t reason_size);

/* Builds the schedule of `id` (which must serve s->size) into s. */
bool ftc_allgather_build_plan(ftc_allgather_algorithm id, ftc_schedule *s);

#endif /* FTCOLL_ALLGATHER_ALGORITHMS_H */
