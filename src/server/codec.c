/*
 * server/codec.c: the PostgreSQL v3 frame codec (formats in pgwireInt.h): bounded readers,
 * one decoder per frontend message that validates every count and length against the bytes
 * present, and the encoders of backend messages. Pure functions of bytes: no sockets, no
 * sessions (conn.c does the I/O), so the fuzz target drives them directly.
 */
#include <stdio.h>
#include <string.h>

#include "server/pgwireInt.h"

void tn_pg_rd_init(tn_pg_rd *r, const char *what, const uint8_t *p, uint32_t n) {
    r->p = p;
    r->n = n;
    r->off = 0;
    r->what = what;
}

static int short_read(tn_pg_rd *r, const char *field, uint32_t need) {
    return tn_error_set(TN_ECORRUPT, "%s: truncated at byte %u: %s needs %u bytes, %u left", r->what, r->off,
                        field, need, r->n - r->off);
}

int tn_pg_rd_i8(tn_pg_rd *r, uint8_t *out) {
    if (r->n - r->off < 1) return short_read(r, "a byte", 1);
    *out = r->p[r->off++];
    return 0;
}

int tn_pg_rd_i16(tn_pg_rd *r, int16_t *out) {
    if (r->n - r->off < 2) return short_read(r, "an int16", 2);
    *out = (int16_t)(((uint16_t)r->p[r->off] << 8) | r->p[r->off + 1]);
    r->off += 2;
    return 0;
}

int tn_pg_rd_i32(tn_pg_rd *r, int32_t *out) {
    if (r->n - r->off < 4) return short_read(r, "an int32", 4);
    const uint8_t *p = r->p + r->off;
    *out = (int32_t)(((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3]);
    r->off += 4;
    return 0;
}

int tn_pg_rd_cstr(tn_pg_rd *r, const char **out, uint32_t *len) {
    const uint8_t *start = r->p + r->off;
    const uint8_t *nul = r->n > r->off ? memchr(start, 0, r->n - r->off) : NULL;
    if (!nul)
        return tn_error_set(TN_ECORRUPT, "%s: string at byte %u is not terminated within the message", r->what,
                            r->off);
    *out = (const char *)start;
    if (len) *len = (uint32_t)(nul - start);
    r->off += (uint32_t)(nul - start) + 1;
    return 0;
}

int tn_pg_rd_bytes(tn_pg_rd *r, uint32_t n, const uint8_t **out) {
    if (r->n - r->off < n) return short_read(r, "a byte string", n);
    *out = r->p + r->off;
    r->off += n;
    return 0;
}

int tn_pg_rd_end(tn_pg_rd *r) {
    if (r->off != r->n)
        return tn_error_set(TN_ECORRUPT, "%s: %u unexpected bytes after its last field", r->what, r->n - r->off);
    return 0;
}

int tn_pg_frame_check(uint8_t type, int32_t length, uint32_t max, uint32_t *body_len) {
    if (length < 4)
        return tn_error_set(TN_ECORRUPT, "invalid message length %d for message type '%c' (0x%02x)", length,
                            type >= 32 && type < 127 ? type : '?', type);
    if ((uint32_t)length - 4 > max)
        return tn_error_set(TN_ELIMIT, "message of type '%c' is %u bytes, above the server's limit of %u bytes",
                            type >= 32 && type < 127 ? type : '?', (uint32_t)length - 4, max);
    *body_len = (uint32_t)length - 4;
    return 0;
}

int tn_pg_decode_startup(const uint8_t *body, uint32_t len, tn_pg_startup *out) {
    memset(out, 0, sizeof *out);
    tn_pg_rd r;
    tn_pg_rd_init(&r, "startup packet", body, len);
    int32_t code;
    int rc = tn_pg_rd_i32(&r, &code);
    if (rc) return rc;
    if (code == TN_PG_SSL_REQUEST || code == TN_PG_GSSENC_REQUEST) {
        out->kind = code == TN_PG_SSL_REQUEST ? TN_PG_SSL : TN_PG_GSSENC;
        return tn_pg_rd_end(&r);
    }
    if (code == TN_PG_CANCEL_REQUEST) {
        out->kind = TN_PG_CANCEL;
        r.what = "cancel request";
        if ((rc = tn_pg_rd_i32(&r, &out->cancel_pid)) || (rc = tn_pg_rd_i32(&r, &out->cancel_key))) return rc;
        return tn_pg_rd_end(&r);
    }
    int major = (int)((uint32_t)code >> 16), minor = code & 0xffff;
    if (major != 3)
        return tn_error_set(TN_EUNSUPPORTED, "unsupported frontend protocol %d.%d: server supports 3.0", major,
                            minor);
    out->kind = TN_PG_STARTUP;
    out->version = code;
    for (;;) {
        const char *name, *value;
        uint32_t nlen;
        if ((rc = tn_pg_rd_cstr(&r, &name, &nlen))) return rc;
        if (nlen == 0) break;
        if ((rc = tn_pg_rd_cstr(&r, &value, NULL))) return rc;
        if (out->npairs == TN_PG_STARTUP_PAIRS)
            return tn_error_set(TN_ELIMIT, "startup packet: more than %d parameters", TN_PG_STARTUP_PAIRS);
        out->names[out->npairs] = name;
        out->values[out->npairs] = value;
        out->npairs++;
    }
    return tn_pg_rd_end(&r);
}

int tn_pg_decode_parse(const uint8_t *body, uint32_t len, tn_pg_parse *out) {
    memset(out, 0, sizeof *out);
    tn_pg_rd r;
    tn_pg_rd_init(&r, "Parse message", body, len);
    int16_t n;
    int rc = tn_pg_rd_cstr(&r, &out->name, NULL);
    if (!rc) rc = tn_pg_rd_cstr(&r, &out->sql, &out->sql_len);
    if (!rc) rc = tn_pg_rd_i16(&r, &n);
    if (rc) return rc;
    if (n < 0) return tn_error_set(TN_ECORRUPT, "Parse message: negative parameter type count %d", n);
    out->nparams = (uint16_t)n;
    if ((rc = tn_pg_rd_bytes(&r, 4u * out->nparams, &out->oids))) return rc;
    return tn_pg_rd_end(&r);
}

static int format_codes(tn_pg_rd *r, const char *what, uint16_t *n, const uint8_t **codes) {
    int16_t k;
    int rc = tn_pg_rd_i16(r, &k);
    if (rc) return rc;
    if (k < 0) return tn_error_set(TN_ECORRUPT, "%s: negative %s format count %d", r->what, what, k);
    *n = (uint16_t)k;
    if ((rc = tn_pg_rd_bytes(r, 2u * *n, codes))) return rc;
    for (uint16_t i = 0; i < *n; i++) {
        uint16_t f = (uint16_t)(((*codes)[2 * i] << 8) | (*codes)[2 * i + 1]);
        if (f > 1)
            return tn_error_set(TN_ECORRUPT, "%s: unsupported %s format code %u (0 text and 1 binary exist)",
                                r->what, what, f);
    }
    return 0;
}

int tn_pg_decode_bind(const uint8_t *body, uint32_t len, tn_pg_bind *out) {
    memset(out, 0, sizeof *out);
    tn_pg_rd r;
    tn_pg_rd_init(&r, "Bind message", body, len);
    int16_t np;
    int rc = tn_pg_rd_cstr(&r, &out->portal, NULL);
    if (!rc) rc = tn_pg_rd_cstr(&r, &out->stmt, NULL);
    if (!rc) rc = format_codes(&r, "parameter", &out->nformats, &out->formats);
    if (!rc) rc = tn_pg_rd_i16(&r, &np);
    if (rc) return rc;
    if (np < 0) return tn_error_set(TN_ECORRUPT, "Bind message: negative parameter count %d", np);
    out->nparams = (uint16_t)np;
    if (out->nformats > 1 && out->nformats != out->nparams)
        return tn_error_set(TN_ECORRUPT, "Bind message: %u parameter formats for %u parameters", out->nformats,
                            out->nparams);
    out->params = body + r.off;
    for (uint16_t i = 0; i < out->nparams; i++) {
        int32_t plen;
        const uint8_t *data;
        if ((rc = tn_pg_rd_i32(&r, &plen))) return rc;
        if (plen < -1) return tn_error_set(TN_ECORRUPT, "Bind message: parameter %u has length %d", i + 1, plen);
        if (plen >= 0 && (uint32_t)plen > r.n - r.off)
            return tn_error_set(TN_ECORRUPT, "Bind message: parameter %u length %d exceeds the %u bytes left", i + 1,
                                plen, r.n - r.off);
        if (plen > 0 && (rc = tn_pg_rd_bytes(&r, (uint32_t)plen, &data))) return rc;
    }
    if ((rc = format_codes(&r, "result", &out->nresults, &out->results))) return rc;
    return tn_pg_rd_end(&r);
}

int tn_pg_format_at(const uint8_t *codes, uint16_t n, uint32_t i) {
    if (n == 0) return 0;
    uint32_t k = n == 1 ? 0 : i;
    if (k >= n) return 0;
    return (codes[2 * k] << 8) | codes[2 * k + 1];
}

void tn_pg_bind_param(const tn_pg_bind *b, uint32_t i, const uint8_t **data, int32_t *len) {
    /* The section was validated by tn_pg_decode_bind: walk it again. */
    const uint8_t *p = b->params;
    for (uint32_t k = 0;; k++) {
        int32_t l = (int32_t)(((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3]);
        p += 4;
        if (k == i) {
            *len = l;
            *data = l < 0 ? NULL : p;
            return;
        }
        if (l > 0) p += l;
    }
}

int tn_pg_decode_target(const char *what, const uint8_t *body, uint32_t len, tn_pg_target *out) {
    tn_pg_rd r;
    tn_pg_rd_init(&r, what, body, len);
    uint8_t k = 0;
    int rc = tn_pg_rd_i8(&r, &k);
    if (rc) return rc;
    if (k != 'S' && k != 'P')
        return tn_error_set(TN_ECORRUPT, "%s: invalid target '%c' (0x%02x): 'S' or 'P' expected", what,
                            k >= 32 && k < 127 ? k : '?', k);
    out->kind = (char)k;
    if ((rc = tn_pg_rd_cstr(&r, &out->name, NULL))) return rc;
    return tn_pg_rd_end(&r);
}

int tn_pg_decode_execute(const uint8_t *body, uint32_t len, tn_pg_execute *out) {
    tn_pg_rd r;
    tn_pg_rd_init(&r, "Execute message", body, len);
    int rc = tn_pg_rd_cstr(&r, &out->portal, NULL);
    if (!rc) rc = tn_pg_rd_i32(&r, &out->max_rows);
    if (rc) return rc;
    if (out->max_rows < 0) out->max_rows = 0;     /* as PostgreSQL: <= 0 means all rows */
    return tn_pg_rd_end(&r);
}

int tn_pg_decode_query(const uint8_t *body, uint32_t len, const char **sql, uint32_t *sql_len) {
    tn_pg_rd r;
    tn_pg_rd_init(&r, "Query message", body, len);
    int rc = tn_pg_rd_cstr(&r, sql, sql_len);
    if (rc) return rc;
    return tn_pg_rd_end(&r);
}

int tn_pg_decode_empty(const char *what, uint32_t len) {
    if (len) return tn_error_set(TN_ECORRUPT, "%s: %u unexpected bytes (the message has no fields)", what, len);
    return 0;
}

int tn_pg_decode_cstr_only(const char *what, const uint8_t *body, uint32_t len, const char **out) {
    tn_pg_rd r;
    tn_pg_rd_init(&r, what, body, len);
    int rc = tn_pg_rd_cstr(&r, out, NULL);
    if (rc) return rc;
    return tn_pg_rd_end(&r);
}

int tn_pg_decode_sasl_initial(const uint8_t *body, uint32_t len, tn_pg_sasl_initial *out) {
    tn_pg_rd r;
    tn_pg_rd_init(&r, "SASLInitialResponse message", body, len);
    int rc = tn_pg_rd_cstr(&r, &out->mechanism, NULL);
    if (!rc) rc = tn_pg_rd_i32(&r, &out->len);
    if (rc) return rc;
    out->data = NULL;
    if (out->len < -1) return tn_error_set(TN_ECORRUPT, "SASLInitialResponse message: length %d", out->len);
    if (out->len >= 0 && (rc = tn_pg_rd_bytes(&r, (uint32_t)out->len, &out->data))) return rc;
    return tn_pg_rd_end(&r);
}

int tn_pg_decode_any(uint8_t type, const uint8_t *body, uint32_t len) {
    switch (type) {
    case 'Q': { const char *s; uint32_t n; return tn_pg_decode_query(body, len, &s, &n); }
    case 'P': { tn_pg_parse p; return tn_pg_decode_parse(body, len, &p); }
    case 'B': {
        tn_pg_bind b;
        int rc = tn_pg_decode_bind(body, len, &b);
        for (uint32_t i = 0; !rc && i < b.nparams; i++) {
            const uint8_t *d;
            int32_t l;
            tn_pg_bind_param(&b, i, &d, &l);
            if (l > 0 && (d < body || d + l > body + len)) __builtin_trap();
        }
        return rc;
    }
    case 'D': { tn_pg_target t; return tn_pg_decode_target("Describe message", body, len, &t); }
    case 'C': { tn_pg_target t; return tn_pg_decode_target("Close message", body, len, &t); }
    case 'E': { tn_pg_execute e; return tn_pg_decode_execute(body, len, &e); }
    case 'S': return tn_pg_decode_empty("Sync message", len);
    case 'H': return tn_pg_decode_empty("Flush message", len);
    case 'X': return tn_pg_decode_empty("Terminate message", len);
    case 'c': return tn_pg_decode_empty("CopyDone message", len);
    case 'd': return 0;
    case 'f': { const char *s; return tn_pg_decode_cstr_only("CopyFail message", body, len, &s); }
    case 'p': { tn_pg_sasl_initial s; return tn_pg_decode_sasl_initial(body, len, &s); }
    default:
        return tn_error_set(TN_ECORRUPT, "invalid frontend message type '%c' (0x%02x)", type >= 32 && type < 127 ? type : '?',
                            type);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Backend messages.
 */
static void put(tn_pg_out *o, const void *p, size_t n) {
    if (o->err) return;
    int rc = tn_buf_append(&o->buf, p, n);
    if (rc) o->err = rc;
}

size_t tn_pg_begin(tn_pg_out *o, uint8_t type) {
    size_t at = o->buf.len;
    uint8_t h[5] = {type, 0, 0, 0, 0};
    put(o, h, 5);
    return at;
}

void tn_pg_end(tn_pg_out *o, size_t at) {
    if (o->err) return;
    uint32_t n = (uint32_t)(o->buf.len - at - 1);
    uint8_t *p = o->buf.data + at + 1;
    p[0] = (uint8_t)(n >> 24);
    p[1] = (uint8_t)(n >> 16);
    p[2] = (uint8_t)(n >> 8);
    p[3] = (uint8_t)n;
}

void tn_pg_put_i8(tn_pg_out *o, uint8_t v) { put(o, &v, 1); }
void tn_pg_put_i16(tn_pg_out *o, int16_t v) {
    uint8_t b[2] = {(uint8_t)((uint16_t)v >> 8), (uint8_t)v};
    put(o, b, 2);
}
void tn_pg_put_i32(tn_pg_out *o, int32_t v) {
    uint32_t u = (uint32_t)v;
    uint8_t b[4] = {(uint8_t)(u >> 24), (uint8_t)(u >> 16), (uint8_t)(u >> 8), (uint8_t)u};
    put(o, b, 4);
}
void tn_pg_put_i64(tn_pg_out *o, int64_t v) {
    tn_pg_put_i32(o, (int32_t)((uint64_t)v >> 32));
    tn_pg_put_i32(o, (int32_t)(uint32_t)v);
}
void tn_pg_put_bytes(tn_pg_out *o, const void *p, size_t n) { put(o, p, n); }
void tn_pg_put_cstr(tn_pg_out *o, const char *s) { put(o, s, strlen(s) + 1); }

void tn_pg_put_error(tn_pg_out *o, char type, const char *severity, const char *sqlstate,
                     const char *message, const char *detail, const char *hint, uint32_t position) {
    size_t at = tn_pg_begin(o, (uint8_t)type);
    tn_pg_put_i8(o, 'S');
    tn_pg_put_cstr(o, severity);
    tn_pg_put_i8(o, 'V');
    tn_pg_put_cstr(o, severity);
    tn_pg_put_i8(o, 'C');
    tn_pg_put_cstr(o, sqlstate);
    tn_pg_put_i8(o, 'M');
    tn_pg_put_cstr(o, message);
    if (detail && *detail) {
        tn_pg_put_i8(o, 'D');
        tn_pg_put_cstr(o, detail);
    }
    if (hint && *hint) {
        tn_pg_put_i8(o, 'H');
        tn_pg_put_cstr(o, hint);
    }
    if (position) {
        char b[16];
        snprintf(b, sizeof b, "%u", position);
        tn_pg_put_i8(o, 'P');
        tn_pg_put_cstr(o, b);
    }
    tn_pg_put_i8(o, 0);
    tn_pg_end(o, at);
}
