#define _POSIX_C_SOURCE 200809L /* _exit */
#include "harness.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

_Noreturn void leave_without_finalize(int status)
{
    fflush(stdout);
    fflush(stderr);
    _exit(status);
}

void die(const char *what)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "rank %d: test harness failure: %s\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

void *checked_malloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        die("out of memory");
    return p;
}

void mpi_or_die(int rc, const char *what)
{
    if (rc != MPI_SUCCESS)
        die(what);
}

int class_of(int rc)
{
    int error_class = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &error_class);
    return error_class;
}

const char *class_name(int error_class)
{
    switch (error_class) {
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_ARG: return "MPI_ERR_ARG";
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER";
    case MPI_ERR_COMM: return "MPI_ERR_COMM";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT";
    case MPI_ERR_OP: return "MPI_ERR_OP";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE";
    default: return "another class";
    }
}

static user_message user_message_of(int from, int round)
{
    user_message m = { from, round, { 0 } };
    for (int i = 0; i < USER_MESSAGE_INTS - 2; i++)
        m.filler[i] = -(from * 1000 + round * 10 + i);   /* never a collective's value */
    return m;
}

static bool user_message_ok(const user_traffic *u, int i, const MPI_Status *s)
{
    const int left = (u->rank - 1 + u->p) % u->p, right = (u->rank + 1) % u->p;
    const user_message want = user_message_of(s->MPI_SOURCE, u->round);
    return (s->MPI_SOURCE == left || s->MPI_SOURCE == right) && s->MPI_TAG == USER_TRAFFIC_TAG
        && memcmp(&u->in[i], &want, sizeof(want)) == 0;
}

void user_traffic_start(user_traffic *u, int round)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &u->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &u->p);
    u->round = round;
    u->out = user_message_of(u->rank, round);
    const int left = (u->rank - 1 + u->p) % u->p, right = (u->rank + 1) % u->p;
    for (int i = 0; i < 2; i++)
        mpi_or_die(MPI_Irecv(&u->in[i], (int)sizeof(user_message), MPI_BYTE, MPI_ANY_SOURCE,
                             MPI_ANY_TAG, MPI_COMM_WORLD, &u->requests[i]), "MPI_Irecv (user)");
    mpi_or_die(MPI_Isend(&u->out, (int)sizeof(u->out), MPI_BYTE, right, USER_TRAFFIC_TAG,
                         MPI_COMM_WORLD, &u->requests[2]), "MPI_Isend (user)");
    mpi_or_die(MPI_Isend(&u->out, (int)sizeof(u->out), MPI_BYTE, left, USER_TRAFFIC_TAG,
                         MPI_COMM_WORLD, &u->requests[3]), "MPI_Isend (user)");
}

int user_traffic_finish(user_traffic *u)
{
    MPI_Status statuses[4];
    int wrong = 0;
    mpi_or_die(MPI_Waitall(4, u->requests, statuses), "MPI_Waitall (user traffic)");
    for (int i = 0; i < 2; i++) {
        if (user_message_ok(u, i, &statuses[i]))
            continue;
        fprintf(stderr, "MISMATCH user traffic round %d on rank %d: message %d from rank %d "
                "tag %d is not the user's\n", u->round, u->rank, i, statuses[i].MPI_SOURCE,
                statuses[i].MPI_TAG);
        wrong++;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return wrong;
}

uint64_t known_dead_ranks(ftc_comm_t comm, int p)
{
    int live[64], n = 0;
    ftc_comm_live_ranks(comm, live, 64, &n);
    uint64_t alive = 0;
    for (int i = 0; i < n; i++)
        alive |= (uint64_t)1 << live[i];
    return ~alive & (p == 64 ? ~(uint64_t)0 : (((uint64_t)1 << p) - 1));
}

int reported_set(ftc_comm_t comm, long *before, int rank, int p, int call, uint64_t *set)
{
    ftc_allreduce_report report;
    int in_result[64];
    if (ftc_allreduce_last_report(comm, &report, in_result, NULL) != MPI_SUCCESS) {
        fprintf(stderr, "FAIL rank %d call %d: no report: %s\n", rank, call, ftc_error_message());
        return 1;
    }
    *set = 0;
    for (int r = 0; r < p; r++)
        *set |= (uint64_t)(in_result[r] != 0) << r;
    return check_recovered_calls(comm, before, report.recovery_rounds, rank, call);
}

int check_recovered_calls(ftc_comm_t comm, long *before, int recovery_rounds, int rank,
                          int call)
{
    const long now = ftc_comm_recovered_calls(comm);
    const int wrong = now != *before + (recovery_rounds > 0);
    if (wrong)
        fprintf(stderr, "FAIL rank %d call %d: ftc_comm_recovered_calls went from %ld to %ld in "
                "a call of %d recovery rounds\n", rank, call, *before, now, recovery_rounds);
    *before = now;
    return wrong;
}

int report_same_sets(const char *name, MPI_Comm survivors, int p, const uint64_t *sets,
                     int calls, int wrong)
{
    int n, reporter, total_wrong = 0;
    MPI_Comm_size(survivors, &n);
    MPI_Comm_rank(survivors, &reporter);
    uint64_t *lowest = checked_malloc(sizeof(uint64_t) * (size_t)calls);
    uint64_t *highest = checked_malloc(sizeof(uint64_t) * (size_t)calls);
    MPI_Allreduce(sets, lowest, calls, MPI_UINT64_T, MPI_BAND, survivors);
    MPI_Allreduce(sets, highest, calls, MPI_UINT64_T, MPI_BOR, survivors);
    MPI_Allreduce(&wrong, &total_wrong, 1, MPI_INT, MPI_SUM, survivors);
    for (int call = 1; call <= calls; call++) {
        if (lowest[call - 1] != highest[call - 1]) {
            if (reporter == 0)
                fprintf(stderr, "FAIL call %d: S differs between survivors\n", call);
            total_wrong++;
        }
    }
    if (reporter == 0) {
        printf("%s-kill p=%d survivors=%d calls=%d wrong=%d S=[", name, p, n, calls,
               total_wrong);
        for (int call = 0; call < calls; call++)
            printf("%s%llx", call ? " " : "", (unsigned long long)lowest[call]);
        printf("]: %s\n", total_wrong ? "FAIL" : "PASS");
    }
    free(lowest);
    free(highest);
    return total_wrong;
}

uint64_t survivor_ranks(MPI_Comm survivors)
{
    MPI_Group world_group, group;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Comm_group(survivors, &group);
    int n;
    MPI_Group_size(group, &n);
    uint64_t set = 0;
    for (int i = 0; i < n; i++) {
        int r;
        MPI_Group_translate_ranks(group, 1, &i, world_group, &r);
        set |= (uint64_t)1 << r;
    }
    MPI_Group_free(&group);
    MPI_Group_free(&world_group);
    return set;
}
