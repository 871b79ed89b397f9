/*
 * delta/deltaInt.h: private to delta/: the jansson-level action parser shared by JSON commits
 * and checkpoint rows, and the checkpoint Parquet reader (a small Dremel record assembler that
 * decodes add/remove rows straight into actions and turns other rows into the JSON object the
 * action parser takes).
 */
#ifndef TN_DELTA_INT_H
#define TN_DELTA_INT_H

#include "delta/delta.h"

#include <jansson.h>

/* Parses one action object ({"add": {...}}); a row whose action columns are all null parses as
 * TN_DELTA_UNKNOWN. */
int dl_action_from_json(tn_delta_action *out, tn_arena *arena, json_t *obj);
/* Builds the jansson object for an action (new reference) or NULL + error. */
json_t *dl_action_to_json(const tn_delta_action *action);

/* Reads a Parquet checkpoint (classic, part, v2 or sidecar) and calls fn with each row as a
 * JSON object {"add": {...}} (only the action columns tarn knows are assembled; the *_parsed
 * columns are skipped). The object is borrowed for the call. Errors name the file. */
typedef int (*dl_row_fn)(void *ctx, json_t *row);
int dl_checkpoint_read(tn_fs *fs, const char *path, dl_row_fn fn, void *ctx);
/* Reads a Parquet checkpoint and calls fn with every row as an action allocated from arena
 * (add/remove decoded without a JSON round trip; other actions through the JSON parser),
 * borrowed for the call. Errors name the file and the row. */
int dl_checkpoint_read_actions(tn_fs *fs, const char *path, tn_arena *arena,
                               int (*fn)(void *ctx, const tn_delta_action *a), void *ctx);

/* Random hex string of n chars (n < 64) for temp names, UUIDs. */
void dl_random_hex(char *out, size_t n);
/* Random UUID v4 text (37 bytes with NUL). */
void dl_uuid(char out[37]);

#endif
