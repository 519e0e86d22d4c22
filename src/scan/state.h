/* The scan module's state on a communicator (comm->scan), which
 * ftc_exscan shares. */
#ifndef FTCOLL_SCAN_STATE_H
#define FTCOLL_SCAN_STATE_H

#include <stddef.h>

#include "../ft/holdings.h"
#include "../ft/tokens.h"

struct ftc_scan_state {
    char *room;                  /* the chain's two slots (chain.c) */
    size_t room_capacity;
    long class_calls[FTC_FT_TOKEN_CLASSES];   /* calls so far per size class, every rank
                                               * alike: when the tokens run */
    ftc_holdings result;         /* the ranks a block's prefix combines, or S */
    ftc_holdings made;           /* the live ranks up to this one, once P_i is made */
};

#endif
