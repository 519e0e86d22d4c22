/*
 * Which fault-tolerant broadcast runs, and how often it sends its tokens
 * (pure, no MPI).
 *
 * The plan: Open MPI's fixed decision rules (coll_tuned
 * bcast_intra_dec_fixed, 5.0) as a table, each of its algorithms mapped to
 * the fault-tolerant one of the same shape: its trees (linear, chain,
 * pipeline, binary, split binary, binomial, k-nomial) to the binomial data
 * flow of dissemination.h; its scatter + allgather to scatter_ring.h.
 * Open MPI cuts the message only for large ones on many ranks:
 *
 *   p < 16, or 32 <= p < 1024                  binomial at every size
 *   16 <= p < 32                               scatter + ring from 1 MiB
 *   1024 <= p < 2048                           scatter + ring from 512 KiB
 *   p >= 2048                                  scatter + ring from 256 KiB
 *
 * FTCOLL_BCAST_PLAN (auto, binomial, scatter_ring) overrides the table,
 * the same on every rank (agreed at ftc_comm_create).
 *
 * The tokens: a broadcast by the binomial flow sends its empty messages,
 * which keep the calls in progress within FTC_FT_WINDOW of each other,
 * only on some calls, by the periods of ft/tokens.h; between them every
 * rank keeps a copy of each result, for ranks still inside a call when
 * others meet (ft/reconcile.h).
 *
 * The confirmation: from FTC_BCAST_CONFIRM_BYTES on, a call may make sure
 * that no rank is late instead of copying its result for late ranks. It
 * runs its plan without tokens, then the tokens as a dissemination barrier
 * that each rank enters once it holds the data: a rank completes the call
 * only when every live rank holds the data, so it keeps nothing. Which is
 * cheaper depends on the processors (processors.h). Where ranks share
 * them, every copy takes its time from another rank: every large call
 * confirms. With a processor per rank, the binomial flow keeps its copy:
 * the barrier would stop every rank at every call, where the copies let
 * the root start the next call while the leaves still receive the last,
 * up to FTC_FT_KEPT_BYTES (a larger copy would double the memory a
 * broadcast needs); the scatter and ring, which waits for every rank
 * anyway, confirms. FTCOLL_BCAST_CONFIRM (auto, on, off) overrides, the
 * same on every rank (off: copies at every size).
 */
#ifndef FTCOLL_BCAST_SELECT_H
#define FTCOLL_BCAST_SELECT_H

#include <stdbool.h>
#include <stddef.h>

#include "../ft/tokens.h"

typedef enum {
    FTC_BCAST_AUTO = -1,          /* the table decides (FTCOLL_BCAST_PLAN unset or "auto") */
    FTC_BCAST_DISSEMINATION = 0,  /* "binomial" */
    FTC_BCAST_SCATTER_RING = 1,   /* "scatter_ring" */
    FTC_BCAST_TREE = 2,           /* a network tree the caller gives (ft_bcast.h); never
                                   * the table's, never named */
} ftc_bcast_algorithm;

/* Whether large calls confirm: FTCOLL_BCAST_CONFIRM. */
typedef enum {
    FTC_BCAST_CONFIRM_AUTO = -1,  /* where ranks share processors (unset or "auto") */
    FTC_BCAST_CONFIRM_OFF = 0,    /* "off": every call keeps its copies */
    FTC_BCAST_CONFIRM_ON = 1,     /* "on": from FTC_BCAST_CONFIRM_BYTES */
} ftc_bcast_confirmation;

/* The size from which a call may confirm instead of keeping a copy (every
 * call above FTC_FT_KEPT_BYTES keeps none). */
enum { FTC_BCAST_CONFIRM_BYTES = 128 << 10 };

/* For p live ranks and a message of `bytes` (count x size of the type):
 * `forced` unless it is FTC_BCAST_AUTO, else the table's choice. */
ftc_bcast_algorithm ftc_bcast_decide(int p, size_t bytes, ftc_bcast_algorithm forced);

/* The plan named `name` ("auto", "binomial", "scatter_ring"); false if
 * none is. */
bool ftc_bcast_algorithm_parse(const char *name, ftc_bcast_algorithm *out);

/* The setting named `name` ("auto", "on", "off"); false if none is. */
bool ftc_bcast_confirmation_parse(const char *name, ftc_bcast_confirmation *out);

/* Whether a broadcast of `bytes` by `plan` ends with the confirmation and
 * keeps no copy of its result, under `setting`, the ranks sharing
 * processors or not (processors.h). */
bool ftc_bcast_confirms(size_t bytes, ftc_bcast_algorithm plan, ftc_bcast_confirmation setting,
                        bool processors_shared);

#endif
