/*
 * Allgather, Bruck: ceil(log2 p) steps for any p, in a buffer rotated by the
 * rank. The plan, with its diagram and cost, is plans/bruck.c: the
 * survivors' meetings run it too.
 */
#include "algorithms.h"

#include "../plans/bruck.h"

bool ftc_allgather_plan_bruck(ftc_schedule *s)
{
    return ftc_plan_bruck(s);
}
