/* Parsing FTCOLL_GUARD and FTCOLL_WATCHDOG (see settings.h). Pure C. */
#define _POSIX_C_SOURCE 200809L /* strdup, strtok_r */
#include "settings.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkin_tree.h"

static bool is_off(const char *text)
{
    while (isspace((unsigned char)*text))
        text++;
    return *text == '\0' || strcmp(text, "off") == 0 || strcmp(text, "0") == 0;
}

/* A finite number of seconds in [0, 1e9], nothing else. */
static bool parse_seconds(const char *text, double *out)
{
    char *end = NULL;
    errno = 0;
    const double value = strtod(text, &end);
    if (end == text || *end != '\0' || errno != 0 || !isfinite(value) || value < 0 || value > 1e9)
        return false;
    *out = value;
    return true;
}

static bool parse_every(const char *text, int *out)
{
    char *end = NULL;
    errno = 0;
    const long value = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno != 0 || value < 0 || value > INT_MAX)
        return false;
    *out = (int)value;
    return true;
}

typedef bool (*field_parser)(const char *key, const char *value, void *out, char *why,
                             size_t why_size);

/* Splits "k=v,k=v" and hands each field to `parse`. */
static bool parse_fields(const char *text, field_parser parse, void *out, const char *keys,
                         char *why, size_t why_size)
{
    char *copy = strdup(text);
    if (!copy) {
        snprintf(why, why_size, "out of memory");
        return false;
    }
    bool ok = true;
    char *save = NULL;
    for (char *field = strtok_r(copy, ",", &save); field && ok;
         field = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char)*field))
            field++;
        char *equals = strchr(field, '=');
        if (!equals) {
            snprintf(why, why_size, "\"%s\": expected key=value (keys: %s) or off", field, keys);
            ok = false;
            break;
        }
        *equals = '\0';
        ok = parse(field, equals + 1, out, why, why_size);
    }
    free(copy);
    return ok;
}

static bool guard_field(const char *key, const char *value, void *out, char *why, size_t why_size)
{
    ftc_guard_settings *s = out;
    if (strcmp(key, "every") == 0) {
        if (parse_every(value, &s->every))
            return true;
        snprintf(why, why_size, "every=\"%s\": expected a count of calls (0: off, 1: every call)",
                 value);
    } else if (strcmp(key, "timeout") == 0) {
        if (parse_seconds(value, &s->timeout) && s->timeout > 0)
            return true;
        snprintf(why, why_size, "timeout=\"%s\": expected seconds, more than 0", value);
    } else if (strcmp(key, "time-left") == 0) {
        if (parse_seconds(value, &s->time_left))
            return true;
        snprintf(why, why_size, "time-left=\"%s\": expected seconds (0: unknown)", value);
    } else {
        snprintf(why, why_size, "unknown key \"%s\" (keys: every, timeout, time-left)", key);
    }
    return false;
}

bool ftc_guard_settings_parse(const char *text, ftc_guard_settings *out, char *why,
                              size_t why_size)
{
    *out = (ftc_guard_settings){ .every = 0, .timeout = FTC_GUARD_DEFAULT_TIMEOUT };
    if (why_size)
        why[0] = '\0';
    if (!text || is_off(text))
        return true;
    ftc_guard_settings s = *out;
    if (!parse_fields(text, guard_field, &s, "every, timeout, time-left", why, why_size))
        return false;
    *out = s;
    return true;
}

static bool watchdog_field(const char *key, const char *value, void *out, char *why,
                           size_t why_size)
{
    ftc_watchdog_settings *s = out;
    if (strcmp(key, "deadline") == 0) {
        if (parse_seconds(value, &s->deadline))
            return true;
        snprintf(why, why_size, "deadline=\"%s\": expected seconds (0: off)", value);
    } else if (strcmp(key, "action") == 0) {
        if (strcmp(value, "abort") == 0 || strcmp(value, "revoke") == 0) {
            s->action = value[0] == 'a' ? FTC_WATCHDOG_ABORT : FTC_WATCHDOG_REVOKE;
            return true;
        }
        snprintf(why, why_size, "action=\"%s\": expected abort or revoke", value);
    } else {
        snprintf(why, why_size, "unknown key \"%s\" (keys: deadline, action)", key);
    }
    return false;
}

bool ftc_watchdog_settings_parse(const char *text, ftc_watchdog_settings *out, char *why,
                                 size_t why_size)
{
    *out = (ftc_watchdog_settings){ .deadline = 0, .action = FTC_WATCHDOG_ABORT };
    if (why_size)
        why[0] = '\0';
    if (!text || is_off(text))
        return true;
    ftc_watchdog_settings s = *out;
    if (!parse_fields(text, watchdog_field, &s, "deadline, action", why, why_size))
        return false;
    *out = s;
    return true;
}

double ftc_guard_effective_timeout(const ftc_guard_settings *s, double elapsed)
{
    if (s->time_left <= 0)
        return s->timeout;
    const double from_deadline = ftc_guard_window_from_deadline(s->time_left - elapsed);
    return from_deadline > 0 && from_deadline < s->timeout ? from_deadline : s->timeout;
}
