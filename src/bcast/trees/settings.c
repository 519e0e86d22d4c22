#define _POSIX_C_SOURCE 200809L /* strtok_r */
/* Parsing the tree broadcasts' settings; see settings.h. */
#include "settings.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const alg_names[FTC_BCAST_ALG_COUNT] = {
    [FTC_BCAST_ALG_AUTO] = "auto",         [FTC_BCAST_ALG_BINOMIAL] = "binomial",
    [FTC_BCAST_ALG_TWO_LEVEL] = "two-level", [FTC_BCAST_ALG_MST] = "mst",
    [FTC_BCAST_ALG_ECEF] = "ecef",         [FTC_BCAST_ALG_TREE] = "tree",
};

const char *ftc_bcast_alg_name(ftc_bcast_alg alg)
{
    return alg >= 0 && alg < FTC_BCAST_ALG_COUNT ? alg_names[alg] : NULL;
}

int ftc_bcast_alg_parse(const char *text, ftc_bcast_alg *alg, char *why, size_t why_size)
{
    *alg = FTC_BCAST_ALG_AUTO;
    if (!text || !*text)
        return 1;
    for (int i = 0; i < FTC_BCAST_ALG_COUNT; i++) {
        if (strcmp(text, alg_names[i]) == 0) {
            *alg = (ftc_bcast_alg)i;
            return 1;
        }
    }
    snprintf(why, why_size, "unknown broadcast algorithm '%s' (expected auto, binomial, "
             "two-level, mst, ecef or tree)", text);
    return 0;
}

void ftc_tree_settings_default(ftc_tree_settings *settings)
{
    settings->check_every = 0;
    settings->threshold = 0.0;
    settings->probe_cliques = 0;
    settings->pings = 3;
    settings->floor = 1e-6;
    settings->smooth = 1.0;   /* below any network: rounding only */
}

static int parse_number(const char *value, double low, double high, double *out)
{
    char *end;
    errno = 0;
    const double x = strtod(value, &end);
    if (end == value || *end || errno || !isfinite(x) || x < low || x > high)
        return 0;
    *out = x;
    return 1;
}

static int parse_item(const char *key, const char *value, ftc_tree_settings *s, char *why,
                      size_t why_size)
{
    double x;
    if (strcmp(key, "check") == 0 && parse_number(value, 0, 1e9, &x) && x == floor(x)) {
        s->check_every = (int)x;
        return 1;
    }
    if (strcmp(key, "threshold") == 0 && parse_number(value, 0, 1e6, &x)) {
        s->threshold = x / 100.0;
        return 1;
    }
    if (strcmp(key, "pings") == 0 && parse_number(value, 1, 100, &x) && x == floor(x)) {
        s->pings = (int)x;
        return 1;
    }
    if (strcmp(key, "floor") == 0 && parse_number(value, 0, 1e9, &x)) {
        s->floor = x * 1e-6;
        return 1;
    }
    if (strcmp(key, "smooth") == 0 && parse_number(value, 0, 1, &x) && x > 0) {
        s->smooth = x;
        return 1;
    }
    if (strcmp(key, "probe") == 0 && (strcmp(value, "all") == 0 || strcmp(value, "cliques") == 0)) {
        s->probe_cliques = strcmp(value, "cliques") == 0;
        return 1;
    }
    if (strcmp(key, "check") && strcmp(key, "threshold") && strcmp(key, "pings")
        && strcmp(key, "floor") && strcmp(key, "probe") && strcmp(key, "smooth"))
        snprintf(why, why_size, "unknown setting '%s' (expected check, threshold, probe, pings, "
                 "floor or smooth)", key);
    else
        snprintf(why, why_size, "bad value '%s' for %s (check: broadcasts, an integer >= 0; "
                 "threshold: percent >= 0; probe: all or cliques; pings: 1..100; floor: "
                 "microseconds >= 0; smooth: a weight in (0, 1])", value, key);
    return 0;
}

int ftc_tree_settings_parse(const char *text, ftc_tree_settings *settings, char *why,
                            size_t why_size)
{
    ftc_tree_settings_default(settings);
    if (!text || !*text)
        return 1;
    char copy[256];
    if (strlen(text) >= sizeof copy) {
        snprintf(why, why_size, "too long (%zu characters)", strlen(text));
        return 0;
    }
    strcpy(copy, text);
    char *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (!eq) {
            snprintf(why, why_size, "'%s' is not key=value", item);
            return 0;
        }
        *eq = '\0';
        if (!parse_item(item, eq + 1, settings, why, why_size))
            return 0;
    }
    return 1;
}
