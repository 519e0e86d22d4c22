/* The scan module's state on a communicator (comm->scan), which
 * ftc_exscan shares. */
#ifndef FTCOLL_SCAN_STATE_H
#define FTCOLL_SCAN_STATE_H

#include <stddef.h>

struct ftc_scan_state {
    char *inputs;                /* every rank's input, gathered: rank r's block r */
    size_t inputs_capacity;
};

#endif
