/*
 * ftcoll-bench: what the subcommands share — exit codes, option values,
 * statistics over timing samples, CSV output, and the whole measurement of
 * "ours against native" (bench_collective_main).
 *
 * A subcommand is one entry of the table in ftcoll-bench.c: it gets its own
 * argv (argv[0] is its name), parses it before MPI_Init so that a typo costs
 * no MPI start-up, and returns one of the exit codes below. A subcommand that
 * compares one ftcoll collective with the MPI library's describes the pair
 * in a bench_collective and hands it to bench_collective_main, which parses
 * the common options, checks, times and reports each size.
 */
#ifndef FTCOLL_BENCH_H
#define FTCOLL_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <mpi.h>

#include "ftcoll.h"

enum {
    BENCH_OK = 0,
    BENCH_FAILED = 1,   /* a call failed or gave a wrong result */
    BENCH_USAGE = 2     /* unknown subcommand or option, bad value */
};

typedef struct {
    const char *name;
    const char *summary;             /* one line for the top-level --help */
    int (*run)(int argc, char **argv);
} bench_subcommand;

int bench_allgather_main(int argc, char **argv);
int bench_allreduce_main(int argc, char **argv);
int bench_allreduce_recovery_main(int argc, char **argv);
int bench_guard_main(int argc, char **argv);
int bench_tree_main(int argc, char **argv);

/* ---- before MPI_Init ------------------------------------------------------ */

/* True on the process that should print usage messages: rank 0 of the job
 * (read from the launcher's environment, as MPI is not started yet), or any
 * process started without a launcher. Keeps 8 ranks from printing 8 copies. */
bool bench_is_first_process(void);

/* Prints "ftcoll-bench <subcommand>: <message>" and a hint to use --help on
 * the first process; returns BENCH_USAGE. */
int bench_usage_error(const char *subcommand, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Option scanning: `--name VALUE` and `--name=VALUE` both work.
 * bench_option_value returns true when argv[*i] is option `name`; then
 * *value is its value (NULL when it is missing) and *i has moved past it.
 */
bool bench_option_value(int argc, char **argv, int *i, const char *name, const char **value);

/* One "--name VALUE" option of a subcommand: `set` stores the value into
 * the subcommand's options (`target`) or refuses it. */
typedef struct {
    const char *name;
    bool (*set)(void *target, const char *value);
    const char *expected;   /* for the message when `set` refuses a value */
} bench_option_spec;

/* Handles argv[*i] if it is one of the n `specs`: BENCH_OK, BENCH_USAGE
 * after a message, or -1 when it is none of them. */
int bench_apply_option(const char *subcommand, const bench_option_spec *specs, size_t n,
                       int argc, char **argv, int *i, void *target);

/* Parsers: the whole text must be a value, or they return false. */
bool bench_parse_bytes(const char *text, long long *out);   /* 8, 4K, 1M (K, M, G: x1024) */
bool bench_parse_positive_int(const char *text, int *out);
bool bench_parse_positive_seconds(const char *text, double *out);

/* ---- statistics ------------------------------------------------------------- */

typedef struct {
    double median, mean, p90, min;   /* seconds */
} bench_stats;

/* Statistics of n > 0 samples; sorts `samples` in place. */
void bench_stats_of(double *samples, int n, bench_stats *out);

/* ---- CSV -------------------------------------------------------------------- */

/* Opens `path` for appending and writes `header` (a line, without newline)
 * only when the file is new or empty, so several runs can share one file.
 * Returns NULL, with errno set, when it cannot. */
FILE *bench_csv_open(const char *path, const char *header);

/* Writes a text field. Commas, quotes and line breaks become ';', ' ' and
 * ' ': fields never need quoting, so `awk -F,` reads the file. */
void bench_csv_text(FILE *csv, const char *text);

/* ---- environment -------------------------------------------------------------- */

/* True when variable `name` holds one of Open MPI's spellings of a true
 * boolean MCA value (1, true, yes, t, y, enabled; any case). */
bool bench_env_is_true(const char *name);

/* The native side's name when nothing more is known: "ompi:default" under
 * Open MPI (its own selection, no forcing), else "native". */
void bench_default_native_label(char *label, size_t size);

/* ---- ours against native: one collective, size by size ------------------------ */

/* The options every such subcommand takes (see bench_print_common_options). */
typedef struct {
    long long min_bytes, max_bytes;   /* the sizes: min, min x factor, ... <= max */
    int factor;
    int iterations;                   /* 0: adapt to the size */
    double seconds_per_size;          /* the budget that adapting aims at */
    const char *csv_path;             /* NULL: no CSV */
    const char *native_label;         /* NULL: the collective's own default */
    bool help;
} bench_options;

#define BENCH_MIN_ADAPTIVE_ITERATIONS 20
#define BENCH_MAX_ADAPTIVE_ITERATIONS 1000
#define BENCH_DEFAULT_SECONDS_PER_SIZE 1.5

/* The column where option descriptions start in --help, for continuation
 * lines inside a description passed to bench_print_common_options. */
#define BENCH_USAGE_INDENT "                             "

/* Prints the --help lines of the common options and the closing paragraph.
 * `unit` names one size ("block"); `native_default` says what the native
 * label is by default (may continue on BENCH_USAGE_INDENT lines). */
void bench_print_common_options(const char *unit, const char *native_default);

typedef struct bench_session bench_session;

/* What ftcoll ran at a size, as told right after the checked call. */
typedef struct {
    char call[96];    /* for messages: "ftc_allgather (ring)" */
    char label[64];   /* the table's `ours` column: "auto:ring" */
    char note[160];   /* printed once under the first row it concerns; "" if none */
} bench_ours_description;

/*
 * One ftcoll collective and its MPI counterpart. `bytes` is always the size
 * being measured (what --min-bytes .. --max-bytes walk through); the send
 * and receive buffers are the session's, as large as `buffer_bytes` asked.
 * Every hook is required unless said optional.
 */
typedef struct {
    const char *name;            /* the subcommand: "allgather" */
    const char *ours_call;       /* "ftc_allgather" */
    const char *native_call;     /* "MPI_Allgather" */
    const char *csv_columns;     /* the collective's own CSV columns, after `ranks` */

    void (*print_usage)(void);
    /* Optional: the subcommand's own options. Returns BENCH_OK when argv[*i]
     * was one (and moves *i past it), BENCH_USAGE after a message, or -1
     * when argv[*i] is none of them. `data` as given to bench_collective_main. */
    int (*parse_option)(int argc, char **argv, int *i, void *data);
    /* The native label when --native-label is not given (called on every rank). */
    void (*native_label)(bench_session *s, char *label, size_t size);
    /* Checks the options against p (MPI_COMM_WORLD's size) and sets the sizes
     * of the send and receive buffers for --max-bytes. Returns BENCH_OK, or
     * BENCH_USAGE after a message on rank 0; every rank must agree. */
    int (*buffer_bytes)(const bench_session *s, size_t *send_bytes, size_t *recv_bytes);
    /* Measures: usually bench_measure_sizes once per configuration. */
    int (*run)(bench_session *s);

    int (*call_ours)(bench_session *s, size_t bytes);
    int (*call_native)(bench_session *s, size_t bytes);   /* on s->native */
    /* Correctness: fill the input with a known pattern, poison the output so
     * that an unwritten byte cannot pass, verify it (why: the first error). */
    void (*fill_input)(bench_session *s, size_t bytes);
    void (*poison_output)(bench_session *s, size_t bytes);
    bool (*output_is_correct)(const bench_session *s, size_t bytes, char *why, size_t why_size);
    /* Called after the checked call of ours, whatever its outcome. */
    void (*describe_ours)(bench_session *s, bench_ours_description *out);
    /* Writes the csv_columns' fields of the size just measured (no commas
     * around them: bench_csv_text for free text). */
    void (*write_csv_fields)(const bench_session *s, FILE *csv);
    /* Optional: a more precise "n/a: ..." status for a native call that
     * failed with `rc` on rank 0 (`words`: MPI's text for it); true if it
     * wrote one. */
    bool (*explain_native_failure)(const bench_session *s, int rc, const char *words,
                                   char *status, size_t size);
} bench_collective;

struct bench_session {
    const bench_collective *collective;
    const bench_options *opts;
    void *data;                  /* the subcommand's own, as given to bench_collective_main */
    int rank, size;              /* in MPI_COMM_WORLD */
    ftc_comm_t ours;
    MPI_Comm native;             /* a duplicate of MPI_COMM_WORLD returning errors */
    char native_label[64];
    unsigned char *send, *recv;  /* shared by both sides */
    FILE *csv;                   /* rank 0, with --csv */
};

/*
 * The whole subcommand: parses argv (common options and the collective's
 * own), prints --help, starts MPI, sets up a session (ftcoll communicator,
 * native duplicate, buffers, CSV), prints the conditions, calls c->run,
 * cleans up. Returns the exit code.
 */
int bench_collective_main(int argc, char **argv, const bench_collective *c, void *data);

/*
 * Measures every size from --min-bytes to --max-bytes, under a table header
 * naming `ours` ("ftc_allgather ring"): per size, one checked call of each
 * side (a wrong result or an ftcoll error stops the run: BENCH_FAILED; a
 * native MPI error marks native "n/a"), a warm-up that sizes the run, then
 * the interleaved timed iterations. Prints a row per size on rank 0 and
 * appends it to the CSV.
 */
int bench_measure_sizes(bench_session *s, const char *ours);

#endif
