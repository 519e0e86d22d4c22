#include "reconcile.h"

#include <stddef.h>

typedef struct {
    long lo, hi;
    bool inside_lo;                 /* some rank inside call lo */
    bool outside_lo;                /* some rank outside any call, next call lo */
    bool leaving_lo;                /* ... of them, one freeing the communicator */
    bool inside_past;               /* some rank inside a call after lo */
    bool inside_hi;                 /* some rank inside call hi */
    bool leaving_hi;                /* some rank leaving, next call hi */
    bool outside_middle;            /* some rank outside any call, next call in lo + 1 .. hi - 1 */
    bool kept_wrong;                /* a rank past lo did not keep call lo's result */
    long settling_op;               /* the operation of ranks outside a call at hi */
    bool settling_ops_differ;
} survey;

static void survey_rank(survey *s, const ftc_ft_presence *p)
{
    const bool inside = p->place == FTC_AT_CALL;
    if (p->call == s->lo) {
        s->inside_lo |= inside;
        s->outside_lo |= !inside;
        s->leaving_lo |= p->place == FTC_LEAVING;
    } else {
        s->inside_past |= inside;
        s->kept_wrong |= !ftc_ft_window_holds(p->kept_first, p->kept_last, s->lo);
        s->outside_middle |= !inside && p->call < s->hi;
    }
    if (p->call != s->hi)
        return;
    s->inside_hi |= inside;
    s->leaving_hi |= p->place == FTC_LEAVING;
    if (!inside && s->settling_op == 0)
        s->settling_op = p->op;
    s->settling_ops_differ |= !inside && p->op != s->settling_op;
}

static survey survey_of(int n, const ftc_ft_presence *where)
{
    survey s = { .lo = where[0].call, .hi = where[0].call };
    for (int i = 1; i < n; i++) {
        s.lo = where[i].call < s.lo ? where[i].call : s.lo;
        s.hi = where[i].call > s.hi ? where[i].call : s.hi;
    }
    for (int i = 0; i < n; i++)
        survey_rank(&s, &where[i]);
    return s;
}

static void error(ftc_ft_decision *out, const char *why)
{
    *out = (ftc_ft_decision){ .next = FTC_NEXT_ERROR, .why = why };
}

/* Everyone in one call: recover it, wait for the others, or nothing. */
static void one_call(const survey *s, const ftc_ft_presence *mine, ftc_ft_decision *out)
{
    const bool everyone_inside = !s->outside_lo;
    out->call = s->lo;
    if (!s->inside_lo)
        return;                                  /* settling, nobody inside: done */
    if (everyone_inside) {
        out->role = FTC_ROLE_RECOVER;
        out->round = true;
        return;
    }
    if (s->leaving_hi) {
        error(out, "some ranks freed the communicator while others are inside a call on it");
        return;
    }
    if (mine->place == FTC_AT_CALL)
        out->next = FTC_NEXT_MEET_AGAIN;         /* the others come back into this call */
    else
        out->owes_meeting = true;
}

static const char *several_calls_inconsistency(const survey *s)
{
    if (s->leaving_lo)
        return "a rank freed the communicator before call lo while others completed it";
    if (s->outside_middle)
        return "a rank outside any call while others are inside calls before and after its next";
    if (s->kept_wrong)
        return "a rank past call lo did not keep its result";
    if (s->inside_hi && s->leaving_hi)
        return "some ranks freed the communicator while others are inside a call on it";
    if (s->settling_ops_differ)
        return "ranks past call lo settle in different operations";
    return NULL;
}

/* Whether a server waits in the meeting for the late ranks' next call. A
 * rank inside a call always does; one settling or leaving does while a
 * call after lo is still to be served (hi > lo + 1: it may hold a result
 * only it kept). Else a settling one, with someone inside hi, returns and
 * meets at its next entry (a leaving one then is an error, survey above). */
static bool stays(const survey *s, const ftc_ft_presence *mine)
{
    return mine->place == FTC_AT_CALL || s->hi - s->lo > 1;
}

/* Calls lo < hi: every rank past lo serves lo's result to the late ones. */
static void several_calls(const survey *s, const ftc_ft_presence *mine, ftc_ft_decision *out)
{
    const char *why = several_calls_inconsistency(s);
    if (why) {
        error(out, why);
        return;
    }
    out->call = s->lo;
    if (s->outside_lo) {
        /* a collective interrupted on some ranks before call lo, which the
         * others completed and went on from: those return (their next
         * entry comes into lo, late), everyone else waits for them */
        if (mine->call == s->lo && mine->place != FTC_AT_CALL)
            out->owes_meeting = true;
        else
            out->next = FTC_NEXT_MEET_AGAIN;
        return;
    }
    out->round = true;
    out->role = mine->call == s->lo ? FTC_ROLE_LATE : FTC_ROLE_SERVE;
    /* after lo the late ones come back into lo + 1, and so on up to hi:
     * while one of lo + 1 .. hi - 1 is still to serve, or someone past lo
     * is inside a call, the servers must stay (a rank settling or leaving
     * may hold a result only it kept) */
    const bool more_to_serve = s->hi - s->lo > 1 || s->inside_past;
    if (out->role == FTC_ROLE_SERVE && stays(s, mine)) {
        out->next = FTC_NEXT_MEET_AGAIN;
        return;
    }
    out->owes_meeting = more_to_serve;
    /* the servers were all settling, in one operation, and leave now: the
     * late rank's own settling in that operation has nobody to meet (its
     * other operations meet as usual: the servers come to those too) */
    if (out->role == FTC_ROLE_LATE && !more_to_serve)
        out->settled_op = s->settling_op;
}

void ftc_ft_reconcile(int n, const ftc_ft_presence *where, int me, ftc_ft_decision *out)
{
    *out = (ftc_ft_decision){ .next = FTC_NEXT_RETURN };
    if (n <= 0 || me < 0 || me >= n) {
        error(out, "no participant");
        return;
    }
    const survey s = survey_of(n, where);
    if (s.hi - s.lo > FTC_FT_WINDOW)
        error(out, "ranks more than the window of calls apart");
    else if (s.hi == s.lo)
        one_call(&s, &where[me], out);
    else
        several_calls(&s, &where[me], out);
}
