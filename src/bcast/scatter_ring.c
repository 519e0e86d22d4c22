#include "scatter_ring.h"

static int ceil_log2(int n)
{
    int steps = 0;
    while ((1 << steps) < n)
        steps++;
    return steps;
}

int ftc_scatter_ring_scatter_steps(int n) { return n > 1 ? ceil_log2(n) : 0; }

int ftc_scatter_ring_steps(int n) { return n > 1 ? ftc_scatter_ring_scatter_steps(n) + n - 1 : 0; }

static const ftc_scatter_ring_transfer nothing = { .peer = -1, .first = 0, .last = 0 };

static int min_int(int a, int b) { return a < b ? a : b; }

static int absolute(int relative, int root, int n) { return (relative + root) % n; }

/* Scatter step with mask m: the multiples of 2m pass half their range on. */
static ftc_scatter_ring_step scatter_step(int relative, int root, int n, int m)
{
    ftc_scatter_ring_step s = { nothing, nothing };
    if (relative % (2 * m) == 0 && relative + m < n)
        s.send = (ftc_scatter_ring_transfer){ absolute(relative + m, root, n), relative + m,
                                              min_int(relative + 2 * m, n) };
    else if (relative % (2 * m) == m)
        s.receive = (ftc_scatter_ring_transfer){ absolute(relative - m, root, n), relative,
                                                 min_int(relative + m, n) };
    return s;
}

/* Ring step s: block r - s to the right, block r - s - 1 from the left. */
static ftc_scatter_ring_step ring_step(int relative, int root, int n, int s)
{
    const int out = ((relative - s) % n + n) % n, in = ((relative - s - 1) % n + n) % n;
    return (ftc_scatter_ring_step){
        .send = { absolute(relative + 1, root, n), out, out + 1 },
        .receive = { absolute(relative - 1 + n, root, n), in, in + 1 },
    };
}

ftc_scatter_ring_step ftc_scatter_ring_step_of(int index, int root, int n, int step)
{
    const int relative = (index - root + n) % n, scatter_steps = ceil_log2(n);
    if (step < scatter_steps)
        return scatter_step(relative, root, n, 1 << (scatter_steps - 1 - step));
    return ring_step(relative, root, n, step - scatter_steps);
}

long ftc_scatter_ring_block_start(int block, int n, long count)
{
    const long base = count / n, extra = count % n;
    return block * base + (block < extra ? block : extra);
}
