#include "dissemination.h"

int ftc_dissemination_steps(int n)
{
    int steps = 0;
    while (n > 1 && (1 << steps) < n)
        steps++;
    return steps;
}

/* Relative to the root, the holders before step k are 0 .. 2^k - 1. */
static bool holds_before(int relative, int distance) { return relative < distance; }

/* x mod n for x in [-n, 2n): a division would cost more than the rest of
 * a step's plan, which every broadcast computes on every call. */
static int wrap(int x, int n)
{
    return x < 0 ? x + n : x >= n ? x - n : x;
}

ftc_dissemination_step ftc_dissemination_step_of(int index, int root, int n, int step)
{
    const int distance = 1 << step;   /* < n: step < ftc_dissemination_steps(n) */
    const int relative = wrap(index - root, n);
    const int to = wrap(relative + distance, n), from = wrap(relative - distance, n);
    return (ftc_dissemination_step){
        .send_to = wrap(to + root, n),
        .sends_data = holds_before(relative, distance) && !holds_before(to, distance),
        .receive_from = wrap(from + root, n),
        .receives_data = holds_before(from, distance) && !holds_before(relative, distance),
    };
}

int ftc_dissemination_data_step(int index, int root, int n)
{
    const int relative = wrap(index - root, n);
    int step = -1;
    while (relative >= (1 << (step + 1)))
        step++;
    return step;
}
