#include "report.h"

#include "checkin_tree.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ftc_guarded_name(ftc_guarded_kind kind)
{
#define NAME_OF(kind, name, table) name,
    static const char *const names[FTC_GUARDED_KINDS] = { "ftc_guard_check",
                                                          FTC_COLLECTIVES(NAME_OF) };
#undef NAME_OF
    return kind >= 0 && kind < FTC_GUARDED_KINDS ? names[kind] : "an unknown collective";
}

void ftc_guard_record_init(ftc_guard_record *r, ftc_guarded_kind kind, long call, long check)
{
    memset(r, 0, offsetof(ftc_guard_record, entry));
    r->decision = FTC_GUARD_GO;
    r->kind = (int32_t)kind;
    r->call = call;
    r->check = check;
    for (int i = 0; i < FTC_GUARD_MATCHED; i++)
        r->matched[i] = (ftc_guard_range){ .low = INT64_MAX, .high = INT64_MIN,
                                           .low_rank = -1, .high_rank = -1 };   /* empty */
}

static bool entry_before(const ftc_guard_entry *a, const ftc_guard_entry *b)
{
    return a->kind != b->kind ? a->kind < b->kind : a->rank < b->rank;
}

/* Inserts in severity-then-rank order; past the capacity the last goes. */
static void add_entry(ftc_guard_record *r, int rank, ftc_guard_entry_kind kind,
                      const char *message)
{
    ftc_guard_entry e = { .rank = rank, .kind = (int32_t)kind };
    snprintf(e.message, sizeof(e.message), "%s", message ? message : "");
    int at = r->nentries;
    while (at > 0 && entry_before(&e, &r->entry[at - 1]))
        at--;
    if (at == FTC_GUARD_ENTRIES)
        return;
    const int kept = r->nentries < FTC_GUARD_ENTRIES ? r->nentries : FTC_GUARD_ENTRIES - 1;
    memmove(&r->entry[at + 1], &r->entry[at], (size_t)(kept - at) * sizeof(e));
    r->entry[at] = e;
    r->nentries = kept + 1;
}

void ftc_guard_record_add_errors(ftc_guard_record *r, int rank, int errors, const char *message)
{
    if (errors <= 0)
        return;
    r->error_ranks++;
    r->errors += errors;
    add_entry(r, rank, FTC_GUARD_ERROR, message);
}

/* Moves one end of a range to `from`'s value when that lies beyond it,
 * or adds `from`'s ranks when it is the same value. */
static void take_end(int64_t *value, int32_t *rank, int32_t *ranks, int64_t from_value,
                     int32_t from_rank, int32_t from_ranks, bool beyond)
{
    if (beyond) {
        *value = from_value;
        *rank = from_rank;
        *ranks = from_ranks;
    } else if (from_value == *value) {
        *rank = from_rank < *rank ? from_rank : *rank;
        *ranks += from_ranks;
    }
}

/* Widens `into` by `from` (an empty range changes nothing). */
static void widen(ftc_guard_range *into, const ftc_guard_range *from)
{
    if (from->low > from->high)
        return;
    take_end(&into->low, &into->low_rank, &into->low_ranks, from->low, from->low_rank,
             from->low_ranks, from->low < into->low);
    take_end(&into->high, &into->high_rank, &into->high_ranks, from->high, from->high_rank,
             from->high_ranks, from->high > into->high);
}

void ftc_guard_record_observe(ftc_guard_record *r, int rank, const ftc_guard_matching *m)
{
    for (int i = 0; m && i < FTC_GUARD_MATCHED; i++)
        if (m->value[i] >= 0) {
            const ftc_guard_range one = { m->value[i], m->value[i], rank, rank, 1, 1 };
            widen(&r->matched[i], &one);
        }
}

/* One end of a range, as a message names it. */
typedef struct {
    long long value;
    int rank, ranks;
} range_end;

static range_end end_of(const ftc_guard_range *m, bool high)
{
    return high ? (range_end){ m->high, m->high_rank, m->high_ranks }
                : (range_end){ m->low, m->low_rank, m->low_ranks };
}

/* "passes root 3 (1 rank(s)), rank 0 root 0 (3): ...": the named side
 * against the other, values shown where they mean something to a reader
 * (a hash or a handle's number does not). */
static void describe_mismatch(ftc_guard_matched_item item, range_end named, range_end other,
                              char *out, size_t size)
{
    static const char *const passed[FTC_GUARD_MATCHED][2] = {
        [FTC_MATCH_COUNTS] = { "counts", "counts" },
        [FTC_MATCH_TYPE] = { "a datatype", "datatype" },
        [FTC_MATCH_OP] = { "an op", "op" },
    };
    if (item == FTC_MATCH_ROOT)
        snprintf(out, size, "passes root %lld (%d rank(s)), rank %d root %lld (%d): every rank "
                 "must pass the same root", named.value, named.ranks, other.rank, other.value,
                 other.ranks);
    else if (item == FTC_MATCH_BYTES)
        snprintf(out, size, "passes %lld bytes (%d rank(s)), rank %d %lld (%d): count x the "
                 "datatype's size must be the same on every rank", named.value, named.ranks,
                 other.rank, other.value, other.ranks);
    else
        snprintf(out, size, "passes %s unlike rank %d's (%d rank(s) against %d): every rank "
                 "must pass the same %s", passed[item][0], other.rank, named.ranks,
                 other.ranks, passed[item][1]);
}

void ftc_guard_record_add_mismatches(ftc_guard_record *r)
{
    if (r->error_ranks > 0)
        return;   /* the call stops already, and each rank is counted once */
    for (int i = 0; i < FTC_GUARD_MATCHED; i++) {
        const ftc_guard_range *m = &r->matched[i];
        if (m->low >= m->high)
            continue;
        const bool high_named = m->high_ranks <= m->low_ranks;   /* the fewer ranks */
        const range_end named = end_of(m, high_named), other = end_of(m, !high_named);
        char message[FTC_GUARD_MESSAGE_MAX];
        describe_mismatch((ftc_guard_matched_item)i, named, other, message, sizeof(message));
        ftc_guard_record_add_errors(r, named.rank, 1, message);
        return;   /* one is enough to stop, and a root that differs explains the rest */
    }
}

void ftc_guard_record_add_silent(ftc_guard_record *r, int rank)
{
    r->silent_ranks++;
    add_entry(r, rank, FTC_GUARD_SILENT, "");
}

void ftc_guard_record_merge(ftc_guard_record *into, const ftc_guard_record *child,
                            int child_rank)
{
    into->error_ranks += child->error_ranks;
    into->errors += child->errors;
    into->warnings += child->warnings;
    into->silent_ranks += child->silent_ranks;
    into->elsewhere_ranks += child->elsewhere_ranks;
    for (int i = 0; i < child->nentries; i++)
        add_entry(into, child->entry[i].rank, (ftc_guard_entry_kind)child->entry[i].kind,
                  child->entry[i].message);
    if (child->kind == into->kind && child->call == into->call)
        for (int i = 0; i < FTC_GUARD_MATCHED; i++)
            widen(&into->matched[i], &child->matched[i]);
    else {
        char where[FTC_GUARD_MESSAGE_MAX];
        snprintf(where, sizeof(where), "%s call %lld",
                 ftc_guarded_name((ftc_guarded_kind)child->kind), (long long)child->call);
        into->elsewhere_ranks++;
        add_entry(into, child_rank, FTC_GUARD_ELSEWHERE, where);
    }
}

ftc_guard_decision ftc_guard_decide(const ftc_guard_record *r)
{
    if (r->silent_ranks > 0 || r->elsewhere_ranks > 0)
        return FTC_GUARD_ABORT;
    return r->error_ranks > 0 ? FTC_GUARD_STOP : FTC_GUARD_GO;
}

size_t ftc_guard_record_bytes(const ftc_guard_record *r)
{
    return offsetof(ftc_guard_record, entry) + (size_t)r->nentries * sizeof(ftc_guard_entry);
}

int ftc_guard_record_valid(const ftc_guard_record *r, size_t bytes)
{
    if (bytes < offsetof(ftc_guard_record, entry) || r->nentries < 0
        || r->nentries > FTC_GUARD_ENTRIES || bytes != ftc_guard_record_bytes(r))
        return 0;
    for (int i = 0; i < r->nentries; i++)
        if (memchr(r->entry[i].message, '\0', sizeof(r->entry[i].message)) == NULL)
            return 0;
    return 1;
}

void ftc_guard_stop_report(const ftc_guard_record *r, ftc_stop_report *out)
{
    memset(out, 0, sizeof(*out));
    out->check = (long)r->check;
    out->error_ranks = r->error_ranks;
    out->errors = r->errors;
    out->warnings = r->warnings;
    for (int i = 0; i < r->nentries; i++) {
        if (r->entry[i].kind != FTC_GUARD_ERROR)
            continue;
        out->error_rank[out->listed] = r->entry[i].rank;
        snprintf(out->message[out->listed], sizeof(out->message[0]), "%s", r->entry[i].message);
        out->listed++;
    }
}

/* ---- the abort diagnosis ------------------------------------------------- */

static int compare_ints(const void *a, const void *b)
{
    const int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

void ftc_format_ranks(const int *ranks, int count, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < count && used < size; i++) {
        int last = i;
        while (last + 1 < count && ranks[last + 1] == ranks[last] + 1)
            last++;
        const int n = last == i
            ? snprintf(out + used, size - used, "%s%d", used ? "," : "", ranks[i])
            : snprintf(out + used, size - used, "%s%d-%d", used ? "," : "", ranks[i], ranks[last]);
        used += n > 0 ? (size_t)n : 0;
        i = last;
    }
}

static int rank_at(const int *live, int position)
{
    return live ? live[position] : position;
}

static int position_of(const int *live, int n, int rank)
{
    if (!live)
        return rank < n ? rank : -1;
    const int *found = bsearch(&rank, live, (size_t)n, sizeof(int), compare_ints);
    return found ? (int)(found - live) : -1;
}

/* Positions i + 1 .. i + lowest bit of i - 1: the ranks that report
 * through i (its subtree in the binomial tree, without i). */
static int subtree_end(int position, int n)
{
    const long end = position == 0 ? n : (long)position + (position & -position);
    return end < n ? (int)end : n;
}

static size_t append(char *out, size_t size, size_t used, const char *format, const char *a,
                     const char *b)
{
    if (used >= size)
        return used;
    const int n = snprintf(out + used, size - used, format, a, b);
    return n > 0 ? used + (size_t)n : used;
}

/* How long the parent of the rank at `position` waited for it. */
static double parent_window(int position, int n, double latecomer)
{
    ftc_guard_node parent;
    ftc_guard_node_of(position - (position & -position), n, &parent);
    return ftc_guard_children_window(&parent, latecomer);
}

/* heard[position] = 0 for each rank listed silent or elsewhere, and for
 * the ranks that report through a silent one. */
static void mark_unheard(const ftc_guard_record *r, const int *live, int n, char *heard)
{
    memset(heard, 1, (size_t)n);
    for (int i = 0; i < r->nentries; i++) {
        const int at = position_of(live, n, r->entry[i].rank);
        if (at < 0 || r->entry[i].kind == FTC_GUARD_ERROR)
            continue;
        heard[at] = 0;
        if (r->entry[i].kind == FTC_GUARD_SILENT)
            for (int j = at + 1; j < subtree_end(at, n); j++)
                heard[j] = 0;
    }
}

int ftc_guard_unheard(const ftc_guard_record *r, const int *live, int n, int *ranks)
{
    char *heard = malloc((size_t)(n > 0 ? n : 1));
    if (!heard)
        return 0;
    mark_unheard(r, live, n, heard);
    int count = 0;
    for (int j = 0; j < n; j++)
        if (!heard[j])
            ranks[count++] = rank_at(live, j);
    free(heard);
    return count;
}

void ftc_guard_format_abort(const ftc_guard_record *r, const int *live, int n, double latecomer,
                            char *out, size_t size)
{
    char *heard = calloc((size_t)n, 1);
    int *list = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    char ranks[512], text[FTC_GUARD_MESSAGE_MAX + 64];
    size_t used = 0;
    out[0] = '\0';
    if (!heard || !list) {
        snprintf(out, size, "ftcoll guard: aborting the job (%d silent ranks, %d elsewhere)",
                 r->silent_ranks, r->elsewhere_ranks);
        free(heard);
        free(list);
        return;
    }
    mark_unheard(r, live, n, heard);
    used = append(out, size, used, "%s%s", "ftcoll guard: aborting the job before ",
                  ftc_guarded_name((ftc_guarded_kind)r->kind));
    snprintf(text, sizeof(text), " call %lld (check-in %lld)", (long long)r->call,
             (long long)r->check);
    used = append(out, size, used, "%s%s\n", text, "");
    for (int i = 0; i < r->nentries; i++) {
        const ftc_guard_entry *e = &r->entry[i];
        const int at = position_of(live, n, e->rank);
        if (e->kind == FTC_GUARD_SILENT && at >= 0) {
            int count = 0;
            for (int j = at + 1; j < subtree_end(at, n); j++)
                list[count++] = rank_at(live, j);
            snprintf(text, sizeof(text), "  rank %d did not check in within %.3g s", e->rank,
                     at > 0 ? parent_window(at, n, latecomer) : 0.0);
            used = append(out, size, used, "%s%s", text, count ? "" : "\n");
            if (count) {
                ftc_format_ranks(list, count, ranks, sizeof(ranks));
                used = append(out, size, used, "; not heard from either: %s (they report "
                              "through it)\n", ranks, "");
            }
        } else if (e->kind == FTC_GUARD_ELSEWHERE) {
            snprintf(text, sizeof(text), "  rank %d is in %s instead\n", e->rank, e->message);
            used = append(out, size, used, "%s%s", text, "");
        }
    }
    const int unlisted = r->silent_ranks + r->elsewhere_ranks;
    int listed = 0;
    for (int i = 0; i < r->nentries; i++)
        listed += r->entry[i].kind != FTC_GUARD_ERROR;
    if (unlisted > listed) {
        snprintf(text, sizeof(text), "  and %d more ranks silent or elsewhere\n", unlisted - listed);
        used = append(out, size, used, "%s%s", text, "");
    }
    int count = 0;
    for (int j = 0; j < n; j++)
        if (heard[j])
            list[count++] = rank_at(live, j);
    ftc_format_ranks(list, count, ranks, sizeof(ranks));
    snprintf(text, sizeof(text), " call %lld", (long long)r->call);
    used = append(out, size, used, "  ranks %s wait in the check-in before %s", ranks,
                  ftc_guarded_name((ftc_guarded_kind)r->kind));
    append(out, size, used, "%s%s", text, "");
    free(heard);
    free(list);
}
