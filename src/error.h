/* Error reporting: an MPI error class for the caller, a message in words. */
#ifndef FTCOLL_ERROR_H
#define FTCOLL_ERROR_H

/* Records a message for ftc_error_message() on this thread and returns `code`. */
int ftc_fail(int code, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* Records the MPI error `code` that `what` returned, in MPI's own words. */
int ftc_fail_mpi(int code, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* Clears the message at the start of a public call. */
void ftc_clear_error(void);

#endif
