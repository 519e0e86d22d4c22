/* Which allreduce algorithm a call runs (select.c): pure, no MPI. */
#ifndef FTCOLL_ALLREDUCE_SELECT_H
#define FTCOLL_ALLREDUCE_SELECT_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    FTC_ALLREDUCE_AUTO = 0,            /* by the decision table */
    FTC_ALLREDUCE_RECURSIVE_DOUBLING,  /* recursive_doubling.h */
    FTC_ALLREDUCE_RABENSEIFNER,        /* rabenseifner.h */
} ftc_allreduce_algorithm;

/* The algorithm for `count` elements of `bytes` in all on p live ranks. */
ftc_allreduce_algorithm ftc_allreduce_decide(int p, int count, size_t bytes);

/* The algorithm named `name` ("auto", "recursive_doubling", "rabenseifner");
 * false if it names none. */
bool ftc_allreduce_algorithm_parse(const char *name, ftc_allreduce_algorithm *out);

/* From this many bytes a call with three or more live ranks confirms that
 * every live rank holds the result instead of keeping a copy of it for
 * late ranks (ft_engine.c): a copy per rank per call costs more there. */
enum { FTC_ALLREDUCE_CONFIRM_BYTES = 128 << 10 };

static inline bool ftc_allreduce_confirms(size_t bytes)
{
    return bytes >= FTC_ALLREDUCE_CONFIRM_BYTES;
}

#endif
