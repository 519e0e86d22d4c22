#include "reconcile.h"

typedef struct {
    long lo, hi;
    bool inside_lo, inside_hi;      /* some rank inside call lo / hi */
    bool outside_lo;                /* some rank outside any call, next call lo */
    bool leaving_hi, between_hi;    /* some rank outside, next call hi: leaving / not */
    bool kept_wrong;                /* a rank at hi did not keep call lo's result */
    long settling_op;               /* the operation of ranks outside a call at hi */
    bool settling_ops_differ;
} survey;

static survey survey_of(int n, const ftc_ft_presence *where)
{
    survey s = { .lo = where[0].call, .hi = where[0].call };
    for (int i = 1; i < n; i++) {
        s.lo = where[i].call < s.lo ? where[i].call : s.lo;
        s.hi = where[i].call > s.hi ? where[i].call : s.hi;
    }
    for (int i = 0; i < n; i++) {
        const bool inside = where[i].place == FTC_AT_CALL;
        if (where[i].call == s.lo) {
            s.inside_lo |= inside;
            s.outside_lo |= !inside;
        }
        if (where[i].call == s.hi) {
            s.inside_hi |= inside;
            s.leaving_hi |= where[i].place == FTC_LEAVING;
            s.between_hi |= where[i].place == FTC_BETWEEN_CALLS;
            s.kept_wrong |= s.hi != s.lo && where[i].kept != s.lo;
            if (!inside && s.settling_op == 0)
                s.settling_op = where[i].op;
            s.settling_ops_differ |= !inside && where[i].op != s.settling_op;
        }
    }
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

/* Calls lo and lo + 1: those at lo + 1 serve lo's result to the late ones. */
static void two_calls(const survey *s, const ftc_ft_presence *mine, ftc_ft_decision *out)
{
    if (s->outside_lo) {
        error(out, "a rank outside call lo while others completed it");
        return;
    }
    if (s->kept_wrong) {
        error(out, "a rank past call lo did not keep its result");
        return;
    }
    if (s->inside_hi && s->leaving_hi) {
        error(out, "some ranks freed the communicator while others are inside a call on it");
        return;
    }
    if (s->settling_ops_differ) {
        error(out, "ranks past call lo settle in different operations");
        return;
    }
    out->call = s->lo;
    out->round = true;
    out->role = mine->call == s->lo ? FTC_ROLE_LATE : FTC_ROLE_SERVE;
    if (out->role == FTC_ROLE_SERVE && mine->place == FTC_AT_CALL) {
        out->next = FTC_NEXT_MEET_AGAIN;         /* the late ones come back into lo + 1 */
        return;
    }
    out->owes_meeting = s->inside_hi;
    /* the servers were all settling, in one operation, and leave now: the
     * late rank's own settling in that operation has nobody to meet (its
     * other operations meet as usual: the servers come to those too) */
    if (out->role == FTC_ROLE_LATE && !s->inside_hi)
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
    if (s.hi - s.lo > 1)
        error(out, "ranks more than one call apart");
    else if (s.hi == s.lo)
        one_call(&s, &where[me], out);
    else
        two_calls(&s, &where[me], out);
}
