/*
 * The allreduce's state on a communicator (comm->allreduce, ft_call.h):
 * its module table for communicator.c (FTCOLL_STRICT, FTCOLL_INJECT; the
 * recovery round it registers with the fault-tolerance layer), and the
 * public calls that read or change it.
 */
#include <stdlib.h>

#include "../args.h"
#include "../buffer.h"
#include "../error.h"
#include "../module.h"
#include "ft_call.h"
#include "ft_engine.h"

/* ---- the module (module.h) ------------------------------------------------------------ */

static int allreduce_create(ftc_comm_t comm)
{
    struct ftc_allreduce_state *s = calloc(1, sizeof(*s));
    if (!s)
        return ftc_fail(MPI_ERR_NO_MEM, "ftc_comm_create: out of memory");
    comm->allreduce = s;
    s->kept.type = MPI_DATATYPE_NULL;
    for (int i = 0; i < FTC_FT_WINDOW; i++)
        s->window[i].type = MPI_DATATYPE_NULL;
    bool ok = ftc_holdings_init(&s->call_held, comm->size);
    ok = ftc_holdings_init(&s->call_alive, comm->size) && ok;
    ok = ftc_holdings_init(&s->report_held, comm->size) && ok;
    ok = ftc_holdings_init(&s->report_failed, comm->size) && ok;
    ok = ftc_holdings_init(&s->held_failed, comm->size) && ok;
    ok = ftc_ensure_capacity(&comm->scratch, &comm->scratch_size, FTC_SMALL_SCRATCH_BYTES)
             == MPI_SUCCESS
         && ftc_ensure_capacity(&s->kept.data, &s->kept.capacity, FTC_SMALL_SCRATCH_BYTES)
                == MPI_SUCCESS
         && ok;
    if (!ok)
        return ftc_fail(MPI_ERR_NO_MEM, "ftc_comm_create: out of memory");
#ifdef FTCOLL_HAVE_ULFM
    ftc_ft_set_round(comm->ft, ftc_allreduce_round);
#endif
    return MPI_SUCCESS;
}

static int read_injections(ftc_inject_plan *plan)
{
    char why[256];
    if (ftc_inject_parse(getenv("FTCOLL_INJECT"), plan, why, sizeof(why)))
        return MPI_SUCCESS;
    return ftc_fail(MPI_ERR_ARG, "FTCOLL_INJECT: %s", why);
}

/* FTCOLL_ALLREDUCE_ALGORITHM: auto (unset), recursive_doubling or rabenseifner. */
static int read_algorithm(ftc_allreduce_algorithm *algorithm)
{
    const char *name = getenv("FTCOLL_ALLREDUCE_ALGORITHM");
    if (!name || !*name || ftc_allreduce_algorithm_parse(name, algorithm))
        return MPI_SUCCESS;
    return ftc_fail(MPI_ERR_ARG, "FTCOLL_ALLREDUCE_ALGORITHM=\"%s\": expected auto, "
                                 "recursive_doubling or rabenseifner", name);
}

static int allreduce_read_settings(ftc_comm_t comm)
{
    /* FTCOLL_STRICT: see ftc_allreduce_set_strict */
    int rc = ftc_read_switch("FTCOLL_STRICT", &comm->allreduce->strict);
    if (rc == MPI_SUCCESS)
        rc = read_algorithm(&comm->allreduce->algorithm);
    return rc == MPI_SUCCESS ? read_injections(&comm->allreduce->inject) : rc;
}

/* Strict and lenient ranks would return different outcomes for one call;
 * ranks running different algorithms would never meet. */
static int allreduce_agreed(ftc_comm_t comm, ftc_equal_value *values)
{
    values[0] = (ftc_equal_value){ "FTCOLL_STRICT", comm->allreduce->strict, NULL };
    values[1] = (ftc_equal_value){ "FTCOLL_ALLREDUCE_ALGORITHM", comm->allreduce->algorithm,
                                   NULL };
    return 2;
}

static void allreduce_release(ftc_comm_t comm)
{
    struct ftc_allreduce_state *s = comm->allreduce;
    if (!s)
        return;
    free(s->kept.data);
    free(s->arena);
    free(s->input_copy);
    free(s->packed_out);
    free(s->packed_in);
    ftc_holdings_destroy(&s->call_held);
    ftc_holdings_destroy(&s->call_alive);
    ftc_holdings_destroy(&s->report_held);
    ftc_holdings_destroy(&s->report_failed);
    ftc_holdings_destroy(&s->held_failed);
    free(s);
    comm->allreduce = NULL;
}

const ftc_module ftc_allreduce_module = {
    .name = "allreduce",
    .create = allreduce_create,
    .read_settings = allreduce_read_settings,
    .agreed = allreduce_agreed,
    .release = allreduce_release,
};

/* ---- what other modules ask ----------------------------------------------------------- */

bool ftc_allreduce_result_includes(ftc_comm_t comm, int rank)
{
    return ftc_holdings_has(&comm->allreduce->report_held, rank);
}

void ftc_allreduce_report_set(ftc_comm_t comm, const ftc_holdings *s)
{
    ftc_holdings_copy(&comm->allreduce->report_held, s);
}

void ftc_allreduce_report_below(ftc_comm_t comm, int end)
{
    ftc_holdings_keep_below(&comm->allreduce->report_held, end);
}

void ftc_allreduce_report_hold(ftc_comm_t comm)
{
    struct ftc_allreduce_state *s = comm->allreduce;
    s->held_report = s->report;
    ftc_holdings_copy(&s->held_failed, &s->report_failed);
    s->held_at = MPI_Wtime();
}

/* The restart's report, with the first part's rounds, deaths and time:
 * one call, recovered once. */
void ftc_allreduce_report_join(ftc_comm_t comm)
{
    struct ftc_allreduce_state *s = comm->allreduce;
    const ftc_allreduce_report *first = &s->held_report;
    if (first->recovery_rounds == 0)
        return;
    if (s->report.recovery_rounds > 0)
        s->recovered_calls--;   /* counted by the first part already */
    s->report.recovery_rounds += first->recovery_rounds;
    s->report.finished_late |= first->finished_late;
    s->report.recovery_seconds = first->recovery_seconds + (MPI_Wtime() - s->held_at);
    for (int r = 0; r < comm->size; r++)
        if (ftc_holdings_has(&s->held_failed, r) && !ftc_holdings_has(&s->report_failed, r)) {
            ftc_holdings_add(&s->report_failed, r);
            s->report.failed_in_call++;
        }
}

int ftc_allreduce_check_strict(ftc_comm_t comm, const ftc_holdings *s, const char *call)
{
    if (!comm->allreduce->strict)
        return MPI_SUCCESS;
    const int missing = comm->size - ftc_holdings_count(s);
    if (missing == 0)
        return MPI_SUCCESS;
    int first = 0;
    while (ftc_holdings_has(s, first))
        first++;
    return ftc_fail(ftc_ft_failed_class(), "%s (strict): the result lacks the contributions "
                    "of %d failed rank(s), the first being rank %d; it covers the other %d",
                    call, missing, first, comm->size - missing);
}

/* ---- public calls --------------------------------------------------------------------- */

static void export_holdings(const ftc_holdings *h, int *out, int size)
{
    for (int r = 0; out && r < size; r++)
        out[r] = ftc_holdings_has(h, r);
}

int ftc_allreduce_last_report(ftc_comm_t comm, ftc_allreduce_report *report, int *in_result,
                              int *failed)
{
    ftc_clear_error();
    if (!comm)
        return ftc_fail(MPI_ERR_COMM, "ftc_allreduce_last_report: the communicator is NULL");
    if (!report)
        return ftc_fail(MPI_ERR_ARG, "ftc_allreduce_last_report: report is NULL");
    const struct ftc_allreduce_state *s = comm->allreduce;
    if (!s->have_report)
        return ftc_fail(MPI_ERR_OTHER, "ftc_allreduce_last_report: no fault-tolerant call "
                                       "(allreduce, allgather, broadcast, barrier) has "
                                       "completed on this communicator");
    *report = s->report;
    report->contributors = ftc_holdings_count(&s->report_held);   /* counted when asked */
    export_holdings(&s->report_held, in_result, comm->size);
    export_holdings(&s->report_failed, failed, comm->size);
    return MPI_SUCCESS;
}

long ftc_comm_recovered_calls(ftc_comm_t comm)
{
    return comm ? comm->allreduce->recovered_calls : -1;
}

int ftc_allreduce_set_strict(ftc_comm_t comm, int strict)
{
    ftc_clear_error();
    if (!comm)
        return ftc_fail(MPI_ERR_COMM, "ftc_allreduce_set_strict: the communicator is NULL");
    if (strict != 0 && strict != 1)
        return ftc_fail(MPI_ERR_ARG, "ftc_allreduce_set_strict: strict is %d; expected 0 or 1",
                        strict);
    comm->allreduce->strict = strict;
    return MPI_SUCCESS;
}

int ftc_inject(ftc_comm_t comm, const char *spec)
{
    ftc_clear_error();
    if (!comm)
        return ftc_fail(MPI_ERR_COMM, "ftc_inject: the communicator is NULL");
    ftc_inject_plan plan;
    char why[256];
    if (!ftc_inject_parse(spec, &plan, why, sizeof(why)))
        return ftc_fail(MPI_ERR_ARG, "ftc_inject: %s", why);
    comm->allreduce->inject = plan;
    return MPI_SUCCESS;
}
