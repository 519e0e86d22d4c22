/* What every MPI test program shares: stopping on the harness's own
 * failures (not ftcoll's), and naming MPI error classes in reports. */
#ifndef FTCOLL_TEST_HARNESS_H
#define FTCOLL_TEST_HARNESS_H

#include <stddef.h>

/* The test itself cannot go on (out of memory, an MPI call of the harness
 * failed): report and MPI_Abort. */
void die(const char *what);
void *checked_malloc(size_t bytes);
void mpi_or_die(int rc, const char *what);

/* The MPI error class of a return code (MPI_SUCCESS stays itself). */
int class_of(int rc);
/* "MPI_ERR_COUNT", ...; "another class" for the ones the tests never expect. */
const char *class_name(int error_class);

#endif
