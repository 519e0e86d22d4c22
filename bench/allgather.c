/*
 * ftcoll-bench allgather: ftc_allgather against the MPI library's MPI_Allgather.
 *
 * For each algorithm asked for (--algorithm) and each block size (bytes per
 * rank), the measurement of common.c: a checked call of each side, a
 * warm-up, then interleaved timed iterations, the sample being the max over
 * ranks after a barrier (see common.c for the details and the reasons).
 *
 * What is the allgather's own: the algorithm options, the pattern the
 * result is checked against, what ftcoll really ran (ftc_allgather_last_choice,
 * shown as "auto:ring" or "bruck*" with the fallback's reason), and the
 * native label, which names the algorithm Open MPI's coll/tuned is forced to
 * through the environment.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ftcoll.h"

#define SUBCOMMAND "allgather"

typedef struct {
    ftc_allgather_algorithm algorithms[FTC_ALLGATHER_ALGORITHM_COUNT];
    int algorithm_count;
    ftc_allgather_algorithm native_forced;   /* what Open MPI's tuned was told to run, or AUTO */
    ftc_allgather_choice choice;             /* what ftcoll ran at the size being measured */
} allgather_state;

/* ---- options ------------------------------------------------------------------ */

static void print_usage(void)
{
    printf("Usage: mpirun -n RANKS ftcoll-bench allgather [OPTIONS]\n\n"
           "Times ftc_allgather against MPI_Allgather on MPI_BYTE blocks, interleaved.\n\n"
           "Options:\n"
           "  --algorithm NAME|auto|all  ftcoll's algorithm: a name or Open MPI number\n"
           "                             (linear, bruck, recursive_doubling, ring,\n"
           "                             neighbor_exchange, two_proc, sparbit), auto for\n"
           "                             the decision table, all for each of them and\n"
           "                             auto in turn (default: auto)\n");
    bench_print_common_options("block", "tuned:<algorithm> when Open MPI is forced through\n"
                               BENCH_USAGE_INDENT "OMPI_MCA_coll_tuned_*, else ompi:default");
}

static bool set_algorithms(allgather_state *st, const char *text)
{
    if (strcmp(text, "all") == 0) {
        st->algorithm_count = 0;
        for (int id = FTC_ALLGATHER_LINEAR; id < FTC_ALLGATHER_ALGORITHM_COUNT; id++)
            st->algorithms[st->algorithm_count++] = (ftc_allgather_algorithm)id;
        st->algorithms[st->algorithm_count++] = FTC_ALLGATHER_AUTO;
        return true;
    }
    st->algorithm_count = 1;
    return ftc_allgather_algorithm_parse(text, &st->algorithms[0]) == MPI_SUCCESS;
}

static int parse_option(int argc, char **argv, int *i, void *data)
{
    const char *value = NULL;
    if (!bench_option_value(argc, argv, i, "--algorithm", &value))
        return -1;
    if (!value)
        return bench_usage_error(SUBCOMMAND, "%s needs a value", "--algorithm");
    if (!set_algorithms(data, value))   /* the parser's own message lists the names */
        return bench_usage_error(SUBCOMMAND, "%s: %s", "--algorithm", ftc_error_message());
    return BENCH_OK;
}

/* ---- the native side ------------------------------------------------------------- */

#ifdef OPEN_MPI
/* The algorithm forced on Open MPI's coll/tuned through the environment;
 * ftcoll numbers its algorithms as Open MPI does, so its parser reads it. */
static ftc_allgather_algorithm forced_native_algorithm(void)
{
    const char *text = getenv("OMPI_MCA_coll_tuned_allgather_algorithm");
    ftc_allgather_algorithm forced = FTC_ALLGATHER_AUTO;
    if (!bench_env_is_true("OMPI_MCA_coll_tuned_use_dynamic_rules") || !text
        || ftc_allgather_algorithm_parse(text, &forced) != MPI_SUCCESS)
        return FTC_ALLGATHER_AUTO;
    return forced;
}
#endif

static void native_label(bench_session *s, char *label, size_t size)
{
    allgather_state *st = s->data;
    st->native_forced = FTC_ALLGATHER_AUTO;
#ifdef OPEN_MPI
    st->native_forced = forced_native_algorithm();
    if (st->native_forced != FTC_ALLGATHER_AUTO) {
        snprintf(label, size, "tuned:%s", ftc_allgather_algorithm_name(st->native_forced));
        return;
    }
#endif
    bench_default_native_label(label, size);
}

static bool explain_native_failure(const bench_session *s, int rc, const char *words,
                                   char *status, size_t size)
{
    const allgather_state *st = s->data;
    int error_class = MPI_SUCCESS;
    MPI_Error_class(rc, &error_class);
    if (error_class != MPI_ERR_UNSUPPORTED_OPERATION || st->native_forced == FTC_ALLGATHER_AUTO)
        return false;
    snprintf(status, size, "n/a: Open MPI does not support %s on p=%d (%.200s)",
             ftc_allgather_algorithm_name(st->native_forced), s->size, words);
    return true;
}

/* ---- the calls ------------------------------------------------------------------------ */

static int call_ours(bench_session *s, size_t bytes)
{
    return ftc_allgather(s->send, (int)bytes, MPI_BYTE, s->recv, (int)bytes, MPI_BYTE, s->ours);
}

static int call_native(bench_session *s, size_t bytes)
{
    return MPI_Allgather(s->send, (int)bytes, MPI_BYTE, s->recv, (int)bytes, MPI_BYTE, s->native);
}

/* Blocks must fit MPI's int counts: p x max_bytes bytes land on each rank. */
static int buffer_bytes(const bench_session *s, size_t *send_bytes, size_t *recv_bytes)
{
    if (s->opts->max_bytes > INT32_MAX / s->size) {
        if (s->rank == 0)
            fprintf(stderr, "ftcoll-bench allgather: --max-bytes %lld x %d ranks exceeds INT_MAX "
                    "bytes\n", s->opts->max_bytes, s->size);
        return BENCH_USAGE;
    }
    *send_bytes = (size_t)s->opts->max_bytes;
    *recv_bytes = (size_t)s->opts->max_bytes * (size_t)s->size;
    return BENCH_OK;
}

/* ---- correctness ------------------------------------------------------------------ */

/* Byte i of rank r's block: differs between ranks and along the block. */
static unsigned char pattern_byte(int rank, size_t i)
{
    return (unsigned char)(rank * 37u + i * 11u + (i >> 8) + 1u);
}

static void fill_send(bench_session *s, size_t bytes)
{
    for (size_t i = 0; i < bytes; i++)
        s->send[i] = pattern_byte(s->rank, i);
}

/* The complement of the expected bytes: a block never written cannot pass. */
static void poison_recv(bench_session *s, size_t bytes)
{
    for (int block = 0; block < s->size; block++)
        for (size_t i = 0; i < bytes; i++)
            s->recv[(size_t)block * bytes + i] = (unsigned char)~pattern_byte(block, i);
}

/* Returns true, or false after describing the first wrong byte in `why`. */
static bool recv_is_correct(const bench_session *s, size_t bytes, char *why, size_t why_size)
{
    for (int block = 0; block < s->size; block++) {
        for (size_t i = 0; i < bytes; i++) {
            const unsigned char got = s->recv[(size_t)block * bytes + i];
            if (got != pattern_byte(block, i)) {
                snprintf(why, why_size, "block of rank %d, byte %zu: got 0x%02x, expected 0x%02x",
                         block, i, got, pattern_byte(block, i));
                return false;
            }
        }
    }
    return true;
}

/* ---- what ftcoll ran ------------------------------------------------------------------ */

/* Messages name the algorithm executed ("ftc_allgather (ring)"); the table
 * says "ring", "auto:ring", "bruck*" (* = a fallback, explained under the row). */
static void describe_ours(bench_session *s, bench_ours_description *out)
{
    allgather_state *st = s->data;
    ftc_allgather_last_choice(s->ours, &st->choice);
    const ftc_allgather_choice *c = &st->choice;
    snprintf(out->call, sizeof(out->call), "ftc_allgather (%s)",
             ftc_allgather_algorithm_name(c->executed));
    snprintf(out->label, sizeof(out->label), "%s%s%s",
             c->requested == FTC_ALLGATHER_AUTO ? "auto:" : "",
             ftc_allgather_algorithm_name(c->executed), c->reason[0] ? "*" : "");
    snprintf(out->note, sizeof(out->note), "%s", c->reason);
}

static void write_csv_fields(const bench_session *s, FILE *csv)
{
    const ftc_allgather_choice *c = &((const allgather_state *)s->data)->choice;
    fprintf(csv, "%s,%s,%s,", ftc_allgather_algorithm_name(c->requested),
            ftc_allgather_algorithm_name(c->selected), ftc_allgather_algorithm_name(c->executed));
    bench_csv_text(csv, c->reason);
}

/* ---- the run ------------------------------------------------------------------------ */

static int run(bench_session *s)
{
    const allgather_state *st = s->data;
    for (int i = 0; i < st->algorithm_count; i++) {
        const ftc_allgather_algorithm algorithm = st->algorithms[i];
        ftc_allgather_set_algorithm(s->ours, algorithm);
        char ours[96];
        snprintf(ours, sizeof(ours), "ftc_allgather %s",
                 algorithm == FTC_ALLGATHER_AUTO ? "auto (decision table)"
                                                 : ftc_allgather_algorithm_name(algorithm));
        const int rc = bench_measure_sizes(s, ours);
        if (rc != BENCH_OK)
            return rc;
    }
    return BENCH_OK;
}

static const bench_collective allgather = {
    .name = SUBCOMMAND,
    .ours_call = "ftc_allgather",
    .native_call = "MPI_Allgather",
    .csv_columns = "requested,selected,executed,fallback_reason",
    .print_usage = print_usage,
    .parse_option = parse_option,
    .native_label = native_label,
    .buffer_bytes = buffer_bytes,
    .run = run,
    .call_ours = call_ours,
    .call_native = call_native,
    .fill_input = fill_send,
    .poison_output = poison_recv,
    .output_is_correct = recv_is_correct,
    .describe_ours = describe_ours,
    .write_csv_fields = write_csv_fields,
    .explain_native_failure = explain_native_failure,
};

int bench_allgather_main(int argc, char **argv)
{
    allgather_state st = { .algorithms = { FTC_ALLGATHER_AUTO }, .algorithm_count = 1 };
    return bench_collective_main(argc, argv, &allgather, &st);
}
