#include "decision.h"

#include <string.h>

int ftc_decision_look_up(const ftc_decision_row *rows, size_t nrows, int p, size_t bytes,
                         int fallback)
{
    for (size_t i = 0; i < nrows; i++) {
        const ftc_decision_row *r = &rows[i];
        if (p >= r->below_procs)
            continue;
        for (const ftc_decision_column *c = r->columns;; c++)
            if (bytes < c->below_bytes || c->below_bytes == FTC_DECISION_ELSE)
                return c->algorithm;
    }
    return fallback;
}

bool ftc_decision_parse_name(const ftc_decision_name *names, size_t n, const char *name,
                             int *value)
{
    for (size_t i = 0; name && i < n; i++) {
        if (strcmp(name, names[i].name) == 0) {
            *value = names[i].value;
            return true;
        }
    }
    return false;
}
