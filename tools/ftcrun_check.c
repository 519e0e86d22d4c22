/*
 * ftcrun-check: checks one ftcrun setting before anything is launched, with
 * the parsers the library itself uses (no MPI).
 *
 *   ftcrun-check inject|guard|watchdog|allgather|allgatherv|gather|scatter|bcast|tree TEXT
 *   ftcrun-check topology FILE      (prints the file's number of ranks)
 *
 * Exit 0 when TEXT is valid; else 1, the reason on stderr.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "allgather/algorithms.h"
#include "gather/algorithms.h"
#include "scatter/algorithms.h"
#include "guard/settings.h"
#include "inject.h"
#include "bcast/trees/settings.h"
#include "bcast/trees/topology.h"

static int check_allgather(const char *text, char *why, size_t why_size)
{
    if (strcmp(text, "auto") == 0)
        return 1;
    for (int id = 1; id < FTC_ALLGATHER_ALGORITHM_COUNT; id++)
        if (strcmp(text, ftc_allgather_info_of((ftc_allgather_algorithm)id)->name) == 0)
            return 1;
    int n = snprintf(why, why_size, "unknown allgather algorithm \"%s\" (expected auto", text);
    for (int id = 1; id < FTC_ALLGATHER_ALGORITHM_COUNT && n > 0 && (size_t)n < why_size; id++)
        n += snprintf(why + n, why_size - (size_t)n, ", %s",
                      ftc_allgather_info_of((ftc_allgather_algorithm)id)->name);
    if (n > 0 && (size_t)n < why_size)
        snprintf(why + n, why_size - (size_t)n, ")");
    return 0;
}

/* `known` (the name parsed), or 0 with why naming the valid ones. */
static int named(bool known, const char *collective, const char *text,
                 void (*list_names)(char *out, size_t size), char *why, size_t why_size)
{
    if (known)
        return 1;
    char valid[256];
    list_names(valid, sizeof(valid));
    snprintf(why, why_size, "unknown %s algorithm \"%s\" (expected %s)", collective, text, valid);
    return 0;
}

static int check_allgatherv(const char *text, char *why, size_t why_size)
{
    ftc_allgatherv_algorithm alg;
    return named(ftc_allgatherv_parse_name(text, &alg), "allgatherv", text,
                 ftc_allgatherv_list_names, why, why_size);
}

static int check_gather(const char *text, char *why, size_t why_size)
{
    ftc_gather_algorithm alg;
    return named(ftc_gather_parse_name(text, &alg), "gather", text, ftc_gather_list_names, why,
                 why_size);
}

static int check_scatter(const char *text, char *why, size_t why_size)
{
    ftc_scatter_algorithm alg;
    return named(ftc_scatter_parse_name(text, &alg), "scatter", text, ftc_scatter_list_names,
                 why, why_size);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: ftcrun-check inject|guard|watchdog|allgather|allgatherv|gather|scatter|bcast|tree TEXT\n"
                        "       ftcrun-check topology FILE\n");
        return 2;
    }
    const char *what = argv[1], *text = argv[2];
    char why[512] = "";
    int ok;
    if (strcmp(what, "inject") == 0) {
        ftc_inject_plan plan;
        ok = ftc_inject_parse(text, &plan, why, sizeof(why));
    } else if (strcmp(what, "guard") == 0) {
        ftc_guard_settings guard;
        ok = ftc_guard_settings_parse(text, &guard, why, sizeof(why));
    } else if (strcmp(what, "watchdog") == 0) {
        ftc_watchdog_settings watchdog;
        ok = ftc_watchdog_settings_parse(text, &watchdog, why, sizeof(why));
    } else if (strcmp(what, "allgather") == 0) {
        ok = check_allgather(text, why, sizeof(why));
    } else if (strcmp(what, "allgatherv") == 0) {
        ok = check_allgatherv(text, why, sizeof(why));
    } else if (strcmp(what, "gather") == 0) {
        ok = check_gather(text, why, sizeof(why));
    } else if (strcmp(what, "scatter") == 0) {
        ok = check_scatter(text, why, sizeof(why));
    } else if (strcmp(what, "bcast") == 0) {
        ftc_bcast_alg alg;
        ok = ftc_bcast_alg_parse(text, &alg, why, sizeof(why));
    } else if (strcmp(what, "tree") == 0) {
        ftc_tree_settings tree;
        ok = ftc_tree_settings_parse(text, &tree, why, sizeof(why));
    } else if (strcmp(what, "topology") == 0) {
        ftc_topology topology;
        ok = ftc_topology_load(text, &topology, why, sizeof(why)) == 0;
        if (ok) {
            printf("%d\n", topology.nranks);
            ftc_topology_free(&topology);
        }
    } else {
        fprintf(stderr, "ftcrun-check: unknown setting \"%s\"\n", what);
        return 2;
    }
    if (!ok)
        fprintf(stderr, "%s\n", why);
    return ok ? 0 : 1;
}
