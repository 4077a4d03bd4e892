/* Arrays that grow as they are filled: the PGN readers, the opening books,
 * the evaluation tuner's dataset and bin/ratchet-label keep their items in
 * them. */
#ifndef RATCHET_GROWARRAY_H
#define RATCHET_GROWARRAY_H

#include <stdbool.h>
#include <stddef.h>

/* Makes room for `need` elements of `elem` bytes in *buf (capacity *cap,
 * doubled as needed); false when out of memory (*buf is then unchanged). */
bool grow_array(void **buf, size_t *cap, size_t need, size_t elem);

#endif
