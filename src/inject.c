/* Parsing FTCOLL_INJECT (see inject.h). Pure C. */
#define _POSIX_C_SOURCE 200809L /* strdup, strtok_r */
#include "inject.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decision.h"

typedef struct {
    char *why;
    size_t why_size;
    int directive;      /* 1-based, for messages */
} parse_context;

static bool reject(parse_context *ctx, const char *what, const char *reason)
{
    snprintf(ctx->why, ctx->why_size, "directive %d, \"%s\": %s", ctx->directive, what, reason);
    return false;
}

/* A non-negative decimal number that fits a long, nothing else. */
static bool parse_count(const char *text, long max, long *out)
{
    if (!*text)
        return false;
    long value = 0;
    for (const char *c = text; *c; c++) {
        if (!isdigit((unsigned char)*c) || value > (max - (*c - '0')) / 10)
            return false;
        value = value * 10 + (*c - '0');
    }
    *out = value;
    return true;
}

static bool parse_step(const char *value, int *step)
{
    static const ftc_decision_name named[] = {
        { "fold-in", FTC_INJECT_STEP_FOLD_IN },
        { "fold-out", FTC_INJECT_STEP_FOLD_OUT },
        { "handout", FTC_INJECT_STEP_HANDOUT },
        { "confirm", FTC_INJECT_STEP_CONFIRM },
    };
    if (ftc_decision_parse_name(named, sizeof(named) / sizeof(named[0]), value, step))
        return true;
    long number;
    if (!parse_count(value, 64, &number))
        return false;
    *step = (int)number;
    return true;
}

static bool parse_when(const char *value, ftc_inject_when *when)
{
    if (strcmp(value, "before-send") == 0)
        *when = FTC_INJECT_BEFORE_SEND;
    else if (strcmp(value, "after-send") == 0)
        *when = FTC_INJECT_AFTER_SEND;
    else if (strcmp(value, "recovery") == 0)
        *when = FTC_INJECT_RECOVERY;
    else
        return false;
    return true;
}

/* One key=value field into `kill`; `seen` tracks which keys were given. */
static bool parse_field(parse_context *ctx, char *field, ftc_injection *kill, unsigned *seen)
{
    char *equals = strchr(field, '=');
    if (!equals)
        return reject(ctx, field, "expected key=value (rank, call, round, step, at)");
    *equals = '\0';
    const char *key = field, *value = equals + 1;
    long number;
    if (strcmp(key, "rank") == 0) {
        if (!parse_count(value, INT_MAX, &number))
            return reject(ctx, value, "rank must be a non-negative integer");
        kill->rank = (int)number;
        *seen |= 1u;
    } else if (strcmp(key, "call") == 0) {
        if (!parse_count(value, LONG_MAX, &number) || number < 1)
            return reject(ctx, value, "call counts from 1");
        kill->call = number;
    } else if (strcmp(key, "round") == 0) {
        if (!parse_count(value, 64, &number))
            return reject(ctx, value, "round must be an integer from 0 to 64");
        kill->round = (int)number;
        *seen |= 2u;
    } else if (strcmp(key, "step") == 0) {
        if (!parse_step(value, &kill->step))
            return reject(ctx, value, "step must be 0..64, fold-in, fold-out, handout or confirm");
    } else if (strcmp(key, "at") == 0) {
        if (!parse_when(value, &kill->when))
            return reject(ctx, value, "at must be before-send, after-send or recovery");
    } else {
        return reject(ctx, key, "unknown key (expected rank, call, round, step, at)");
    }
    return true;
}

static bool parse_directive(parse_context *ctx, char *text, ftc_injection *kill)
{
    *kill = (ftc_injection){ .action = FTC_INJECT_KILL, .rank = -1, .call = 1, .round = 0,
                             .step = 0, .when = FTC_INJECT_BEFORE_SEND };
    char *save = NULL;
    char *word = strtok_r(text, " \t", &save);
    if (!word || (strcmp(word, "kill") != 0 && strcmp(word, "spin") != 0))
        return reject(ctx, word ? word : "", "a directive starts with \"kill\" or \"spin\"");
    kill->action = word[0] == 'k' ? FTC_INJECT_KILL : FTC_INJECT_SPIN;
    unsigned seen = 0;
    for (word = strtok_r(NULL, " \t", &save); word; word = strtok_r(NULL, " \t", &save))
        if (!parse_field(ctx, word, kill, &seen))
            return false;
    if (!(seen & 1u))
        return reject(ctx, kill->action == FTC_INJECT_KILL ? "kill" : "spin",
                      "rank=R is required");
    if (kill->when == FTC_INJECT_RECOVERY && !(seen & 2u))
        kill->round = 1;
    if (kill->when == FTC_INJECT_RECOVERY && kill->round == 0)
        return reject(ctx, "round=0", "at=recovery happens in round 1 or later");
    return true;
}

static bool blank(const char *s)
{
    for (; *s; s++)
        if (!isspace((unsigned char)*s))
            return false;
    return true;
}

bool ftc_inject_parse(const char *text, ftc_inject_plan *plan, char *why, size_t why_size)
{
    plan->count = 0;
    if (why_size)
        why[0] = '\0';
    if (!text || blank(text))
        return true;
    char *copy = strdup(text);
    if (!copy) {
        snprintf(why, why_size, "out of memory");
        return false;
    }
    parse_context ctx = { why, why_size, 0 };
    bool ok = true;
    char *save = NULL;
    for (char *part = strtok_r(copy, ";", &save); part && ok; part = strtok_r(NULL, ";", &save)) {
        if (blank(part))
            continue;
        ctx.directive++;
        if (plan->count == FTC_INJECT_MAX) {
            snprintf(why, why_size, "more than %d directives", FTC_INJECT_MAX);
            ok = false;
            break;
        }
        ok = parse_directive(&ctx, part, &plan->kills[plan->count]);
        plan->count += ok;
    }
    free(copy);
    return ok;
}

const ftc_injection *ftc_inject_matches(const ftc_inject_plan *plan, int rank, long call,
                                        int round, int step, ftc_inject_when when)
{
    for (int i = 0; i < plan->count; i++) {
        const ftc_injection *k = &plan->kills[i];
        if (k->rank != rank || k->call != call || k->round != round || k->when != when)
            continue;
        if (when == FTC_INJECT_RECOVERY || k->step == step)
            return k;
    }
    return NULL;
}
