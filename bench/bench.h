/*
 * ftcoll-bench: what the subcommands share — exit codes, option values,
 * statistics over timing samples, CSV output.
 *
 * A subcommand is one entry of the table in ftcoll-bench.c: it gets its own
 * argv (argv[0] is its name), parses it before MPI_Init so that a typo costs
 * no MPI start-up, and returns one of the exit codes below.
 */
#ifndef FTCOLL_BENCH_H
#define FTCOLL_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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

#endif
