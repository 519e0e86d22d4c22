/*
 * Guarded collectives: what a rank reports at a check-in, how reports
 * combine on the way up the tree, and rank 0's decision. Pure C, no MPI.
 *
 *   leaf          own record: where it is (collective, call), error count,
 *                 first error message, warnings, the call's arguments that
 *                 must be alike everywhere (below)
 *   inner rank    own record + each child's, merged; a child that never
 *                 reported becomes a "silent" entry, a child in another
 *                 collective an "elsewhere" entry
 *   rank 0        the merged record of every rank: silent or elsewhere
 *                 entries -> ABORT; error ranks, or arguments unlike
 *                 between ranks -> STOP; else GO. The
 *                 decided record travels back down, so every rank holds
 *                 the same one.
 *
 * Counts are exact; the entries (rank + message) keep the first
 * FTC_GUARD_ENTRIES in order of severity then rank, so a record has a
 * bounded size whatever p.
 */
#ifndef FTCOLL_GUARD_REPORT_H
#define FTCOLL_GUARD_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "../collectives.h"
#include "ftcoll.h"

typedef enum { FTC_GUARD_GO = 0, FTC_GUARD_STOP = 1, FTC_GUARD_ABORT = 2 } ftc_guard_decision;

/* The collectives a check-in precedes (what a rank is about to do): one
 * kind per row of collectives.h, after ftc_guard_check's. */
#define FTC_GUARDED_KIND(kind, name, table) FTC_GUARDED_##kind,
typedef enum {
    FTC_GUARDED_CHECK = 0,      /* ftc_guard_check: no collective */
    FTC_COLLECTIVES(FTC_GUARDED_KIND)
    FTC_GUARDED_KINDS
} ftc_guarded_kind;
#undef FTC_GUARDED_KIND

/* Entry kinds, most severe first: the order entries are kept in. */
typedef enum {
    FTC_GUARD_SILENT = 0,       /* did not check in within its parent's window */
    FTC_GUARD_ELSEWHERE = 1,    /* checked in before another collective */
    FTC_GUARD_ERROR = 2         /* raised an error */
} ftc_guard_entry_kind;

enum { FTC_GUARD_ENTRIES = FTC_GUARD_LISTED };

/*
 * What MPI requires every rank of a call to pass alike, where one rank
 * cannot see it alone: the root; the bytes of its data (count x the
 * datatype's size); a vector of counts every rank passes whole (a
 * reduce_scatter's recvcounts, an allgatherv's), as a hash; a reduction's
 * datatype and predefined op, as the numbers MPI_Type_c2f / MPI_Op_c2f
 * give (the same on every rank for predefined handles). Ranks that differ
 * make an erroneous program that can run different algorithms on
 * different ranks (the decision tables look at sizes) and hang, or match
 * a message of the right length and return a wrong result.
 */
typedef enum {
    FTC_MATCH_ROOT, FTC_MATCH_BYTES, FTC_MATCH_COUNTS, FTC_MATCH_TYPE, FTC_MATCH_OP,
    FTC_GUARD_MATCHED
} ftc_guard_matched_item;

/* A rank's values, each -1 where the call has none. */
typedef struct {
    int64_t value[FTC_GUARD_MATCHED];
} ftc_guard_matching;

/* The lowest and highest value reported for one item: the lowest rank
 * that reported each, and how many ranks did; low > high while nobody
 * reported one. */
typedef struct {
    int64_t low, high;
    int32_t low_rank, high_rank;
    int32_t low_ranks, high_ranks;
} ftc_guard_range;

typedef struct {
    int32_t rank;
    int32_t kind;               /* ftc_guard_entry_kind */
    char message[FTC_GUARD_MESSAGE_MAX];
} ftc_guard_entry;

/* Sent as bytes between ranks of one job (same layout everywhere); only
 * the first `nentries` entries travel. */
typedef struct {
    int32_t decision;           /* ftc_guard_decision, on the way down */
    int32_t kind;               /* the sender's ftc_guarded_kind */
    int64_t call;               /* the sender's call number of that kind */
    int64_t check;              /* the check-in's number on the communicator */
    int32_t error_ranks, errors, warnings, silent_ranks, elsewhere_ranks;
    ftc_guard_range matched[FTC_GUARD_MATCHED];
    int32_t nentries;
    ftc_guard_entry entry[FTC_GUARD_ENTRIES];
} ftc_guard_record;

const char *ftc_guarded_name(ftc_guarded_kind kind);

/* A rank's own record before it hears from its children. */
void ftc_guard_record_init(ftc_guard_record *r, ftc_guarded_kind kind, long call, long check);

/* This rank raised `errors` errors, the first with `message`. */
void ftc_guard_record_add_errors(ftc_guard_record *r, int rank, int errors, const char *message);

/* This rank's values of what must match (NULL: none). */
void ftc_guard_record_observe(ftc_guard_record *r, int rank, const ftc_guard_matching *m);

/* At rank 0, on the merged record with no error raised: an error entry
 * for the first item whose values differ, at the lowest rank of the side
 * fewer ranks took (the high one on a tie), naming a rank of the other. */
void ftc_guard_record_add_mismatches(ftc_guard_record *r);

/* `rank` did not report in time. */
void ftc_guard_record_add_silent(ftc_guard_record *r, int rank);

/* Adds a child's record (received from `child_rank`). */
void ftc_guard_record_merge(ftc_guard_record *into, const ftc_guard_record *child,
                            int child_rank);

/* Rank 0's decision on the merged record of every rank. */
ftc_guard_decision ftc_guard_decide(const ftc_guard_record *r);

/* Bytes that carry `r` (header + its entries). */
size_t ftc_guard_record_bytes(const ftc_guard_record *r);

/* Whether `bytes` received make a consistent record. */
int ftc_guard_record_valid(const ftc_guard_record *r, size_t bytes);

/* The public view of a stop. */
void ftc_guard_stop_report(const ftc_guard_record *r, ftc_stop_report *out);

/*
 * The abort diagnosis rank 0 prints: the silent ranks and, for each, the
 * ranks not heard from because they report through it; ranks in another
 * collective; where the others wait. `live` maps tree positions to ranks
 * (NULL: the identity); `n` positions; `latecomer` the window T.
 */
void ftc_guard_format_abort(const ftc_guard_record *r, const int *live, int n, double latecomer,
                            char *out, size_t size);

/* The ranks rank 0 did not hear from: silent or elsewhere, and those that
 * report through a silent one (`ranks`: room for n). Returns how many. */
int ftc_guard_unheard(const ftc_guard_record *r, const int *live, int n, int *ranks);

/* "0-4,6,9-11": sorted ranks as ranges. */
void ftc_format_ranks(const int *ranks, int count, char *out, size_t size);

#endif
