/*
 * What a module of a communicator (a collective with state, the guard, the
 * fault-tolerance layer) gives the composition root, communicator.c: one
 * table, so that creating and freeing a communicator is the same loop over
 * every module and a new module is one more row there.
 *
 *   ftc_comm_create                              ftc_comm_free
 *     create          each module, in order       quiesce   each module, in order,
 *     read_settings   each module, in order                 until one fails
 *     agreed          every module's values and    release   each module, in reverse
 *                     every rank's verdict: one allreduce
 *     start           each module, in order
 *     (one more allreduce: did every start succeed everywhere)
 *
 * A module owns its state behind its own pointer in struct ftc_comm
 * (comm.h), opaque to every other module; its functions take the
 * communicator. Every entry may be NULL.
 */
#ifndef FTCOLL_MODULE_H
#define FTCOLL_MODULE_H

#include "agree.h"
#include "ftcoll.h"

/* The most values one module asks the ranks to agree on. */
enum { FTC_MODULE_AGREED_MAX = 10 };

typedef struct {
    const char *name;
    /* Makes the state with its defaults, and any communicator it needs
     * (collective calls every rank makes alike). A failure here (memory,
     * MPI) ends the creation on this rank. */
    int (*create)(ftc_comm_t c);
    /* Local: reads the module's FTCOLL_* settings into its state. A
     * rejected setting is an error every rank learns of in the agreement. */
    int (*read_settings)(ftc_comm_t c);
    /* The values every rank must hold alike (settings that shape messages):
     * writes at most FTC_MODULE_AGREED_MAX, returns how many. */
    int (*agreed)(ftc_comm_t c, ftc_equal_value *values);
    /* Collective, once the ranks agreed: what needs the others (exchanging
     * process ids, measuring the network). Every start runs on every rank,
     * even after an earlier one failed here, so that none waits alone. */
    int (*start)(ftc_comm_t c);
    /* Collective, at ftc_comm_free: takes in what is still in flight. */
    int (*quiesce)(ftc_comm_t c);
    /* Local: frees the state, also a partly made one. */
    void (*release)(ftc_comm_t c);
} ftc_module;

#endif
