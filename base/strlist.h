/* Lists of words: a NULL-terminated array of strings, as the UCI go
 * keywords, a run's option sections and their keys are kept. */
#ifndef RATCHET_STRLIST_H
#define RATCHET_STRLIST_H

#include <stdbool.h>

/* Is s one of the strings of list (NULL-terminated; compared exactly)? */
bool str_in_list(const char *const *list, const char *s);

#endif
