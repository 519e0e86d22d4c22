/*
 * The topology file reader (src/bcast/trees/topology.h): the thesis's network file
 * loads and gives Table 4.1's latencies; each keyword, rank lists, comments,
 * CRLF and long lines parse; links and changes take precedence as
 * documented; and every kind of malformed file is refused with "line N:"
 * and a reason that names the bad token, leaving the output zeroed.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "bcast/trees/topology.h"

#define EPS 1e-12

static const char thesis_name[] = "thesis-table-4.1.topo";

/* Table 4.1, milliseconds between sites S0..S5. */
static const double table_ms[6][6] = {
    { 0.0, 485.4, 698.9, 14.9, 332.8, 61.4 },
    { 485.4, 0.0, 364.1, 583.8, 13.5, 490.5 },
    { 698.9, 364.1, 0.0, 701.2, 371.7, 722.9 },
    { 14.9, 583.8, 701.2, 0.0, 331.0, 35.1 },
    { 332.8, 13.5, 371.7, 331.0, 0.0, 355.9 },
    { 61.4, 490.5, 722.9, 35.1, 355.9, 0.0 },
};

/* cmocka 1.1's assert_float_equal works in float: too coarse here. */
#define assert_double_equal(a, b, eps) expect_close((a), (b), (eps), __FILE__, __LINE__)

static void expect_close(double actual, double expected, double eps, const char *file, int line)
{
    if (fabs(actual - expected) <= eps)
        return;
    print_error("%s:%d: got %.17g, expected %.17g (within %g)\n", file, line, actual, expected,
                eps);
    fail();
}

static int quick(void)
{
    const char *text = getenv("FTCOLL_UNIT_QUICK");
    return text && *text && strcmp(text, "0") != 0;
}

static int is_zeroed(const ftc_topology *t)
{
    static const ftc_topology zero;
    return t->nranks == zero.nranks && t->nsites == zero.nsites && t->scale == zero.scale
           && !t->site_name && !t->site_of && !t->site_ms && t->nlinks == 0 && !t->links
           && t->nchanges == 0 && !t->changes;
}

/* Parses `text`, failing the test with the reason if it is refused. */
static void parse_ok(const char *text, ftc_topology *t)
{
    char error[256] = "";
    const int rc = ftc_topology_parse(text, t, error, sizeof error);
    if (rc != 0)
        print_error("refused: %s\n--- text ---\n%s\n", error, text);
    assert_int_equal(rc, 0);
    assert_string_equal(error, "");
}

/* `text` must be refused with an error containing `expected`, and the
 * output (filled with garbage first) must come back zeroed. */
static void expect_error(const char *text, const char *expected)
{
    ftc_topology t;
    memset(&t, 0xa5, sizeof t);
    char error[512] = "";
    const int rc = ftc_topology_parse(text, &t, error, sizeof error);
    if (rc == 0) {
        print_error("accepted, expected '%s'\n--- text ---\n%s\n", expected, text);
        ftc_topology_free(&t);
    } else if (!strstr(error, expected)) {
        print_error("got '%s', expected '%s'\n--- text ---\n%s\n", error, expected, text);
    }
    assert_int_equal(rc, -1);
    assert_non_null(strstr(error, expected));
    assert_true(is_zeroed(&t));
}

static double ms_of(const ftc_topology *t, int a, int b, int bcast)
{
    return ftc_topology_latency(t, a, b, bcast) * 1000.0 / t->scale;
}

/* ---- the thesis's network -------------------------------------------------- */

/* The file from FTCOLL_SOURCE_DIR, else relative to build/tests; 0 if
 * neither is there. */
static int find_thesis_file(char *path, size_t size)
{
    const char *dir = getenv("FTCOLL_SOURCE_DIR");
    for (int i = dir && *dir ? 0 : 1; i < 2; i++) {
        if (i == 0)
            snprintf(path, size, "%s/topologies/%s", dir, thesis_name);
        else
            snprintf(path, size, "../../topologies/%s", thesis_name);
        FILE *file = fopen(path, "r");
        if (file) {
            fclose(file);
            return 1;
        }
    }
    return 0;
}

static void thesis_file_gives_table_4_1(void **state)
{
    (void)state;
    char path[4096];
    if (!find_thesis_file(path, sizeof path)) {
        print_message("skipped: %s not found; set FTCOLL_SOURCE_DIR to the source tree\n",
                      thesis_name);
        skip();
    }
    ftc_topology t;
    char error[256] = "";
    const int rc = ftc_topology_load(path, &t, error, sizeof error);
    if (rc != 0)
        print_error("%s: %s\n", path, error);
    assert_int_equal(rc, 0);
    assert_int_equal(t.nranks, 24);
    assert_int_equal(t.nsites, 6);
    assert_double_equal(t.scale, 0.01, EPS);
    assert_int_equal(t.nlinks, 0);
    assert_int_equal(t.nchanges, 0);
    for (int s = 0; s < 6; s++) {
        char name[8];
        snprintf(name, sizeof name, "S%d", s);
        assert_string_equal(t.site_name[s], name);
    }
    for (int r = 0; r < 24; r++)
        assert_int_equal(t.site_of[r], r / 4);

    /* A few pairs spelled out, in seconds, then the whole matrix. */
    assert_double_equal(ftc_topology_latency(&t, 12, 16, 1), 331.0 * 0.01 / 1000, EPS);
    assert_double_equal(ftc_topology_latency(&t, 16, 12, 1), 331.0 * 0.01 / 1000, EPS);
    assert_double_equal(ftc_topology_latency(&t, 0, 12, 5), 14.9 * 0.01 / 1000, EPS);
    assert_double_equal(ftc_topology_latency(&t, 8, 23, 0), 722.9 * 0.01 / 1000, EPS);
    assert_double_equal(ftc_topology_latency(&t, 5, 17, 100), 13.5 * 0.01 / 1000, EPS);
    assert_double_equal(ftc_topology_latency(&t, 0, 3, 1), 0.0, EPS);
    assert_double_equal(ftc_topology_latency(&t, 7, 7, 1), 0.0, EPS);
    for (int a = 0; a < 24; a++)
        for (int b = 0; b < 24; b++)
            for (int bcast = 0; bcast <= 2; bcast++) {
                const double expected = a == b ? 0.0 : table_ms[a / 4][b / 4] * 0.01 / 1000;
                assert_double_equal(ftc_topology_latency(&t, a, b, bcast), expected, EPS);
            }
    assert_double_equal(ftc_topology_latency(&t, 0, 24, 1), -1.0, 0);
    ftc_topology_free(&t);
    assert_true(is_zeroed(&t));
}

/* ---- what parses --------------------------------------------------------- */

static void every_keyword(void **state)
{
    (void)state;
    ftc_topology t;
    parse_ok("scale 2.5\n"
             "site east 0-1\n"
             "site west.2 2,3\n"
             "latency east west.2 40\n"
             "latency west.2 west.2 0.5\n"
             "link 0 3 7.25\n"
             "change 3 1 2 90\n",
             &t);
    assert_int_equal(t.nranks, 4);
    assert_int_equal(t.nsites, 2);
    assert_double_equal(t.scale, 2.5, EPS);
    assert_string_equal(t.site_name[0], "east");
    assert_string_equal(t.site_name[1], "west.2");
    assert_double_equal(t.site_ms[0 * 2 + 1], 40, EPS);
    assert_double_equal(t.site_ms[1 * 2 + 0], 40, EPS);
    assert_double_equal(t.site_ms[0 * 2 + 0], 0, EPS);   /* intra-site default */
    assert_double_equal(t.site_ms[1 * 2 + 1], 0.5, EPS);
    assert_int_equal(t.nlinks, 1);
    assert_int_equal(t.links[0].from_bcast, 1);
    assert_int_equal(t.links[0].a, 0);
    assert_int_equal(t.links[0].b, 3);
    assert_double_equal(t.links[0].ms, 7.25, EPS);
    assert_int_equal(t.nchanges, 1);
    assert_int_equal(t.changes[0].from_bcast, 3);
    assert_int_equal(t.changes[0].a, 1);
    assert_int_equal(t.changes[0].b, 2);
    assert_double_equal(t.changes[0].ms, 90, EPS);

    assert_double_equal(ftc_topology_latency(&t, 0, 2, 1), 2.5 * 40 / 1000, EPS);
    assert_double_equal(ftc_topology_latency(&t, 0, 1, 1), 0.0, EPS);
    assert_double_equal(ftc_topology_latency(&t, 2, 3, 1), 2.5 * 0.5 / 1000, EPS);
    assert_double_equal(ftc_topology_latency(&t, 3, 0, 1), 2.5 * 7.25 / 1000, EPS);
    assert_double_equal(ftc_topology_latency(&t, 1, 2, 2), 2.5 * 40 / 1000, EPS);
    assert_double_equal(ftc_topology_latency(&t, 2, 1, 3), 2.5 * 90 / 1000, EPS);
    ftc_topology_free(&t);
}

static void scale_defaults_to_one(void **state)
{
    (void)state;
    ftc_topology t;
    parse_ok("site abcdefghij_ABCDEFGHIJ-012345678 0-2\n", &t);   /* 31 characters */
    assert_double_equal(t.scale, 1.0, 0);
    assert_int_equal(t.nsites, 1);
    assert_string_equal(t.site_name[0], "abcdefghij_ABCDEFGHIJ-012345678");
    assert_double_equal(ftc_topology_latency(&t, 0, 2, 1), 0.0, 0);
    ftc_topology_free(&t);

    parse_ok("site a 0\nsite b 1\nlatency b a 250\n", &t);
    assert_double_equal(ftc_topology_latency(&t, 0, 1, 1), 0.25, EPS);
    ftc_topology_free(&t);
}

static void rank_lists_and_ranges(void **state)
{
    (void)state;
    ftc_topology t;
    parse_ok("site A 0,2,5-7\n"
             "site B 1,3-4,8-8\n"
             "site C 10,9\n"
             "latency A B 1\nlatency A C 2\nlatency B C 3\n",
             &t);
    const int expected[] = { 0, 1, 0, 1, 1, 0, 0, 0, 1, 2, 2 };
    assert_int_equal(t.nranks, 11);
    for (int r = 0; r < 11; r++)
        assert_int_equal(t.site_of[r], expected[r]);
    assert_double_equal(ms_of(&t, 7, 9, 1), 2, 1e-9);
    assert_double_equal(ms_of(&t, 10, 4, 1), 3, 1e-9);
    ftc_topology_free(&t);
}

static void comments_blank_lines_and_spacing(void **state)
{
    (void)state;
    ftc_topology t;
    parse_ok("# a network\n"
             "\n"
             "   \t \n"
             "  # an indented comment, site X 99\n"
             "\tsite   A\t0-1   # trailing comment\n"
             "site B 2#no space before the comment\n"
             "latency A B 5 #\n"
             "#",
             &t);
    assert_int_equal(t.nranks, 3);
    assert_int_equal(t.nsites, 2);
    assert_double_equal(ms_of(&t, 1, 2, 1), 5, 1e-9);
    ftc_topology_free(&t);
}

static void crlf_and_no_final_newline(void **state)
{
    (void)state;
    ftc_topology t;
    parse_ok("scale 0.5\r\n# comment\r\n\r\nsite A 0-1\r\nsite B 2-3\r\n"
             "latency A B 12\r\nlink 0 1 3\r\nchange 2 0 3 8\r\n",
             &t);
    assert_double_equal(t.scale, 0.5, 0);
    assert_double_equal(ftc_topology_latency(&t, 1, 2, 1), 0.5 * 12 / 1000, EPS);
    assert_double_equal(ftc_topology_latency(&t, 0, 1, 1), 0.5 * 3 / 1000, EPS);
    assert_double_equal(ftc_topology_latency(&t, 0, 3, 2), 0.5 * 8 / 1000, EPS);
    ftc_topology_free(&t);

    parse_ok("site A 0-1\nsite B 2\nlatency A B 12", &t);
    assert_double_equal(ms_of(&t, 0, 2, 1), 12, 1e-9);
    ftc_topology_free(&t);
}

/* "# xxx...\nsite big 0,1,...,n-1" followed by `tail`: a comment and a
 * rank list far longer than any fixed line buffer. */
static char *long_text(int n, const char *tail)
{
    const size_t size = (size_t)n * 8 + 100000 + strlen(tail) + 64;
    char *text = malloc(size);
    assert_non_null(text);
    size_t used = (size_t)snprintf(text, size, "# ");
    memset(text + used, 'x', 100000);
    used += 100000;
    used += (size_t)snprintf(text + used, size - used, "\nsite big ");
    for (int r = 0; r < n; r++)
        used += (size_t)snprintf(text + used, size - used, r ? ",%d" : "%d", r);
    used += (size_t)snprintf(text + used, size - used, "%s", tail);
    assert_true(used < size);
    return text;
}

static void long_lines(void **state)
{
    (void)state;
    const int n = quick() ? 2000 : 50000;
    char tail[64];
    snprintf(tail, sizeof tail, "\nlink 0 %d 4\n", n - 1);
    char *text = long_text(n, tail);
    ftc_topology t;
    parse_ok(text, &t);
    assert_int_equal(t.nranks, n);
    assert_int_equal(t.site_of[n - 1], 0);
    assert_double_equal(ms_of(&t, n - 1, 0, 1), 4, 1e-9);
    ftc_topology_free(&t);
    free(text);

    /* A bad token at the end of a long line is still found and named. */
    snprintf(tail, sizeof tail, ",%dz\n", n);
    text = long_text(n, tail);
    char expected[64];
    snprintf(expected, sizeof expected, "line 2: site big: '%dz' is not a rank or a range", n);
    expect_error(text, expected);
    free(text);
}

static void links_override_sites(void **state)
{
    (void)state;
    ftc_topology t;
    parse_ok("site A 0-1\nsite B 2-3\nlatency A B 100\n"
             "link 0 2 10\n"
             "link 3 1 20\n"
             "link 2 0 30\n",   /* the same pair, later: wins */
             &t);
    assert_double_equal(ms_of(&t, 0, 2, 1), 30, 1e-9);
    assert_double_equal(ms_of(&t, 2, 0, 7), 30, 1e-9);
    assert_double_equal(ms_of(&t, 1, 3, 1), 20, 1e-9);
    assert_double_equal(ms_of(&t, 0, 3, 1), 100, 1e-9);   /* untouched pair */
    assert_double_equal(ms_of(&t, 0, 1, 1), 0, 1e-9);
    ftc_topology_free(&t);
}

static void changes_by_broadcast_number(void **state)
{
    (void)state;
    ftc_topology t;
    parse_ok("site A 0-1\nsite B 2-3\nlatency A B 100\n"
             "link 0 2 50\n"
             "change 4 0 2 400\n"        /* overrides the link from 4 on */
             "change 8 2 0 800\n"        /* the pair is unordered */
             "change 8 0 2 801\n"        /* same K, later line: wins */
             "change 6 1 3 600\n"
             "change 3 1 3 300\n",       /* starts earlier: in force for 3..5 only */
             &t);
    assert_double_equal(ms_of(&t, 0, 2, 0), 50, 1e-9);
    assert_double_equal(ms_of(&t, 0, 2, 3), 50, 1e-9);
    assert_double_equal(ms_of(&t, 0, 2, 4), 400, 1e-9);
    assert_double_equal(ms_of(&t, 2, 0, 7), 400, 1e-9);
    assert_double_equal(ms_of(&t, 0, 2, 8), 801, 1e-9);
    assert_double_equal(ms_of(&t, 2, 0, 1000), 801, 1e-9);

    assert_double_equal(ms_of(&t, 1, 3, 2), 100, 1e-9);
    assert_double_equal(ms_of(&t, 3, 1, 3), 300, 1e-9);
    assert_double_equal(ms_of(&t, 1, 3, 5), 300, 1e-9);
    assert_double_equal(ms_of(&t, 1, 3, 6), 600, 1e-9);
    assert_double_equal(ms_of(&t, 1, 3, 60), 600, 1e-9);

    assert_double_equal(ms_of(&t, 0, 3, 100), 100, 1e-9);   /* no change for it */
    ftc_topology_free(&t);

    parse_ok("site A 0-2\nchange 2 0 1 10\nchange 2 1 0 20\nchange 2 0 1 30\n", &t);
    assert_double_equal(ms_of(&t, 0, 1, 1), 0, 1e-9);
    assert_double_equal(ms_of(&t, 1, 0, 2), 30, 1e-9);   /* last of three at K = 2 */
    assert_double_equal(ms_of(&t, 0, 2, 2), 0, 1e-9);
    ftc_topology_free(&t);
}

static void latency_edge_cases(void **state)
{
    (void)state;
    ftc_topology t;
    parse_ok("site A 0-1\nsite B 2-3\nlatency A B 100\nlatency A A 2\n", &t);
    assert_double_equal(ftc_topology_latency(&t, 0, 0, 1), 0.0, 0);
    assert_double_equal(ms_of(&t, 0, 1, 1), 2, 1e-9);       /* intra-site, set */
    assert_double_equal(ms_of(&t, 2, 3, 1), 0, 1e-9);       /* intra-site, default */
    assert_double_equal(ftc_topology_latency(&t, -1, 0, 1), -1.0, 0);
    assert_double_equal(ftc_topology_latency(&t, 0, 4, 1), -1.0, 0);
    assert_double_equal(ftc_topology_latency(&t, 4, 4, 1), -1.0, 0);
    assert_double_equal(ftc_topology_latency(NULL, 0, 1, 1), -1.0, 0);
    ftc_topology_free(&t);
    ftc_topology_free(&t);   /* freeing twice is harmless: free zeroes */
    ftc_topology_free(NULL);
}

/* ---- loading files ------------------------------------------------------- */

/* Writes `size` bytes to a fresh temporary file; its path goes in `path`. */
static void write_temp(char *path, size_t path_size, const char *bytes, size_t size)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, path_size, "%s/ftc_topology_XXXXXX", dir && *dir ? dir : "/tmp");
    const int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *file = fdopen(fd, "wb");
    assert_non_null(file);
    assert_int_equal(fwrite(bytes, 1, size, file), size);
    assert_int_equal(fclose(file), 0);
}

static void load_files(void **state)
{
    (void)state;
    ftc_topology t;
    char error[512] = "";
    memset(&t, 0xa5, sizeof t);
    assert_int_equal(ftc_topology_load("/nonexistent/dir/x.topo", &t, error, sizeof error), -1);
    assert_non_null(strstr(error, "cannot open /nonexistent/dir/x.topo: No such file"));
    assert_true(is_zeroed(&t));

    char path[4096];
    const char good[] = "site A 0-1\r\nsite B 2\r\nlatency A B 9\r\n";
    write_temp(path, sizeof path, good, sizeof good - 1);
    assert_int_equal(ftc_topology_load(path, &t, error, sizeof error), 0);
    assert_int_equal(t.nranks, 3);
    assert_double_equal(ms_of(&t, 2, 0, 1), 9, 1e-9);
    ftc_topology_free(&t);
    remove(path);

    const char bad[] = "site A 0-1\nsite B 2\nlatency A B 9x\n";
    write_temp(path, sizeof path, bad, sizeof bad - 1);
    memset(&t, 0xa5, sizeof t);
    assert_int_equal(ftc_topology_load(path, &t, error, sizeof error), -1);
    assert_non_null(strstr(error, "line 3: latency: '9x' is not a number"));
    assert_true(is_zeroed(&t));
    remove(path);

    /* A NUL byte would end the text early and hide what follows. */
    const char nul[] = "site A 0-1\n\0garbage\n";
    write_temp(path, sizeof path, nul, sizeof nul - 1);
    assert_int_equal(ftc_topology_load(path, &t, error, sizeof error), -1);
    assert_non_null(strstr(error, "NUL byte"));
    assert_true(is_zeroed(&t));
    remove(path);

    /* A file bigger than the first read buffer. */
    const size_t size = 20000;
    char *big = malloc(size + 1);
    assert_non_null(big);
    memset(big, ' ', size);
    memcpy(big, "site A 0-3 #", 12);
    big[size - 1] = '\n';
    write_temp(path, sizeof path, big, size);
    assert_int_equal(ftc_topology_load(path, &t, error, sizeof error), 0);
    assert_int_equal(t.nranks, 4);
    ftc_topology_free(&t);
    remove(path);
    free(big);
}

/* ---- what is refused ----------------------------------------------------- */

/* Three valid lines, so the line under test is line 4. */
#define BASE "site A 0-1\nsite B 2-3\nlatency A B 10\n"

static void errors_in_lines(void **state)
{
    (void)state;
    expect_error("# x\n\nsitee A 0\n",
                 "line 3: unknown keyword 'sitee' (expected scale, site, latency, link or change)");
    expect_error(BASE "Site C 4\n", "line 4: unknown keyword 'Site'");
    expect_error("site A 0-1\nsite B 2-3\n\n\n\n\n\n\nlatency A B 10 20\n",
                 "line 9: too many fields for latency (expected: latency SITE SITE MS)");
    expect_error(BASE "latency A B\n",
                 "line 4: too few fields for latency (expected: latency SITE SITE MS)");
    expect_error("site A\n", "line 1: too few fields for site (expected: site NAME RANKS)");
    expect_error("site A 0, 1\n", "line 1: too many fields for site");
    expect_error("scale\n", "line 1: too few fields for scale (expected: scale FACTOR)");
    expect_error(BASE "link 0 1\n", "line 4: too few fields for link (expected: link RANK RANK MS)");
    expect_error(BASE "change 1 0 1 5 6\n",
                 "line 4: too many fields for change (expected: change BCAST RANK RANK MS)");
    expect_error(BASE "change 1 0 1 5 6 7 8 9 10\n", "line 4: too many fields for change");
}

static void errors_in_scale(void **state)
{
    (void)state;
    expect_error("scale 1\n" BASE "scale 2\n", "line 5: scale: given twice (first on line 1)");
    expect_error("scale 0\n" BASE, "line 1: scale: '0' must be positive");
    expect_error("scale -0.5\n" BASE, "line 1: scale: '-0.5' must be positive");
    expect_error("scale 0.01x\n" BASE, "line 1: scale: '0.01x' is not a number");
    expect_error("scale x\n" BASE, "line 1: scale: 'x' is not a number");
    expect_error("scale nan\n" BASE, "line 1: scale: 'nan' is not a finite number");
    expect_error("scale inf\n" BASE, "line 1: scale: 'inf' is not a finite number");
    expect_error("scale 1e999\n" BASE, "line 1: scale: '1e999' is out of range");
}

static void errors_in_sites(void **state)
{
    (void)state;
    expect_error("site S0 0-3\nsite S1 4-5\n\n# x\nsite S2 6,3\n",
                 "line 5: site S2: rank 3 is already in site S0");
    expect_error("site S0 0-3\n\n\n\nsite S1 4,3-7\n", "line 5: site S1: rank 3 is already in site S0");
    expect_error("site S0 0,1,1\n", "line 1: site S0: rank 1 is already in site S0");
    expect_error(BASE "site A 4\n", "line 4: site A: already declared on line 1");
    expect_error("site S/0 0\n", "line 1: site: 'S/0' is not a valid site name");
    expect_error("site S\xc3\xb3 0\n", "is not a valid site name");
    expect_error("site abcdefghij_ABCDEFGHIJ-0123456789 0\n",   /* 32 characters */
                 "line 1: site: name 'abcdefghij_ABCDEFGHIJ-0123456789' is longer than 31 "
                 "characters");
    expect_error("site A x\n", "line 1: site A: 'x' is not a rank or a range");
    expect_error("site A -1\n", "line 1: site A: '-1' is not a rank or a range");
    expect_error("site A 0,-1\n", "line 1: site A: '-1' is not a rank or a range");
    expect_error("site A 0-1x,5\n", "line 1: site A: '0-1x' is not a rank or a range");
    expect_error("site A 0-\n", "line 1: site A: '0-' is not a rank or a range");
    expect_error("site A 1-2-3\n", "line 1: site A: '1-2-3' is not a rank or a range");
    expect_error("site A +1\n", "line 1: site A: '+1' is not a rank or a range");
    expect_error("site A 5-3\n", "line 1: site A: range '5-3' runs backwards");
    expect_error("site A 0,,1\n", "line 1: site A: empty entry in the rank list");
    expect_error("site A 0,1,\n", "line 1: site A: empty entry in the rank list");
    expect_error("site A ,0\n", "line 1: site A: empty entry in the rank list");
    expect_error("site A 99999999999999999999999\n",
                 "line 1: site A: '99999999999999999999999' has a rank that is too large");
    expect_error("site A 0-2000000000\n", "line 1: site A: '0-2000000000' has a rank that is too large");
}

static void errors_in_latencies(void **state)
{
    (void)state;
    expect_error("site S0 0\nsite S1 1\n\n\n\n\nlatency S0 S1 48x\n",
                 "line 7: latency: '48x' is not a number");
    expect_error(BASE "latency A C 5\n",
                 "line 4: latency: unknown site 'C' (declare it with a site line first)");
    expect_error("site A 0\nlatency A B 5\nsite B 1\n", "line 2: latency: unknown site 'B'");
    expect_error(BASE "latency A B 11\n", "line 4: latency A B: already given on line 3");
    expect_error(BASE "latency B A 11\n", "line 4: latency B A: already given on line 3");
    expect_error(BASE "latency A A 1\nlatency A A 2\n", "line 5: latency A A: already given on line 4");
    expect_error(BASE "latency A A -1\n", "line 4: latency: latency '-1' is negative");
    expect_error(BASE "latency A A nan\n", "line 4: latency: 'nan' is not a finite number");
    expect_error(BASE "latency A A -inf\n", "line 4: latency: '-inf' is not a finite number");
    expect_error(BASE "latency A A 1e400\n", "line 4: latency: '1e400' is out of range");
    expect_error(BASE "latency A A 1e-400\n", "line 4: latency: '1e-400' is out of range");
    expect_error(BASE "latency A A ''\n", "line 4: latency: '''' is not a number");
}

static void errors_in_links_and_changes(void **state)
{
    (void)state;
    expect_error(BASE "link 1 1 5\n", "line 4: link: the two ranks must differ (got 1 twice)");
    expect_error(BASE "link 1 x 5\n", "line 4: link: 'x' is not a rank (expected an integer >= 0)");
    expect_error(BASE "link -1 2 5\n", "line 4: link: '-1' is not a rank");
    expect_error(BASE "link 1 2x 5\n", "line 4: link: '2x' is not a rank");
    expect_error(BASE "link 1 99999999999999999999 5\n",
                 "line 4: link: rank '99999999999999999999' is too large");
    expect_error(BASE "link 1 2 5ms\n", "line 4: link: '5ms' is not a number");
    expect_error(BASE "link 1 2 -5\n", "line 4: link: latency '-5' is negative");
    expect_error(BASE "link 0 4 5\n", "line 4: link: rank 4 is in no site (ranks are 0..3)");

    expect_error(BASE "change 0 0 1 5\n", "line 4: change: broadcast number '0' must be >= 1");
    expect_error(BASE "change -2 0 1 5\n", "line 4: change: '-2' is not a broadcast number");
    expect_error(BASE "change 1.5 0 1 5\n", "line 4: change: '1.5' is not a broadcast number");
    expect_error(BASE "change 99999999999 0 1 5\n",
                 "line 4: change: broadcast number '99999999999' is too large");
    expect_error(BASE "change 2 3 3 5\n", "line 4: change: the two ranks must differ (got 3 twice)");
    expect_error(BASE "change 2 3 y 5\n", "line 4: change: 'y' is not a rank");
    expect_error(BASE "change 2 0 1 inf\n", "line 4: change: 'inf' is not a finite number");
    expect_error(BASE "change 2 0 1 -0.1\n", "line 4: change: latency '-0.1' is negative");
    expect_error(BASE "\n\nchange 2 0 9 5\n", "line 6: change: rank 9 is in no site (ranks are 0..3)");
}

static void errors_in_the_whole_file(void **state)
{
    (void)state;
    expect_error("", "no site declared");
    expect_error("# only a comment\n\nscale 2\n", "no site declared");
    expect_error("site A 0-1\nsite B 3-4\nlatency A B 1\n",
                 "rank 2 is in no site (ranks must be 0..4 without gaps)");
    expect_error("site A 1-3\n", "rank 0 is in no site");
    expect_error("site S0 0\nsite S1 1\nsite S2 2\nlatency S0 S1 1\nlatency S1 S2 1\n",
                 "no latency between sites S0 and S2");
}

/* A missing or small error buffer is no reason to crash or overrun. */
static void error_buffer_edge_cases(void **state)
{
    (void)state;
    ftc_topology t;
    assert_int_equal(ftc_topology_parse("bad\n", &t, NULL, 0), -1);
    assert_true(is_zeroed(&t));
    char small[8];
    memset(small, 'z', sizeof small);
    assert_int_equal(ftc_topology_parse("\n\n\n\n\n\n\n\n\nbad\n", &t, small, 4), -1);
    assert_string_equal(small, "lin");
    assert_int_equal(small[4], 'z');
    assert_int_equal(ftc_topology_parse("bad\n", &t, small, sizeof small), -1);
    assert_string_equal(small, "line 1:");
    assert_int_equal(ftc_topology_load("/nonexistent", &t, NULL, 0), -1);
    assert_int_equal(ftc_topology_parse(NULL, &t, small, sizeof small), -1);
    assert_true(is_zeroed(&t));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(thesis_file_gives_table_4_1),
        cmocka_unit_test(every_keyword),
        cmocka_unit_test(scale_defaults_to_one),
        cmocka_unit_test(rank_lists_and_ranges),
        cmocka_unit_test(comments_blank_lines_and_spacing),
        cmocka_unit_test(crlf_and_no_final_newline),
        cmocka_unit_test(long_lines),
        cmocka_unit_test(links_override_sites),
        cmocka_unit_test(changes_by_broadcast_number),
        cmocka_unit_test(latency_edge_cases),
        cmocka_unit_test(load_files),
        cmocka_unit_test(errors_in_lines),
        cmocka_unit_test(errors_in_scale),
        cmocka_unit_test(errors_in_sites),
        cmocka_unit_test(errors_in_latencies),
        cmocka_unit_test(errors_in_links_and_changes),
        cmocka_unit_test(errors_in_the_whole_file),
        cmocka_unit_test(error_buffer_edge_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
