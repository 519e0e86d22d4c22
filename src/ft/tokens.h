/*
 * How often a collective whose ranks may complete before the others
 * entered it (a broadcast's root, a gather's ranks but the root) sends its
 * tokens: the empty messages that make every rank wait until every live
 * rank entered the call. Pure C, no MPI.
 *
 * Between two such calls, every rank keeps a copy of each result for
 * ranks still inside a call when others meet (reconcile.h). A call whose
 * number is a multiple of FTC_FT_WINDOW has tokens whatever its size, so
 * no more than FTC_FT_WINDOW - 1 calls without come in a row, and at most
 * FTC_FT_WINDOW - 1 copies of up to FTC_FT_KEPT_BYTES / FTC_FT_WINDOW; each
 * larger size class has them once every `period` of its own calls: the
 * window, halved until the copies of one period fit in FTC_FT_KEPT_BYTES
 * (down to 1: tokens every call). The copies kept at a time stay within
 * FTC_FT_KEPT_BYTES per class (or the budget a collective passes to
 * ftc_ft_token_class_within), whatever the order of the sizes: counted
 * by call number instead, a program alternating a small call with a large
 * one would bring the large ones only on odd numbers, never a multiple of
 * their period. Each collective counts its calls per class itself, every
 * rank alike.
 */
#ifndef FTCOLL_FT_TOKENS_H
#define FTCOLL_FT_TOKENS_H

#include <stdbool.h>
#include <stddef.h>

#include "reconcile.h"

/* Bytes of results one period of calls of a class may keep for late ranks. */
enum { FTC_FT_KEPT_BYTES = 1 << 20 };

/* A call whose copy is `bytes` sends its tokens once every this many calls
 * of its size class: a power of two, 1 .. FTC_FT_WINDOW. */
long ftc_ft_token_period(size_t bytes);

/* Size classes, one per period: class k holds the sizes whose period is
 * FTC_FT_WINDOW >> k. */
enum { FTC_FT_TOKEN_CLASSES = 7 };
int ftc_ft_token_class(size_t bytes);

/* The same for a collective whose period of calls may keep `budget` bytes
 * instead of FTC_FT_KEPT_BYTES. */
int ftc_ft_token_class_within(size_t bytes, size_t budget);

/* Whether call `number`, the `class_calls`-th call of its size class
 * `token_class` (ftc_ft_token_class) of its collective on the
 * communicator, sends its tokens: in every call whose number is a multiple
 * of FTC_FT_WINDOW, and in every period-th call of the class when the
 * period is shorter than the window. */
bool ftc_ft_sends_tokens(long number, int token_class, long class_calls);

#endif
