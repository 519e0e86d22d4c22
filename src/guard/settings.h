/*
 * The guard's and the watchdog's settings as text (FTCOLL_GUARD,
 * FTCOLL_WATCHDOG, later ftcrun's --guard): comma-separated key=value
 * fields, or "off". Pure C.
 *
 *   FTCOLL_GUARD="every=1,timeout=30"      guard every collective, 30 s
 *   FTCOLL_GUARD="every=10"                every 10th, default timeout
 *   FTCOLL_GUARD="every=1,time-left=3600"  the job ends in an hour: each
 *                                          check-in waits at most 20% of
 *                                          the time left (and the timeout)
 *   FTCOLL_WATCHDOG="deadline=120,action=revoke"
 */
#ifndef FTCOLL_GUARD_SETTINGS_H
#define FTCOLL_GUARD_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "ftcoll.h"

#define FTC_GUARD_DEFAULT_TIMEOUT 60.0   /* seconds */

typedef struct {
    int every;          /* 0: off */
    double timeout;     /* seconds a rank waits at most for the decision */
    double time_left;   /* seconds left in the job when read (0: unknown) */
} ftc_guard_settings;

typedef struct {
    double deadline;    /* seconds per call; 0: off */
    ftc_watchdog_action action;
} ftc_watchdog_settings;

/* NULL or "" or "off": the defaults (off). On error, false and the reason. */
bool ftc_guard_settings_parse(const char *text, ftc_guard_settings *out, char *why,
                              size_t why_size);
bool ftc_watchdog_settings_parse(const char *text, ftc_watchdog_settings *out, char *why,
                                 size_t why_size);

/* The timeout of a check-in that starts `elapsed` seconds after the time
 * left was read: the timeout, or 20% of what is left if that is less. */
double ftc_guard_effective_timeout(const ftc_guard_settings *s, double elapsed);

#endif
