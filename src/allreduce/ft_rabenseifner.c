/*
 * Fault-tolerant allreduce, the failure-free attempt for large vectors:
 * Rabenseifner's reduce-scatter + allgather over the live ranks (layout
 * and cost in rabenseifner.h), with the folds of recursive doubling for the
 * ranks beyond the largest power of two (run by the engine around the
 * actives' part here, ft_engine.c's run_with_folds).
 *
 *   fold in          spare -> active: the whole vector, combined
 *   reduce-scatter   log2 m exchanges of halving ranges: receive the
 *                    partner's copy of the kept range into `incoming`,
 *                    combine it into `current`
 *   allgather        log2 m exchanges of doubling ranges, straight into
 *                    `current`
 *   fold out         active -> spare: the result
 *
 * Every wait includes the sentinel (ftc_ft_exchange). A failure before the
 * result is complete leaves blocks reduced over different groups, a value
 * no holdings describe: the engine restarts this rank from its input
 * (ft_engine.c), and the meeting finishes the call over the survivors'
 * inputs and any completed result.
 */
#include "../reduce_local.h"
#include "ft_call.h"

#include "rabenseifner.h"

/* Elements of blocks [first, end) and where they start, in the call's vector. */
typedef struct {
    int offset, count;
} span;

static span blocks(const ftc_ft_call *c, int m, int first, int end)
{
    const int start = ftc_rabenseifner_block_start(c->count, m, first);
    return (span){ start, ftc_rabenseifner_block_start(c->count, m, end) - start };
}

static char *at(char *vector, const ftc_ft_call *c, int offset)
{
    return vector + (size_t)offset * c->extent;
}

/* The partner's copy of the kept range, combined into this rank's. The
 * order of the operands does not matter: the op is commutative, and each
 * block of the result is computed by one rank only. */
static int reduce_scatter(ftc_ft_call *c, int me, int m)
{
    for (int step = 0; step < ftc_rabenseifner_steps(m); step++) {
        const ftc_rabenseifner_step s = ftc_rabenseifner_reduce_scatter_step(me, m, step);
        const span out = blocks(c, m, s.send_first, s.send_end);
        const span in = blocks(c, m, s.receive_first, s.receive_end);
        c->step = step;
        const int rc = ftc_ft_exchange(c, at(c->current, c, out.offset), out.count,
                                       at(c->incoming, c, in.offset), in.count, s.partner);
        if (rc != MPI_SUCCESS)
            return rc;
        ftc_reduce_local(at(c->incoming, c, in.offset), at(c->current, c, in.offset), in.count,
                         c->type, c->op);
    }
    return MPI_SUCCESS;
}

static int allgather(ftc_ft_call *c, int me, int m)
{
    const int steps = ftc_rabenseifner_steps(m);
    for (int step = 0; step < steps; step++) {
        const ftc_rabenseifner_step s = ftc_rabenseifner_allgather_step(me, m, step);
        const span out = blocks(c, m, s.send_first, s.send_end);
        const span in = blocks(c, m, s.receive_first, s.receive_end);
        c->step = steps + step;
        const int rc = ftc_ft_exchange(c, at(c->current, c, out.offset), out.count,
                                       at(c->current, c, in.offset), in.count, s.partner);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int ftc_ft_rabenseifner_actives(ftc_ft_call *c, int me, int m)
{
    const int rc = reduce_scatter(c, me, m);
    return rc == MPI_SUCCESS ? allgather(c, me, m) : rc;
}
