/* The tokens' periods (tokens.h). */
#include "tokens.h"

_Static_assert((FTC_FT_WINDOW >> (FTC_FT_TOKEN_CLASSES - 1)) == 1,
               "one class per period, FTC_FT_WINDOW .. 1");

long ftc_ft_token_period(size_t bytes)
{
    return FTC_FT_WINDOW >> ftc_ft_token_class(bytes);
}

int ftc_ft_token_class(size_t bytes)
{
    return ftc_ft_token_class_within(bytes, FTC_FT_KEPT_BYTES);
}

int ftc_ft_token_class_within(size_t bytes, size_t budget)
{
    int k = 0;
    while (k < FTC_FT_TOKEN_CLASSES - 1 && bytes > budget / (size_t)(FTC_FT_WINDOW >> k))
        k++;
    return k;
}

bool ftc_ft_sends_tokens(long number, int token_class, long class_calls)
{
    const long period = FTC_FT_WINDOW >> token_class;
    /* a period of the whole window: the call number's multiples bound the
     * class's copies already, and its count, out of step with the number
     * once another collective took one, would add a second wait a window */
    return number % FTC_FT_WINDOW == 0 ||
           (period < FTC_FT_WINDOW && class_calls % period == 0);
}
