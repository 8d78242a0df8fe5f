/* uthash, configured never to exit on out-of-memory: a failed add sets opnn__hash_oomed and
 * leaves the table as it was, so the caller can free the element and report the failure. */
#ifndef OPNN_CORE_HASH_H
#define OPNN_CORE_HASH_H

static _Thread_local int opnn__hash_oomed __attribute__((unused));

#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(obj) (opnn__hash_oomed = 1)
#include <uthash.h>

#endif /* OPNN_CORE_HASH_H */
