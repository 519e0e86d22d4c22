/* ftcoll-bench: helpers every subcommand uses (see bench.h). */
#include "bench.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- before MPI_Init ------------------------------------------------------ */

bool bench_is_first_process(void)
{
    /* Open MPI, PMIx launchers (Open MPI 5, Slurm), MPICH's Hydra. */
    static const char *const rank_variables[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                                  "PMI_RANK" };
    for (size_t i = 0; i < sizeof(rank_variables) / sizeof(rank_variables[0]); i++) {
        const char *rank = getenv(rank_variables[i]);
        if (rank && *rank)
            return strcmp(rank, "0") == 0;
    }
    return true;
}

int bench_usage_error(const char *subcommand, const char *format, ...)
{
    if (!bench_is_first_process())
        return BENCH_USAGE;
    fprintf(stderr, "ftcoll-bench%s%s: ", subcommand ? " " : "", subcommand ? subcommand : "");
    va_list args;
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fprintf(stderr, "\nTry 'ftcoll-bench%s%s --help'.\n", subcommand ? " " : "",
            subcommand ? subcommand : "");
    return BENCH_USAGE;
}

bool bench_option_value(int argc, char **argv, int *i, const char *name, const char **value)
{
    const char *arg = argv[*i];
    const size_t length = strlen(name);
    if (strncmp(arg, name, length) != 0)
        return false;
    if (arg[length] == '=') {
        *value = arg + length + 1;
        (*i)++;
        return true;
    }
    if (arg[length] != '\0')
        return false;   /* a longer option that merely starts with `name` */
    *value = *i + 1 < argc ? argv[*i + 1] : NULL;
    *i += *value ? 2 : 1;
    return true;
}

bool bench_parse_bytes(const char *text, long long *out)
{
    if (!text || !*text)
        return false;
    char *end = NULL;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    if (end == text || errno == ERANGE || value <= 0)
        return false;
    long long unit = 1;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': unit = 1LL << 10; end++; break;
    case 'm': case 'M': unit = 1LL << 20; end++; break;
    case 'g': case 'G': unit = 1LL << 30; end++; break;
    default: return false;
    }
    if (*end != '\0' || value > LLONG_MAX / unit)
        return false;
    *out = value * unit;
    return true;
}

bool bench_parse_positive_int(const char *text, int *out)
{
    if (!text || !*text)
        return false;
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || value <= 0 || value > INT_MAX)
        return false;
    *out = (int)value;
    return true;
}

bool bench_parse_positive_seconds(const char *text, double *out)
{
    if (!text || !*text)
        return false;
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !(value > 0.0) || value > 3600.0)
        return false;
    *out = value;
    return true;
}

/* ---- statistics ------------------------------------------------------------- */

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void bench_stats_of(double *samples, int n, bench_stats *out)
{
    qsort(samples, (size_t)n, sizeof(*samples), compare_doubles);
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += samples[i];
    out->mean = sum / n;
    out->min = samples[0];
    out->median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2.0;
    /* Nearest rank: the smallest sample with at least 90% of them at or below it. */
    const int p90_rank = (9 * n + 9) / 10;   /* ceil(0.9 n), 1-based */
    out->p90 = samples[p90_rank - 1];
}

/* ---- CSV -------------------------------------------------------------------- */

FILE *bench_csv_open(const char *path, const char *header)
{
    FILE *csv = fopen(path, "a");
    if (!csv)
        return NULL;
    /* The position of a stream opened for appending is only defined after a
     * seek: go to the end explicitly to learn whether the file is empty. */
    if (fseek(csv, 0, SEEK_END) == 0 && ftell(csv) == 0)
        fprintf(csv, "%s\n", header);
    return csv;
}

void bench_csv_text(FILE *csv, const char *text)
{
    for (const char *c = text; *c; c++) {
        switch (*c) {
        case ',': fputc(';', csv); break;
        case '"': case '\n': case '\r': fputc(' ', csv); break;
        default: fputc(*c, csv);
        }
    }
}
