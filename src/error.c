#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ftcoll.h"

static _Thread_local char last_message[512];

const char *ftc_error_message(void)
{
    return last_message;
}

void ftc_clear_error(void)
{
    last_message[0] = '\0';
}

int ftc_fail(int code, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(last_message, sizeof(last_message), format, args);
    va_end(args);
    return code;
}

int ftc_fail_mpi(int code, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int used = vsnprintf(last_message, sizeof(last_message), format, args);
    va_end(args);
    if (used < 0 || (size_t)used >= sizeof(last_message) - 8)
        return code;
    char mpi_words[MPI_MAX_ERROR_STRING];
    int length = 0;
    if (MPI_Error_string(code, mpi_words, &length) != MPI_SUCCESS)
        snprintf(mpi_words, sizeof(mpi_words), "MPI error %d", code);
    /* Cut MPI's words to the room left: the caller's context matters more. */
    const size_t room = sizeof(last_message) - (size_t)used;
    snprintf(last_message + used, room, ": %.*s", (int)(room - 3), mpi_words);
    return code;
}

void ftc_append(char *text, size_t size, const char *format, ...)
{
    const size_t used = strlen(text);
    if (used + 1 >= size)
        return;
    va_list args;
    va_start(args, format);
    vsnprintf(text + used, size - used, format, args);
    va_end(args);
}
