/*
 * api/api.c: the implementation of include/tarn.h: thin wrappers that translate the public
 * API onto the internal layers. Owns no state of its own.
 */
#include "tarn.h"

#include "base/base.h"

const char *tarn_version(void) { return TARN_VERSION; }

const char *tarn_last_error(void) { return tn_error_message(); }
