/*
 * Decision tables in the shape of Open MPI's fixed rules (pure): a row
 * covers communicators of fewer than `below_procs` processes; in it the
 * first column whose `below_bytes` exceeds the call's bytes names the
 * algorithm. Every row ends in an FTC_DECISION_ELSE column, the last row
 * covers every process count. And the names by which a setting forces a
 * choice (FTCOLL_BCAST_PLAN=scatter_ring).
 */
#ifndef FTCOLL_DECISION_H
#define FTCOLL_DECISION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FTC_DECISION_ELSE SIZE_MAX
enum { FTC_DECISION_MAX_COLUMNS = 9 };

typedef struct {
    size_t below_bytes;
    int algorithm;
} ftc_decision_column;

typedef struct {
    long below_procs;
    ftc_decision_column columns[FTC_DECISION_MAX_COLUMNS];
} ftc_decision_row;

/* The algorithm of `rows` for p processes and `bytes`; `fallback` if no row
 * covers p. */
int ftc_decision_look_up(const ftc_decision_row *rows, size_t nrows, int p, size_t bytes,
                         int fallback);

/* A setting's name and the value it stands for. */
typedef struct {
    const char *name;
    int value;
} ftc_decision_name;

/* The value that `name` stands for among `n` names, into *value; false
 * (nothing written) if none, NULL included. */
bool ftc_decision_parse_name(const ftc_decision_name *names, size_t n, const char *name,
                             int *value);

#endif
