/* Building an ftc_alltoall(v) call: what ftc_alltoall and ftc_alltoallv
 * share once their arguments are checked (exchange.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../buffer.h"
#include "../error.h"
#include "exchange.h"
#include "state.h"

static int ensure_ints(int **ints, int n)
{
    if (*ints)
        return MPI_SUCCESS;
    *ints = malloc(sizeof(int) * (size_t)n);
    return *ints ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

int ftc_alltoall_reserve(ftc_comm_t comm, const char *name, size_t packed, size_t relayed)
{
    struct ftc_alltoall_state *s = comm->alltoall;
    int rc = ftc_ensure_requests(&s->requests, &s->capacity, 2 * comm->size, name);
    if (rc == MPI_SUCCESS
        && (ensure_ints(&s->send_counts, comm->size) != MPI_SUCCESS
            || ensure_ints(&s->recv_counts, comm->size) != MPI_SUCCESS
            || ensure_ints(&s->packed_counts, comm->size) != MPI_SUCCESS
            || ensure_ints(&s->packed_displs, comm->size) != MPI_SUCCESS))
        rc = ftc_fail(MPI_ERR_NO_MEM, "%s: out of memory", name);
    if (rc == MPI_SUCCESS && packed > 0)
        rc = ftc_ensure_capacity(&s->packed, &s->packed_capacity, packed);
    if (rc == MPI_SUCCESS && relayed > 0)
        rc = ftc_ensure_capacity(&s->relayed, &s->relayed_capacity, relayed);
    return rc;
}

int ftc_alltoall_pack_in_place(ftc_alltoall_call *a)
{
    struct ftc_alltoall_state *s = a->comm->alltoall;
    const ftc_block_places *column = &a->recv;
    int at = 0, rc = MPI_SUCCESS;
    for (int r = 0; rc == MPI_SUCCESS && r < a->comm->size; r++) {
        const char *place = ftc_block_place(column, r);
        const int bytes = column->counts[r] * column->type_size;
        s->packed_counts[r] = bytes;
        s->packed_displs[r] = at;
        int position = at;
        if (a->recv_contiguous && bytes > 0)
            memcpy(s->packed + at, place, (size_t)bytes);
        else if (bytes > 0)
            rc = MPI_Pack(place, column->counts[r], column->type,
                          s->packed, (int)s->packed_capacity, &position, a->comm->comm);
        at += bytes;
    }
    if (rc != MPI_SUCCESS)
        return ftc_fail_mpi(rc, "%s: copying the blocks to send (MPI_IN_PLACE) failed", a->name);
    a->send = (ftc_block_places){ .base = s->packed, .counts = s->packed_counts,
                                  .displs = s->packed_displs, .type = MPI_PACKED, .extent = 1,
                                  .type_size = 1 };
    a->send_contiguous = true;
    return MPI_SUCCESS;
}

ftc_alltoall_algorithm ftc_alltoall_choose(ftc_comm_t comm, int n,
                                           ftc_alltoall_algorithm decided, bool bruck_room)
{
    ftc_alltoall_choice *choice = &comm->alltoall->last;
    const ftc_alltoall_algorithm executed_before = choice->executed;
    choice->requested = comm->alltoall->forced;
    choice->executed = choice->requested == FTC_ALLTOALL_AUTO ? decided : choice->requested;
    const bool instead = choice->executed == FTC_ALLTOALL_MODIFIED_BRUCK && !bruck_room;
    if (instead)
        choice->executed = FTC_ALLTOALL_LINEAR;
    if (comm->verbose && comm->rank == 0 && choice->executed != executed_before)
        fprintf(stderr, "ftcoll: alltoall on %d ranks: %s%s\n", n,
                ftc_alltoall_algorithm_name(choice->executed),
                instead ? " (no modified Bruck for this call)"
                : choice->requested == FTC_ALLTOALL_AUTO ? " (decision table)" : " (forced)");
    return choice->executed;
}
