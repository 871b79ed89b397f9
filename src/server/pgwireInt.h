/*
 * server/pgwireInt.h: private to server/: the PostgreSQL v3 frame codec (bounded decoding of
 * every frontend message into structs, encoding of backend messages), the type-OID table and
 * value encoders, SCRAM-SHA-256, and the per-connection protocol loop. Nothing outside
 * server/ (and its unit tests and fuzz target) includes it.
 *
 * Frontend messages decoded here (after the startup packet every message is
 * type byte + int32 length counting itself + body):
 *
 *   startup    int32 len, int32 code: 196608 (3.0) + (cstr name, cstr value)* + '\0'
 *              80877103 SSLRequest, 80877104 GSSENCRequest, 80877102 CancelRequest
 *              (int32 pid, int32 key); anything else: unsupported protocol
 *   'Q' Query  cstr sql
 *   'P' Parse  cstr name, cstr sql, int16 n, int32 oid[n]
 *   'B' Bind   cstr portal, cstr stmt, int16 nf, int16 fmt[nf], int16 np,
 *              (int32 len (-1 = NULL), byte[len])[np], int16 nr, int16 rfmt[nr]
 *   'D' Describe / 'C' Close   byte 'S'|'P', cstr name
 *   'E' Execute cstr portal, int32 max_rows (0 = all)
 *   'S' Sync, 'H' Flush, 'X' Terminate, 'c' CopyDone: empty
 *   'd' CopyData byte[], 'f' CopyFail cstr
 *   'p' password / SASLInitialResponse (cstr mech, int32 len, byte[len]) / SASLResponse byte[]
 *
 * A decoder consumes the whole body or fails with TN_ECORRUPT and a message naming the
 * message type and what is wrong ("Bind message: parameter 2 length 2147483647 exceeds the
 * 10 bytes left"). Decoded strings and byte ranges are borrowed from the body.
 */
#ifndef TN_PGWIRE_INT_H
#define TN_PGWIRE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/base.h"
#include "types/types.h"

#define TN_PG_PROTOCOL_3     196608
#define TN_PG_SSL_REQUEST    80877103
#define TN_PG_GSSENC_REQUEST 80877104
#define TN_PG_CANCEL_REQUEST 80877102
#define TN_PG_STARTUP_MAX    10000      /* bytes, as PostgreSQL's MAX_STARTUP_PACKET_LENGTH */
#define TN_PG_MAX_PARAMS     65535
#define TN_PG_STARTUP_PAIRS  64

/* A bounded reader over one message body. */
typedef struct tn_pg_rd {
    const uint8_t *p;
    uint32_t n, off;
    const char *what;            /* "Bind message", for errors */
} tn_pg_rd;

void tn_pg_rd_init(tn_pg_rd *r, const char *what, const uint8_t *p, uint32_t n);
int tn_pg_rd_i8(tn_pg_rd *r, uint8_t *out);
int tn_pg_rd_i16(tn_pg_rd *r, int16_t *out);
int tn_pg_rd_i32(tn_pg_rd *r, int32_t *out);
int tn_pg_rd_cstr(tn_pg_rd *r, const char **out, uint32_t *len);   /* NUL within the body */
int tn_pg_rd_bytes(tn_pg_rd *r, uint32_t n, const uint8_t **out);
int tn_pg_rd_end(tn_pg_rd *r);           /* error when bytes are left over */

typedef enum tn_pg_startup_kind {
    TN_PG_STARTUP, TN_PG_SSL, TN_PG_GSSENC, TN_PG_CANCEL,
} tn_pg_startup_kind;

typedef struct tn_pg_startup {
    tn_pg_startup_kind kind;
    int32_t version;             /* TN_PG_STARTUP: 3.minor (196608 + minor) */
    int32_t cancel_pid, cancel_key;
    uint32_t npairs;
    const char *names[TN_PG_STARTUP_PAIRS], *values[TN_PG_STARTUP_PAIRS];
} tn_pg_startup;

/* body: the packet after its int32 length (len - 4 bytes). */
int tn_pg_decode_startup(const uint8_t *body, uint32_t len, tn_pg_startup *out);

typedef struct tn_pg_parse {
    const char *name, *sql;
    uint32_t sql_len;
    uint16_t nparams;
    const uint8_t *oids;         /* nparams big-endian int32 */
} tn_pg_parse;
int tn_pg_decode_parse(const uint8_t *body, uint32_t len, tn_pg_parse *out);

typedef struct tn_pg_bind {
    const char *portal, *stmt;
    uint16_t nformats, nparams, nresults;
    const uint8_t *formats;      /* nformats int16 (0 text, 1 binary; validated) */
    const uint8_t *params;       /* the parameter section: (int32 len, bytes)[nparams] */
    const uint8_t *results;      /* nresults int16 (validated) */
} tn_pg_bind;
int tn_pg_decode_bind(const uint8_t *body, uint32_t len, tn_pg_bind *out);
/* Format of parameter / result column i under the "0, 1 or n codes" rule. */
int tn_pg_format_at(const uint8_t *codes, uint16_t n, uint32_t i);
/* Parameter i of a decoded Bind: *data NULL for SQL NULL. */
void tn_pg_bind_param(const tn_pg_bind *b, uint32_t i, const uint8_t **data, int32_t *len);

typedef struct tn_pg_target {
    char kind;                   /* 'S' statement or 'P' portal */
    const char *name;
} tn_pg_target;
int tn_pg_decode_target(const char *what, const uint8_t *body, uint32_t len, tn_pg_target *out);

typedef struct tn_pg_execute {
    const char *portal;
    int32_t max_rows;            /* 0 = all */
} tn_pg_execute;
int tn_pg_decode_execute(const uint8_t *body, uint32_t len, tn_pg_execute *out);

int tn_pg_decode_query(const uint8_t *body, uint32_t len, const char **sql, uint32_t *sql_len);
int tn_pg_decode_empty(const char *what, uint32_t len);
int tn_pg_decode_cstr_only(const char *what, const uint8_t *body, uint32_t len, const char **out);

typedef struct tn_pg_sasl_initial {
    const char *mechanism;
    const uint8_t *data;
    int32_t len;                 /* -1: no initial response */
} tn_pg_sasl_initial;
int tn_pg_decode_sasl_initial(const uint8_t *body, uint32_t len, tn_pg_sasl_initial *out);

/* Decodes one frontend message by type (the fuzz target's entry): 0 or TN_ECORRUPT. */
int tn_pg_decode_any(uint8_t type, const uint8_t *body, uint32_t len);
/* Checks a frame header (type byte, int32 length): the body length or TN_ECORRUPT/TN_ELIMIT
 * when the length is below 4 or the body above max. */
int tn_pg_frame_check(uint8_t type, int32_t length, uint32_t max, uint32_t *body_len);

/* Backend message encoding into a tn_buf. tn_pg_begin writes type + a length placeholder and
 * returns its offset; tn_pg_end patches it. Failures are sticky in *err (first code kept). */
typedef struct tn_pg_out {
    tn_buf buf;
    int err;
} tn_pg_out;
size_t tn_pg_begin(tn_pg_out *o, uint8_t type);
void tn_pg_end(tn_pg_out *o, size_t at);
void tn_pg_put_i8(tn_pg_out *o, uint8_t v);
void tn_pg_put_i16(tn_pg_out *o, int16_t v);
void tn_pg_put_i32(tn_pg_out *o, int32_t v);
void tn_pg_put_i64(tn_pg_out *o, int64_t v);
void tn_pg_put_bytes(tn_pg_out *o, const void *p, size_t n);
void tn_pg_put_cstr(tn_pg_out *o, const char *s);
/* ErrorResponse ('E') or NoticeResponse ('N'): severity, SQLSTATE, message, optional detail /
 * hint, and position (1-based character, 0 = none). */
void tn_pg_put_error(tn_pg_out *o, char type, const char *severity, const char *sqlstate,
                     const char *message, const char *detail, const char *hint, uint32_t position);

/* ---------------------------------------------------------------------------------------------
 * types.c: tarn types as PostgreSQL types (one table), text and binary encoding of values,
 * decoding of Bind parameters.
 */
typedef struct tn_pg_type_info {
    tn_type_id id;
    uint32_t oid;
    int16_t typlen;
    const char *name;            /* PostgreSQL's type name */
} tn_pg_type_info;

const tn_pg_type_info *tn_pg_type_of(tn_type t);
const tn_pg_type_info *tn_pg_type_by_oid(uint32_t oid);       /* NULL when unknown */
int32_t tn_pg_typmod(tn_type t);                               /* numeric: (p << 16 | s) + 4 */
/* Appends value row of v as PostgreSQL's text (format 0) or binary (format 1) encoding,
 * without the length word. extra_float_digits as the parameter: > 0 shortest exact text. */
int tn_pg_encode_value(tn_buf *out, const tn_vector *v, uint32_t row, int format, int extra_float_digits);
/* 0, or 22021's error "WHAT: invalid byte sequence for encoding "UTF8": 0x.." when data is
 * not valid UTF-8 or holds a NUL byte (what PostgreSQL accepts as text from a client). */
int tn_pg_text_check(const uint8_t *data, size_t len, const char *what);
/* Decodes a Bind parameter of type oid (0 = unspecified: bound as text, which tarn coerces
 * like a string literal) in format 0/1 into *out; strings are copied into arena. Errors name
 * the parameter ("parameter $2: invalid input for type int4: \"x\""). */
int tn_pg_decode_param(tn_value *out, uint32_t oid, int format, const uint8_t *data, int32_t len,
                       uint32_t index, tn_arena *arena);
/* copy.c: the binary COPY FROM STDIN decoder alone, on data[0, len) handed over in two parts
 * (split), for fields of the given types; rows are decoded and dropped (the fuzz target). */
int tn_pg_copy_binary_check(const uint8_t *data, size_t len, size_t split, const tn_type *types, uint32_t ntypes);
/* PostgreSQL-style interval text: "1 year 2 mons 3 days 04:05:06.5". */
int tn_pg_format_interval(tn_buf *out, tn_interval iv);

/* ---------------------------------------------------------------------------------------------
 * auth.c: SCRAM-SHA-256 (RFC 5802/7677) server side, and SCRAM-SHA-256-PLUS over TLS
 * (channel binding tls-server-end-point, RFC 5929).
 */
typedef struct tn_pg_scram {
    char client_first_bare[512];
    char server_first[512];
    char nonce[128];             /* client nonce + server nonce */
    uint8_t salt[64];
    uint32_t salt_len;
    uint32_t iterations;
    uint8_t stored_key[32], server_key[32];
    /* channel binding (tls-server-end-point), set by the caller before scram_first: cbind is
     * the hash of the server's certificate when the connection has TLS (cbind_len 0: none);
     * plus: the client chose SCRAM-SHA-256-PLUS. gs2: the client's gs2 header. */
    uint8_t cbind[64];
    uint32_t cbind_len;
    bool plus;
    char gs2[64];
} tn_pg_scram;

/* Derives the keys of password (with a fresh salt) into s. */
int tn_pg_scram_init(tn_pg_scram *s, const char *password);
/* The same with a given salt and iteration count (tests use RFC 7677's vector). */
int tn_pg_scram_init_salt(tn_pg_scram *s, const char *password, const uint8_t *salt, size_t salt_len,
                          uint32_t iterations);
/* The keys of a stored verifier (PostgreSQL's pg_authid.rolpassword format,
 * "SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>", base64) into s. TN_EINVAL with
 * the reason when v is not one. */
int tn_pg_scram_init_verifier(tn_pg_scram *s, const char *v);
/* s's keys as such a verifier (NUL-terminated into out, cap >= 160). */
void tn_pg_scram_verifier(const tn_pg_scram *s, char *out, size_t cap);
/* client-first-message → server-first-message (into out). TN_EINVAL when malformed or when
 * the gs2 header does not fit the mechanism and the channel binding the server offers. */
int tn_pg_scram_first(tn_pg_scram *s, const uint8_t *msg, int32_t len, tn_buf *out);
/* The same with a given server nonce (printable, no ','). */
int tn_pg_scram_first_nonce(tn_pg_scram *s, const uint8_t *msg, int32_t len, const char *snonce, tn_buf *out);
/* client-final-message → server-final-message ("v=..."). TN_EINVAL malformed, TN_EEXISTS
 * (used as "wrong proof") when the password does not match. */
int tn_pg_scram_final(tn_pg_scram *s, const uint8_t *msg, int32_t len, tn_buf *out);

/* ---------------------------------------------------------------------------------------------
 * commands.c: statement splitting, session commands, PostgreSQL parameters.
 */
/* Next statement of sql[0, n) from *pos: [*start, *end) without the ';' and surrounding blanks
 * and comments; false when only blanks and comments remain. */
bool tn_pg_split_next(const char *sql, size_t n, size_t *pos, size_t *start, size_t *end);

typedef enum tn_pg_cmd_kind {
    TN_PG_CMD_NONE,              /* not a session command: tarn's SQL */
    TN_PG_CMD_EMPTY,             /* blanks and comments only */
    TN_PG_CMD_BEGIN, TN_PG_CMD_COMMIT, TN_PG_CMD_ROLLBACK,
    TN_PG_CMD_SET, TN_PG_CMD_SHOW, TN_PG_CMD_RESET,
    TN_PG_CMD_DISCARD, TN_PG_CMD_DEALLOCATE,
    TN_PG_CMD_SET_TXN,           /* SET TRANSACTION / SET SESSION CHARACTERISTICS */
    TN_PG_CMD_UNSUPPORTED,       /* LISTEN, SAVEPOINT, ...: 0A000 naming it */
    TN_PG_CMD_BAD,               /* SET of a known parameter with an unreadable value */
    TN_PG_CMD_DECLARE,           /* DECLARE name [BINARY] [NO SCROLL] CURSOR [WITH[OUT] HOLD] FOR query */
    TN_PG_CMD_FETCH,             /* FETCH / MOVE [NEXT | FORWARD [n | ALL] | n | ALL] [FROM | IN] name */
    TN_PG_CMD_CLOSE,             /* CLOSE name | ALL */
} tn_pg_cmd_kind;

typedef struct tn_pg_cmd {
    tn_pg_cmd_kind kind;
    char name[64];               /* parameter (lower case), statement name, or command word */
    char *value;                 /* SET: the value (malloc'd; tn_pg_cmd_free) */
    bool local;                  /* SET LOCAL */
    bool read_only;              /* BEGIN READ ONLY */
    bool binary, hold;           /* DECLARE BINARY, WITH HOLD (value: the query, malloc'd) */
    bool move;                   /* FETCH: MOVE (rows skipped, not sent) */
    int64_t count;               /* FETCH: rows, 0 = ALL */
} tn_pg_cmd;

int tn_pg_classify(const char *sql, size_t len, tn_pg_cmd *out);
void tn_pg_cmd_free(tn_pg_cmd *c);

#define TN_PG_MAX_SETTINGS 48
typedef struct tn_pg_settings {
    char *values[TN_PG_MAX_SETTINGS];
    char *boot[TN_PG_MAX_SETTINGS];
    int extra_float_digits;
    int64_t statement_timeout_ms;
} tn_pg_settings;

bool tn_pg_setting_known(const char *name);
int tn_pg_settings_init(tn_pg_settings *s, const char *user, bool read_only, int max_connections,
                        int statement_timeout_ms);
void tn_pg_settings_free(tn_pg_settings *s);
/* Sets a parameter (validated: an error says why a value is refused); *reported when the
 * client must get a ParameterStatus. */
int tn_pg_setting_set(tn_pg_settings *s, const char *name, const char *value, bool *reported);
int tn_pg_setting_reset(tn_pg_settings *s, const char *name, bool *reported);   /* name or "all" */
const char *tn_pg_setting_get(const tn_pg_settings *s, const char *name, const char **canonical_name);
int tn_pg_setting_count(void);
void tn_pg_setting_at(const tn_pg_settings *s, int i, const char **name, const char **value,
                      const char **description, bool *report);
const char *tn_pg_setting_wire_name(const char *name);

/* compat.c: a catalog query of psql that tarn's SQL cannot run as written, as the query that
 * gives the same answer: true with *out (tn_free) and *what naming it; false otherwise. */
bool tn_pg_compat_rewrite(const char *sql, size_t len, char **out, const char **what);

/* ---------------------------------------------------------------------------------------------
 * Errors: tarn's codes and messages as SQLSTATE (errors.c).
 */
const char *tn_pg_sqlstate(int code, const char *message);

#endif
