/*
 * Reading an emulated network's topology file (format in topology.h) and
 * answering "how long does channel (a, b) take during broadcast k". The file
 * is written by hand, so every refusal names the line and the bad token; a
 * file is checked line by line, then as a whole, and only a file that passes
 * both becomes an ftc_topology. Pure C, no MPI.
 */
#include "topology.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Ranks at or above this are a typo rather than an emulated network, and
 * each would cost a slot in site_of: refuse them before allocating. */
enum { RANK_LIMIT = 1 << 20 };

/* One more than the longest line (change: 5 fields), so extras are seen. */
enum { MAX_FIELDS = 6 };

static const char blanks[] = " \t\r\v\f";   /* \r: CRLF files read the same */

typedef struct {
    char name[FTC_TOPOLOGY_NAME_MAX];
    int line;                           /* where declared, for duplicates */
} site_entry;

typedef struct {
    ftc_topology_change change;
    int line;                           /* for the end-of-file rank check */
} change_entry;

/* Everything being built; on failure all of it is freed, on success the
 * pieces move into the caller's ftc_topology. */
typedef struct {
    char *error;
    size_t error_size;
    int line;                           /* 0 for whole-file problems */

    double scale;
    int scale_line;                     /* 0 until a scale line is seen */

    site_entry *sites;
    int nsites, site_cap;

    int *site_of;                       /* -1 for a rank in no site yet */
    int nranks, rank_cap;               /* nranks: highest rank seen + 1 */

    /* Site-pair latencies in a pair_cap x pair_cap matrix that grows with
     * the sites, since latency lines may come before later site lines. */
    double *pair_ms;
    int *pair_line;                     /* 0: no latency line yet */
    int pair_cap;

    change_entry *links;
    int nlinks, link_cap;
    change_entry *changes;
    int nchanges, change_cap;
} parser;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int fail(parser *p, const char *format, ...)
{
    if (!p->error || p->error_size == 0)
        return -1;
    size_t used = 0;
    if (p->line > 0) {
        const int n = snprintf(p->error, p->error_size, "line %d: ", p->line);
        used = n < 0 ? 0 : (size_t)n;
        if (used >= p->error_size)
            return -1;   /* truncated already; snprintf terminated it */
    }
    va_list args;
    va_start(args, format);
    vsnprintf(p->error + used, p->error_size - used, format, args);
    va_end(args);
    return -1;
}

/* `array` with room for `need` elements, or NULL (and `array` untouched)
 * when memory runs out. Doubling keeps a long file's appends linear. */
static void *reserve(void *array, size_t size, int *cap, int need)
{
    if (need <= *cap)
        return array;
    if (need > INT_MAX / 2)
        return NULL;
    int grown = *cap > 0 ? *cap : 8;
    while (grown < need)
        grown *= 2;
    void *bigger = realloc(array, (size_t)grown * size);
    if (bigger)
        *cap = grown;
    return bigger;
}

/* ---- tokens -------------------------------------------------------------- */

/* Splits `line` in place at blanks; returns the number of fields, counting
 * no further than max + 1 (enough to say "too many"). */
static int split_fields(char *line, char **field, int max)
{
    int n = 0;
    char *s = line + strspn(line, blanks);
    while (*s && n <= max) {
        char *end = s + strcspn(s, blanks);
        if (n < max)
            field[n] = s;
        n++;
        if (*end)
            *end++ = '\0';
        s = end + strspn(end, blanks);
    }
    return n;
}

/* A finite number filling the whole token. strtod alone would accept a
 * prefix ("48x"), "nan", "inf" and overflow to HUGE_VAL. */
static int parse_number(parser *p, const char *what, const char *token, double *out)
{
    char *end = NULL;
    errno = 0;
    const double value = strtod(token, &end);
    if (end == token || *end != '\0')
        return fail(p, "%s: '%s' is not a number", what, token);
    if (errno == ERANGE)
        return fail(p, "%s: '%s' is out of range", what, token);
    if (!isfinite(value))
        return fail(p, "%s: '%s' is not a finite number", what, token);
    *out = value;
    return 0;
}

static int parse_ms(parser *p, const char *what, const char *token, double *out)
{
    if (parse_number(p, what, token, out) != 0)
        return -1;
    if (*out < 0)
        return fail(p, "%s: latency '%s' is negative (expected milliseconds >= 0)", what, token);
    return 0;
}

/* A rank at the start of `s`, digits only: strtol by itself would also take
 * a sign or leading spaces. 0, or -1 for not a rank, -2 for too large. */
static int scan_rank(const char *s, const char **end, int *out)
{
    if (!isdigit((unsigned char)s[0]))
        return -1;
    char *stop = NULL;
    errno = 0;
    const long value = strtol(s, &stop, 10);
    *end = stop;
    if (errno == ERANGE || value >= RANK_LIMIT)
        return -2;
    *out = (int)value;
    return 0;
}

/* A rank filling the whole token (link and change lines). */
static int parse_rank(parser *p, const char *what, const char *token, int *out)
{
    const char *end = token;
    const int rc = scan_rank(token, &end, out);
    if (rc == -2)
        return fail(p, "%s: rank '%s' is too large (at most %d)", what, token, RANK_LIMIT - 1);
    if (rc != 0 || *end != '\0')
        return fail(p, "%s: '%s' is not a rank (expected an integer >= 0)", what, token);
    return 0;
}

/* ---- sites --------------------------------------------------------------- */

static int find_site(const parser *p, const char *name)
{
    for (int i = 0; i < p->nsites; i++)
        if (strcmp(p->sites[i].name, name) == 0)
            return i;
    return -1;
}

static int check_site_name(parser *p, const char *name)
{
    const size_t length = strlen(name);
    if (length >= FTC_TOPOLOGY_NAME_MAX)
        return fail(p, "site: name '%s' is longer than %d characters", name,
                    FTC_TOPOLOGY_NAME_MAX - 1);
    /* Spelled out rather than isalnum(), which a locale may widen. */
    static const char allowed[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                  "0123456789_.-";
    if (strspn(name, allowed) != length)
        return fail(p, "site: '%s' is not a valid site name (expected letters, digits, "
                       "'_', '.' or '-')", name);
    return 0;
}

/* Grows the site-pair matrix to hold `need` sites, keeping what it had. */
static int grow_pairs(parser *p, int need)
{
    if (need <= p->pair_cap)
        return 0;
    int cap = p->pair_cap > 0 ? p->pair_cap : 8;
    while (cap < need)
        cap *= 2;
    double *ms = calloc((size_t)cap * (size_t)cap, sizeof *ms);
    int *line = calloc((size_t)cap * (size_t)cap, sizeof *line);
    if (!ms || !line) {
        free(ms);
        free(line);
        return fail(p, "out of memory");
    }
    for (int i = 0; i < p->pair_cap; i++) {
        memcpy(ms + (size_t)i * cap, p->pair_ms + (size_t)i * p->pair_cap,
               (size_t)p->pair_cap * sizeof *ms);
        memcpy(line + (size_t)i * cap, p->pair_line + (size_t)i * p->pair_cap,
               (size_t)p->pair_cap * sizeof *line);
    }
    free(p->pair_ms);
    free(p->pair_line);
    p->pair_ms = ms;
    p->pair_line = line;
    p->pair_cap = cap;
    return 0;
}

/* Room in site_of for rank r; new slots belong to no site. */
static int reserve_rank(parser *p, int r)
{
    const int old_cap = p->rank_cap;
    int *grown = reserve(p->site_of, sizeof *p->site_of, &p->rank_cap, r + 1);
    if (!grown)
        return fail(p, "out of memory");
    p->site_of = grown;
    for (int i = old_cap; i < p->rank_cap; i++)
        p->site_of[i] = -1;
    return 0;
}

static int assign_ranks(parser *p, int site, int lo, int hi)
{
    if (reserve_rank(p, hi) != 0)
        return -1;
    for (int r = lo; r <= hi; r++) {
        if (p->site_of[r] >= 0)
            return fail(p, "site %s: rank %d is already in site %s", p->sites[site].name, r,
                        p->sites[p->site_of[r]].name);
        p->site_of[r] = site;
    }
    if (hi + 1 > p->nranks)
        p->nranks = hi + 1;
    return 0;
}

/* One entry of a rank list ("5" or "5-7") starting at `s`; *next is left on
 * the ',' or '\0' after it. Errors quote just the entry. */
static int parse_rank_entry(parser *p, int site, const char *s, const char **next)
{
    const char *name = p->sites[site].name;
    const int length = (int)strcspn(s, ",");
    if (length == 0)
        return fail(p, "site %s: empty entry in the rank list (a comma too many?)", name);
    int lo = 0, hi = 0;
    const char *end = s;
    int rc = scan_rank(s, &end, &lo);
    hi = lo;
    if (rc == 0 && *end == '-')
        rc = scan_rank(end + 1, &end, &hi);
    if (rc == -2)
        return fail(p, "site %s: '%.*s' has a rank that is too large (at most %d)", name, length,
                    s, RANK_LIMIT - 1);
    if (rc != 0 || (*end != ',' && *end != '\0'))
        return fail(p, "site %s: '%.*s' is not a rank or a range (expected N or N-M, "
                       "integers >= 0)", name, length, s);
    if (hi < lo)
        return fail(p, "site %s: range '%.*s' runs backwards", name, length, s);
    *next = end;
    return assign_ranks(p, site, lo, hi);
}

static int parse_rank_list(parser *p, int site, const char *list)
{
    const char *s = list;
    for (;;) {
        const char *next = s;
        if (parse_rank_entry(p, site, s, &next) != 0)
            return -1;
        if (*next == '\0')
            return 0;
        s = next + 1;   /* past the ',' */
    }
}

/* ---- one handler per keyword, each given its exact number of fields -------- */

static int parse_scale(parser *p, char **field)
{
    if (p->scale_line > 0)
        return fail(p, "scale: given twice (first on line %d)", p->scale_line);
    if (parse_number(p, "scale", field[1], &p->scale) != 0)
        return -1;
    if (p->scale <= 0)
        return fail(p, "scale: '%s' must be positive", field[1]);
    p->scale_line = p->line;
    return 0;
}

static int parse_site(parser *p, char **field)
{
    const char *name = field[1];
    if (check_site_name(p, name) != 0)
        return -1;
    const int existing = find_site(p, name);
    if (existing >= 0)
        return fail(p, "site %s: already declared on line %d", name, p->sites[existing].line);
    site_entry *grown = reserve(p->sites, sizeof *p->sites, &p->site_cap, p->nsites + 1);
    if (!grown)
        return fail(p, "out of memory");
    p->sites = grown;
    if (grow_pairs(p, p->nsites + 1) != 0)
        return -1;
    site_entry *site = &p->sites[p->nsites++];
    memset(site, 0, sizeof *site);
    memcpy(site->name, name, strlen(name) + 1);
    site->line = p->line;
    return parse_rank_list(p, p->nsites - 1, field[2]);
}

static int parse_latency(parser *p, char **field)
{
    int s[2];
    for (int i = 0; i < 2; i++) {
        s[i] = find_site(p, field[1 + i]);
        if (s[i] < 0)
            return fail(p, "latency: unknown site '%s' (declare it with a site line first)",
                        field[1 + i]);
    }
    double ms = 0;
    if (parse_ms(p, "latency", field[3], &ms) != 0)
        return -1;
    const size_t ab = (size_t)s[0] * p->pair_cap + s[1];
    const size_t ba = (size_t)s[1] * p->pair_cap + s[0];
    if (p->pair_line[ab] > 0)
        return fail(p, "latency %s %s: already given on line %d", field[1], field[2],
                    p->pair_line[ab]);
    p->pair_ms[ab] = p->pair_ms[ba] = ms;
    p->pair_line[ab] = p->pair_line[ba] = p->line;
    return 0;
}

/* The common part of link and change: "A B MS" at field[0..2]. */
static int parse_channel(parser *p, const char *what, char **field, ftc_topology_change *out)
{
    if (parse_rank(p, what, field[0], &out->a) != 0 || parse_rank(p, what, field[1], &out->b) != 0)
        return -1;
    if (out->a == out->b)
        return fail(p, "%s: the two ranks must differ (got %d twice)", what, out->a);
    return parse_ms(p, what, field[2], &out->ms);
}

static int parse_link(parser *p, char **field)
{
    change_entry entry = { .change = { .from_bcast = 1 }, .line = p->line };
    if (parse_channel(p, "link", field + 1, &entry.change) != 0)
        return -1;
    change_entry *grown = reserve(p->links, sizeof *p->links, &p->link_cap, p->nlinks + 1);
    if (!grown)
        return fail(p, "out of memory");
    p->links = grown;
    p->links[p->nlinks++] = entry;
    return 0;
}

static int parse_bcast_number(parser *p, const char *token, int *out)
{
    char *end = NULL;
    errno = 0;
    const long value = strtol(token, &end, 10);
    if (!isdigit((unsigned char)token[0]) || *end != '\0')
        return fail(p, "change: '%s' is not a broadcast number (expected an integer >= 1)",
                    token);
    if (errno == ERANGE || value > INT_MAX)
        return fail(p, "change: broadcast number '%s' is too large (at most %d)", token, INT_MAX);
    if (value < 1)
        return fail(p, "change: broadcast number '%s' must be >= 1 (broadcasts count from 1)",
                    token);
    *out = (int)value;
    return 0;
}

static int parse_change(parser *p, char **field)
{
    change_entry entry = { .line = p->line };
    if (parse_bcast_number(p, field[1], &entry.change.from_bcast) != 0
        || parse_channel(p, "change", field + 2, &entry.change) != 0)
        return -1;
    change_entry *grown = reserve(p->changes, sizeof *p->changes, &p->change_cap,
                                  p->nchanges + 1);
    if (!grown)
        return fail(p, "out of memory");
    p->changes = grown;
    p->changes[p->nchanges++] = entry;
    return 0;
}

typedef struct {
    const char *name;
    int nfields;                        /* the keyword included */
    const char *usage;
    int (*parse)(parser *, char **);
} keyword;

static const keyword keywords[] = {
    { "scale", 2, "scale FACTOR", parse_scale },
    { "site", 3, "site NAME RANKS", parse_site },
    { "latency", 4, "latency SITE SITE MS", parse_latency },
    { "link", 4, "link RANK RANK MS", parse_link },
    { "change", 5, "change BCAST RANK RANK MS", parse_change },
};

static int parse_line(parser *p, char *line)
{
    char *field[MAX_FIELDS];
    line[strcspn(line, "#")] = '\0';
    const int n = split_fields(line, field, MAX_FIELDS);
    if (n == 0)
        return 0;
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++) {
        const keyword *k = &keywords[i];
        if (strcmp(field[0], k->name) != 0)
            continue;
        if (n != k->nfields)
            return fail(p, "too %s fields for %s (expected: %s)", n > k->nfields ? "many" : "few",
                        k->name, k->usage);
        return k->parse(p, field);
    }
    return fail(p, "unknown keyword '%s' (expected scale, site, latency, link or change)",
                field[0]);
}

/* Walks the (copied, writable) text line by line: no length limit. */
static int parse_lines(parser *p, char *text)
{
    char *line = text;
    for (p->line = 1; line; p->line++) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (parse_line(p, line) != 0)
            return -1;
        line = next;
    }
    p->line = 0;
    return 0;
}

/* ---- whole-file checks --------------------------------------------------- */

static int check_ranks_of(parser *p, const change_entry *entries, int n, const char *what)
{
    for (int i = 0; i < n; i++) {
        const ftc_topology_change *c = &entries[i].change;
        const int bad = c->a >= p->nranks ? c->a : c->b >= p->nranks ? c->b : -1;
        if (bad >= 0) {
            p->line = entries[i].line;
            return fail(p, "%s: rank %d is in no site (ranks are 0..%d)", what, bad,
                        p->nranks - 1);
        }
    }
    return 0;
}

static int check_whole(parser *p)
{
    p->line = 0;
    if (p->nsites == 0)
        return fail(p, "no site declared (expected at least one line: site NAME RANKS)");
    for (int r = 0; r < p->nranks; r++)
        if (p->site_of[r] < 0)
            return fail(p, "rank %d is in no site (ranks must be 0..%d without gaps)", r,
                        p->nranks - 1);
    for (int i = 0; i < p->nsites; i++)
        for (int j = i + 1; j < p->nsites; j++)
            if (p->pair_line[(size_t)i * p->pair_cap + j] == 0)
                return fail(p, "no latency between sites %s and %s (expected a line: latency "
                               "%s %s MS)", p->sites[i].name, p->sites[j].name,
                            p->sites[i].name, p->sites[j].name);
    if (check_ranks_of(p, p->links, p->nlinks, "link") != 0
        || check_ranks_of(p, p->changes, p->nchanges, "change") != 0)
        return -1;
    p->line = 0;
    return 0;
}

/* ---- building the result ------------------------------------------------- */

static void copy_changes(ftc_topology_change *to, const change_entry *from, int n)
{
    for (int i = 0; i < n; i++)
        to[i] = from[i].change;
}

/* Allocates the result's own arrays (exact sizes, no parser bookkeeping);
 * on failure frees what it made and leaves `t` zeroed. */
static int build(parser *p, ftc_topology *t)
{
    const size_t ns = (size_t)p->nsites;
    t->nranks = p->nranks;
    t->nsites = p->nsites;
    t->scale = p->scale;
    t->nlinks = p->nlinks;
    t->nchanges = p->nchanges;
    t->site_name = malloc(ns * sizeof *t->site_name);
    t->site_of = malloc((size_t)p->nranks * sizeof *t->site_of);
    t->site_ms = malloc(ns * ns * sizeof *t->site_ms);
    t->links = p->nlinks ? malloc((size_t)p->nlinks * sizeof *t->links) : NULL;
    t->changes = p->nchanges ? malloc((size_t)p->nchanges * sizeof *t->changes) : NULL;
    if (!t->site_name || !t->site_of || !t->site_ms || (p->nlinks && !t->links)
        || (p->nchanges && !t->changes)) {
        ftc_topology_free(t);
        return fail(p, "out of memory");
    }
    for (size_t i = 0; i < ns; i++) {
        memcpy(t->site_name[i], p->sites[i].name, sizeof t->site_name[i]);
        memcpy(t->site_ms + i * ns, p->pair_ms + i * (size_t)p->pair_cap, ns * sizeof *t->site_ms);
    }
    memcpy(t->site_of, p->site_of, (size_t)p->nranks * sizeof *t->site_of);
    copy_changes(t->links, p->links, p->nlinks);
    copy_changes(t->changes, p->changes, p->nchanges);
    return 0;
}

static void parser_free(parser *p)
{
    free(p->sites);
    free(p->site_of);
    free(p->pair_ms);
    free(p->pair_line);
    free(p->links);
    free(p->changes);
}

/* ---- the interface ------------------------------------------------------- */

int ftc_topology_parse(const char *text, ftc_topology *out, char *error, size_t error_size)
{
    parser p = { .error = error, .error_size = error_size, .scale = 1.0 };
    if (error && error_size > 0)
        error[0] = '\0';
    if (!out)
        return fail(&p, "no topology to fill");
    memset(out, 0, sizeof *out);
    if (!text)
        return fail(&p, "no text to parse");
    /* A writable copy: lines and fields are cut in place. */
    const size_t length = strlen(text);
    char *copy = malloc(length + 1);
    if (!copy)
        return fail(&p, "out of memory");
    memcpy(copy, text, length + 1);
    int rc = parse_lines(&p, copy);
    if (rc == 0)
        rc = check_whole(&p);
    if (rc == 0)
        rc = build(&p, out);
    free(copy);
    parser_free(&p);
    return rc;
}

/* The whole file as one string; NULL with `error` set on failure. A NUL
 * byte would silently end the text early, so it is refused. */
static char *read_file(const char *path, char *error, size_t error_size)
{
    FILE *file = fopen(path, "rb");
    if (!file) {
        snprintf(error, error_size, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t used = 0, cap = 4096;
    char *text = malloc(cap);
    while (text) {
        used += fread(text + used, 1, cap - 1 - used, file);
        if (used < cap - 1)
            break;   /* end of file or an error, told apart below */
        char *bigger = cap <= SIZE_MAX / 2 ? realloc(text, cap * 2) : NULL;
        if (!bigger) {
            free(text);
            text = NULL;
            break;
        }
        text = bigger;
        cap *= 2;
    }
    const int failed = ferror(file);
    fclose(file);
    if (!text) {
        snprintf(error, error_size, "cannot read %s: out of memory", path);
        return NULL;
    }
    if (failed) {
        snprintf(error, error_size, "cannot read %s: read error", path);
        free(text);
        return NULL;
    }
    text[used] = '\0';
    if (memchr(text, '\0', used)) {
        snprintf(error, error_size, "cannot read %s: it holds a NUL byte (not a text file?)",
                 path);
        free(text);
        return NULL;
    }
    return text;
}

int ftc_topology_load(const char *path, ftc_topology *out, char *error, size_t error_size)
{
    char scratch[1];   /* stands in for a missing error buffer */
    if (!error || error_size == 0) {
        error = scratch;
        error_size = sizeof scratch;
    }
    error[0] = '\0';
    if (out)
        memset(out, 0, sizeof *out);
    if (!path || !out) {
        snprintf(error, error_size, "no %s", !path ? "path to load" : "topology to fill");
        return -1;
    }
    char *text = read_file(path, error, error_size);
    if (!text)
        return -1;
    const int rc = ftc_topology_parse(text, out, error, error_size);
    free(text);
    return rc;
}

void ftc_topology_free(ftc_topology *topology)
{
    if (!topology)
        return;
    free(topology->site_name);
    free(topology->site_of);
    free(topology->site_ms);
    free(topology->links);
    free(topology->changes);
    memset(topology, 0, sizeof *topology);
}

static int same_channel(const ftc_topology_change *c, int a, int b)
{
    return (c->a == a && c->b == b) || (c->a == b && c->b == a);
}

/* Ranks outside 0..nranks-1 (or no topology) give -1.0, a value no channel
 * can have, so a caller's mistake shows instead of reading as "instant". */
double ftc_topology_latency(const ftc_topology *topology, int a, int b, int bcast)
{
    const ftc_topology *t = topology;
    if (!t || a < 0 || b < 0 || a >= t->nranks || b >= t->nranks)
        return -1.0;
    if (a == b)
        return 0.0;
    double ms = t->site_ms[(size_t)t->site_of[a] * t->nsites + t->site_of[b]];
    for (int i = 0; i < t->nlinks; i++)
        if (same_channel(&t->links[i], a, b))
            ms = t->links[i].ms;   /* the last link line wins */
    /* The change in force is the one that started latest; between two that
     * start together the later line wins, hence >=. */
    int in_force_from = 0;
    for (int i = 0; i < t->nchanges; i++) {
        const ftc_topology_change *c = &t->changes[i];
        if (same_channel(c, a, b) && c->from_bcast <= bcast && c->from_bcast >= in_force_from) {
            ms = c->ms;
            in_force_from = c->from_bcast;
        }
    }
    return t->scale * ms / 1000.0;
}
