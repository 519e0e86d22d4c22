/* Error reporting: an MPI error class for the caller, a message in words. */
#ifndef FTCOLL_ERROR_H
#define FTCOLL_ERROR_H

#include <stddef.h>

/* Records a message for ftc_error_message() on this thread and returns `code`. */
int ftc_fail(int code, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* Records the MPI error `code` that `what` returned, in MPI's own words. */
int ftc_fail_mpi(int code, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* Clears the message at the start of a public call. */
void ftc_clear_error(void);

/* Appends printf-style text to the string in `text` (`size` bytes in all),
 * cutting it short rather than overflowing: for a line built in pieces and
 * written at once. */
void ftc_append(char *text, size_t size, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

#endif
