#define _POSIX_C_SOURCE 200809L /* gethostname */
#include "hash.h"

#include <string.h>
#include <unistd.h>

uint64_t ftc_hash_bytes(uint64_t h, const void *bytes, size_t n)
{
    const unsigned char *byte = bytes;
    for (size_t i = 0; i < n; i++)
        h = (h ^ byte[i]) * UINT64_C(1099511628211);
    return h;
}

uint64_t ftc_hash_text(const char *text)
{
    return ftc_hash_bytes(FTC_HASH_START, text, strlen(text));
}

uint64_t ftc_hash_host(void)
{
    char name[256] = "";
    gethostname(name, sizeof(name) - 1);
    return ftc_hash_text(name);
}

int ftc_hash_int(uint64_t h)
{
    return (int)((h ^ (h >> 32)) & 0x7fffffffu);
}
