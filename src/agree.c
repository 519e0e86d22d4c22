/* Agreeing on equal values (agree.h). */
#include "agree.h"

#include <stdio.h>

#include "error.h"

static void describe(const ftc_equal_value *v, int value, char *out, size_t size)
{
    const char *words = v->describe ? v->describe(value) : NULL;
    if (words)
        snprintf(out, size, "%s", words);
    else
        snprintf(out, size, "%d", value);
}

static int report_difference(const ftc_equal_value *v, int lowest, int highest, const char *who)
{
    char here[64], low[64], high[64];
    describe(v, v->value, here, sizeof here);
    describe(v, lowest, low, sizeof low);
    describe(v, highest, high, sizeof high);
    return ftc_fail(MPI_ERR_ARG, "%s: %s differs between ranks (here %s; from %s to %s): set it "
                                 "alike on every rank", who, v->name, here, low, high);
}

int ftc_agree_equal(MPI_Comm comm, int local_rc, const ftc_equal_value *values, int n,
                    const char *who, const char *what)
{
    if (n < 0 || n > FTC_AGREE_MAX)
        return ftc_fail(MPI_ERR_INTERN, "%s: %d values to agree on (at most %d)", who, n,
                        FTC_AGREE_MAX);
    /* long long: the negation of every int is exact */
    long long mine[1 + 2 * FTC_AGREE_MAX], most[1 + 2 * FTC_AGREE_MAX];
    mine[0] = local_rc != MPI_SUCCESS;
    for (int i = 0; i < n; i++) {
        mine[1 + 2 * i] = values[i].value;
        mine[2 + 2 * i] = -(long long)values[i].value;
    }
    const int rc = PMPI_Allreduce(mine, most, 1 + 2 * n, MPI_LONG_LONG, MPI_MAX, comm);
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "%s: agreeing with the other ranks failed", who);
    if (local_rc != MPI_SUCCESS)
        return local_rc;
    if (most[0])
        return ftc_fail(MPI_ERR_ARG, "%s: another rank %s", who, what);
    for (int i = 0; i < n; i++)
        if (most[1 + 2 * i] != -most[2 + 2 * i])
            return report_difference(&values[i], (int)-most[2 + 2 * i], (int)most[1 + 2 * i], who);
    return MPI_SUCCESS;
}
