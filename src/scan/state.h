/* The scan module's state on a communicator (comm->scan), which
 * ftc_exscan shares. */
#ifndef FTCOLL_SCAN_STATE_H
#define FTCOLL_SCAN_STATE_H

#include <stddef.h>

struct ftc_scan_state {
    /* the blocks: every rank's input gathered (gather_fold.c: rank r's
     * block r), or the chain's prefix and inputs so far (chain.c) */
    char *room;
    size_t room_capacity;
};

#endif
