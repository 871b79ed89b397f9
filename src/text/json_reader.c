/*
 * text/json_reader.c: the NDJSON reader: lines from the shared buffered input, a small bounded
 * JSON tokenizer for one top-level object per line (strings decoded to UTF-8, nested values
 * kept as compact JSON text, depth-limited), type detection over a sample, and conversion into
 * chunks (values parsed by text_common.c). Owns nothing outside src/text/.
 */
#include "text/textInt.h"

#include <stdio.h>
#include <string.h>

#define MAX_DEPTH 512

enum { J_NULL, J_FALSE, J_TRUE, J_INT, J_REAL, J_STRING, J_NESTED };

/* One key/value of the current line. Strings (keys and string values, decoded) and nested
 * values (compact text) live in scratch at *_off; numbers and the raw JSON text of strings
 * point into the line. */
typedef struct jkv {
    uint32_t key_off, key_len;
    uint8_t kind;
    uint32_t val_off, val_len;   /* J_STRING / J_NESTED: in scratch */
    const char *raw;             /* J_INT / J_REAL / J_STRING: the token's text in the line */
    uint32_t raw_len;
} jkv;

/* Column detection state and per-column reading mode. */
typedef struct jcol {
    char *name;                  /* the key's decoded bytes (may hold NULs), NUL-terminated */
    uint32_t name_len;
    char *label;                 /* the column's name when not `name`: "C<index>" for "" */
    tn_type type;
    bool json_text;              /* VARCHAR holding each value's JSON text */
    unsigned kinds;              /* bit per J_* kind seen in the sample */
    unsigned str_mask;           /* TN_TEXT_M_DATE / _TS / _TSTZ candidates of sampled strings */
    uint32_t last_row;           /* row index + 1 last set in the current chunk */
} jcol;

struct tn_ndjson_reader {
    tn_text_input in;            /* the file and its buffer */
    char *path;
    uint64_t line;               /* line number of the line just read */
    tn_buf scratch;
    jkv *kvs;
    uint32_t nkv, kv_cap;
    const char *err;             /* tokenizer error text */
    const char *err_at;
    const char *line_start;
    jcol *cols;
    uint32_t ncols, cols_cap;
    char **names;
    tn_type *types;
    tn_text_conv conv;           /* names and types for parsing values */
    uint32_t hint;               /* column index the next key probably has */
    uint32_t *index;             /* hash of the column names: column index + 1, 0 = empty */
    uint32_t index_cap;          /* a power of two, at least twice ncols */
    bool done, failed;
    uint64_t row_lines[TN_VECTOR_SIZE];   /* line of each row of the last chunk */
};

/* ---------------------------------------------------------------------------------------------
 * Lines.
 */
/* 1: a non-blank line in [*s, *e); 0: end of file; < 0 error. */
static int next_line(tn_ndjson_reader *r, const char **s, const char **e) {
    for (;;) {
        const char *p = r->in.buf + r->in.pos, *end = r->in.buf + r->in.len;
        const char *nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
        if (!nl && !r->in.eof) {
            int rc = tn_text_input_refill(&r->in, "line", r->line + 1);
            if (rc < 0) return rc;
            continue;
        }
        if (!nl && p == end) return 0;
        const char *le = nl ? nl : end;
        r->in.pos = (size_t)(le - r->in.buf) + (nl ? 1 : 0);
        r->line++;
        const char *q = p;
        while (q < le && (*q == ' ' || *q == '\t' || *q == '\r')) q++;
        if (q == le) continue;
        *s = p;
        *e = le;
        return 1;
    }
}

/* ---------------------------------------------------------------------------------------------
 * Tokenizer. Each returns false with r->err set on malformed input.
 */
static const char *skip_ws(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
    return p;
}

static bool fail(tn_ndjson_reader *r, const char *what, const char *at) {
    r->err = what;
    r->err_at = at;
    return false;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static bool read_hex4(const char *p, const char *end, unsigned *out) {
    if (end - p < 4) return false;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(p[i]);
        if (h < 0) return false;
        v = v * 16 + (unsigned)h;
    }
    *out = v;
    return true;
}

static int put_utf8(tn_buf *b, unsigned cp) {
    uint8_t u[4];
    size_t n;
    if (cp < 0x80) { u[0] = (uint8_t)cp; n = 1; }
    else if (cp < 0x800) { u[0] = (uint8_t)(0xC0 | (cp >> 6)); u[1] = (uint8_t)(0x80 | (cp & 0x3F)); n = 2; }
    else if (cp < 0x10000) {
        u[0] = (uint8_t)(0xE0 | (cp >> 12)); u[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (uint8_t)(0x80 | (cp & 0x3F)); n = 3;
    } else {
        u[0] = (uint8_t)(0xF0 | (cp >> 18)); u[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F)); u[3] = (uint8_t)(0x80 | (cp & 0x3F)); n = 4;
    }
    return tn_buf_append(b, u, n);
}

/* *pp at the opening quote. decode: append the decoded bytes to scratch; else only validate. */
static bool parse_string(tn_ndjson_reader *r, const char **pp, const char *end, bool decode) {
    const char *p = *pp + 1;
    const char *s = p;
    for (;;) {
        while (p < end && *p != '"' && *p != '\\' && (uint8_t)*p >= 0x20) p++;
        if (p >= end) return fail(r, "unterminated string", *pp);
        if ((uint8_t)*p < 0x20) return fail(r, "control character in string", p);
        if (decode && p > s && tn_buf_append(&r->scratch, s, (size_t)(p - s)) < 0)
            return fail(r, "out of memory", p);
        if (*p == '"') {
            *pp = p + 1;
            return true;
        }
        /* escape */
        if (p + 1 >= end) return fail(r, "unterminated string", *pp);
        char c = p[1];
        char lit = 0;
        switch (c) {
        case '"': lit = '"'; break;
        case '\\': lit = '\\'; break;
        case '/': lit = '/'; break;
        case 'b': lit = '\b'; break;
        case 'f': lit = '\f'; break;
        case 'n': lit = '\n'; break;
        case 'r': lit = '\r'; break;
        case 't': lit = '\t'; break;
        case 'u': {
            unsigned cp;
            if (!read_hex4(p + 2, end, &cp)) return fail(r, "bad \\u escape", p);
            p += 6;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                unsigned lo;
                if (end - p >= 6 && p[0] == '\\' && p[1] == 'u' && read_hex4(p + 2, end, &lo) &&
                    lo >= 0xDC00 && lo <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    p += 6;
                } else {
                    cp = 0xFFFD;
                }
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                cp = 0xFFFD;
            }
            if (decode && put_utf8(&r->scratch, cp) < 0) return fail(r, "out of memory", p);
            s = p;
            continue;
        }
        default: return fail(r, "bad escape in string", p);
        }
        if (decode && tn_buf_append_byte(&r->scratch, (uint8_t)lit) < 0)
            return fail(r, "out of memory", p);
        p += 2;
        s = p;
    }
}

/* JSON number grammar; *is_int when it has no fraction or exponent. */
static bool parse_number(tn_ndjson_reader *r, const char **pp, const char *end, bool *is_int) {
    const char *p = *pp;
    *is_int = true;
    if (p < end && *p == '-') p++;
    if (p >= end || *p < '0' || *p > '9') return fail(r, "bad number", *pp);
    if (*p == '0') p++;
    else while (p < end && *p >= '0' && *p <= '9') p++;
    if (p < end && *p == '.') {
        *is_int = false;
        p++;
        const char *d = p;
        while (p < end && *p >= '0' && *p <= '9') p++;
        if (p == d) return fail(r, "bad number", *pp);
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        *is_int = false;
        p++;
        if (p < end && (*p == '+' || *p == '-')) p++;
        const char *d = p;
        while (p < end && *p >= '0' && *p <= '9') p++;
        if (p == d) return fail(r, "bad number", *pp);
    }
    *pp = p;
    return true;
}

static bool lit_at(const char *p, const char *end, const char *lit, size_t n) {
    return (size_t)(end - p) >= n && memcmp(p, lit, n) == 0;
}

/* Any value, appended to scratch as compact JSON text (strings copied verbatim). */
static bool copy_value(tn_ndjson_reader *r, const char **pp, const char *end, int depth) {
    const char *p = skip_ws(*pp, end);
    if (p >= end) return fail(r, "unexpected end of line", p);
    if (depth > MAX_DEPTH) return fail(r, "nesting too deep", p);
    char c = *p;
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        if (tn_buf_append_byte(&r->scratch, (uint8_t)c) < 0) return fail(r, "out of memory", p);
        p = skip_ws(p + 1, end);
        if (p < end && *p == close) {
            p++;
        } else {
            for (;;) {
                p = skip_ws(p, end);
                if (c == '{') {
                    if (p >= end || *p != '"') return fail(r, "expected a key", p);
                    const char *s0 = p;
                    if (!parse_string(r, &p, end, false)) return false;
                    if (tn_buf_append(&r->scratch, s0, (size_t)(p - s0)) < 0 ||
                        tn_buf_append_byte(&r->scratch, ':') < 0)
                        return fail(r, "out of memory", p);
                    p = skip_ws(p, end);
                    if (p >= end || *p != ':') return fail(r, "expected ':'", p);
                    p++;
                }
                if (!copy_value(r, &p, end, depth + 1)) return false;
                p = skip_ws(p, end);
                if (p < end && *p == ',') {
                    if (tn_buf_append_byte(&r->scratch, ',') < 0) return fail(r, "out of memory", p);
                    p++;
                    continue;
                }
                if (p < end && *p == close) {
                    p++;
                    break;
                }
                return fail(r, c == '{' ? "expected ',' or '}'" : "expected ',' or ']'", p);
            }
        }
        if (tn_buf_append_byte(&r->scratch, (uint8_t)close) < 0) return fail(r, "out of memory", p);
        *pp = p;
        return true;
    }
    const char *s0 = p;
    if (c == '"') {
        if (!parse_string(r, &p, end, false)) return false;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        bool is_int;
        if (!parse_number(r, &p, end, &is_int)) return false;
    } else if (lit_at(p, end, "true", 4)) {
        p += 4;
    } else if (lit_at(p, end, "false", 5)) {
        p += 5;
    } else if (lit_at(p, end, "null", 4)) {
        p += 4;
    } else {
        return fail(r, "unexpected character", p);
    }
    if (tn_buf_append(&r->scratch, s0, (size_t)(p - s0)) < 0) return fail(r, "out of memory", p);
    *pp = p;
    return true;
}

/* Parses the top-level object of a line into r->kvs. */
static bool parse_object(tn_ndjson_reader *r, const char *p, const char *end) {
    r->nkv = 0;
    tn_buf_clear(&r->scratch);
    p = skip_ws(p, end);
    if (p >= end || *p != '{') return fail(r, "expected an object", p);
    p = skip_ws(p + 1, end);
    if (p < end && *p == '}') {
        p++;
        goto tail;
    }
    for (;;) {
        if (r->nkv == r->kv_cap) {
            uint32_t ncap = r->kv_cap ? r->kv_cap * 2 : 32;
            jkv *nk = tn_realloc(r->kvs, ncap * sizeof *nk);
            if (!nk) return fail(r, "out of memory", p);
            r->kvs = nk;
            r->kv_cap = ncap;
        }
        jkv *kv = &r->kvs[r->nkv];
        p = skip_ws(p, end);
        if (p >= end || *p != '"') return fail(r, "expected a key", p);
        kv->key_off = (uint32_t)r->scratch.len;
        if (!parse_string(r, &p, end, true)) return false;
        kv->key_len = (uint32_t)(r->scratch.len - kv->key_off);
        p = skip_ws(p, end);
        if (p >= end || *p != ':') return fail(r, "expected ':'", p);
        p = skip_ws(p + 1, end);
        if (p >= end) return fail(r, "unexpected end of line", p);
        char c = *p;
        kv->raw = p;
        if (c == '"') {
            kv->kind = J_STRING;
            kv->val_off = (uint32_t)r->scratch.len;
            if (!parse_string(r, &p, end, true)) return false;
            kv->val_len = (uint32_t)(r->scratch.len - kv->val_off);
        } else if (c == '{' || c == '[') {
            kv->kind = J_NESTED;
            kv->val_off = (uint32_t)r->scratch.len;
            if (!copy_value(r, &p, end, 1)) return false;
            kv->val_len = (uint32_t)(r->scratch.len - kv->val_off);
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            bool is_int;
            if (!parse_number(r, &p, end, &is_int)) return false;
            kv->kind = is_int ? J_INT : J_REAL;
        } else if (lit_at(p, end, "true", 4)) {
            kv->kind = J_TRUE;
            p += 4;
        } else if (lit_at(p, end, "false", 5)) {
            kv->kind = J_FALSE;
            p += 5;
        } else if (lit_at(p, end, "null", 4)) {
            kv->kind = J_NULL;
            p += 4;
        } else {
            return fail(r, "unexpected character", p);
        }
        kv->raw_len = (uint32_t)(p - kv->raw);
        r->nkv++;
        p = skip_ws(p, end);
        if (p < end && *p == ',') {
            p++;
            continue;
        }
        if (p < end && *p == '}') {
            p++;
            break;
        }
        return fail(r, "expected ',' or '}'", p);
    }
tail:
    p = skip_ws(p, end);
    if (p != end) return fail(r, "unexpected text after the object", p);
    return true;
}

static int syntax_error(tn_ndjson_reader *r) {
    if (r->err && strcmp(r->err, "out of memory") == 0) return TN_ENOMEM;
    return tn_error_set(TN_ECORRUPT, "%s: line %llu: invalid JSON: %s at column %llu", r->path,
                        (unsigned long long)r->line, r->err ? r->err : "?",
                        (unsigned long long)(r->err_at - r->line_start + 1));
}

static int read_object(tn_ndjson_reader *r) {
    const char *s, *e;
    int rc = next_line(r, &s, &e);
    if (rc <= 0) return rc;
    r->line_start = s;
    if (!parse_object(r, s, e)) return syntax_error(r);
    return 1;
}

/* Decoded text at off in scratch. Scratch has no block yet when only empty strings were
 * decoded on the line (no arithmetic on its NULL data then). */
static const char *scratch_at(const tn_ndjson_reader *r, uint32_t off) {
    return r->scratch.data ? (const char *)r->scratch.data + off : "";
}

static const char *kv_key(const tn_ndjson_reader *r, const jkv *kv) {
    return scratch_at(r, kv->key_off);
}

static uint32_t key_hash(const char *key, uint32_t len) {
    uint32_t h = 2166136261u;                     /* FNV-1a */
    for (uint32_t i = 0; i < len; i++) h = (h ^ (uint8_t)key[i]) * 16777619u;
    return h ^ (h >> 15);
}

static bool col_is(const jcol *c, const char *key, uint32_t len) {
    return c->name_len == len && (len == 0 || memcmp(c->name, key, len) == 0);
}

/* Column index of a key, or -1: the hinted column (keys usually come in the same order on
 * every line), else the name hash (a scan of every column per key was quadratic for a line of
 * thousands of keys). */
static int32_t find_col(tn_ndjson_reader *r, const char *key, uint32_t len) {
    uint32_t n = r->ncols;
    int32_t found = -1;
    if (n == 0) return -1;
    if (r->hint < n && col_is(&r->cols[r->hint], key, len)) {
        found = (int32_t)r->hint;
    } else {
        uint32_t mask = r->index_cap - 1;
        for (uint32_t h = key_hash(key, len) & mask; r->index[h]; h = (h + 1) & mask) {
            if (col_is(&r->cols[r->index[h] - 1], key, len)) {
                found = (int32_t)(r->index[h] - 1);
                break;
            }
        }
        if (found < 0) return -1;
    }
    r->hint = (uint32_t)found + 1 < n ? (uint32_t)found + 1 : 0;
    return found;
}

/* Enters column i into the name hash, doubling it when it would pass half full. */
static int index_col(tn_ndjson_reader *r, uint32_t i) {
    if ((uint64_t)(i + 1) * 2 > r->index_cap) {
        uint32_t ncap = r->index_cap ? r->index_cap * 2 : 64;
        uint32_t *ni = tn_calloc(ncap, sizeof *ni);
        if (!ni) return TN_ENOMEM;
        tn_free(r->index);
        r->index = ni;
        r->index_cap = ncap;
        for (uint32_t k = 0; k < i; k++) {
            uint32_t h = key_hash(r->cols[k].name, r->cols[k].name_len) & (ncap - 1);
            while (ni[h]) h = (h + 1) & (ncap - 1);
            ni[h] = k + 1;
        }
    }
    uint32_t mask = r->index_cap - 1, h = key_hash(r->cols[i].name, r->cols[i].name_len) & mask;
    while (r->index[h]) h = (h + 1) & mask;
    r->index[h] = i + 1;
    return 0;
}

static int add_col(tn_ndjson_reader *r, const char *key, uint32_t len) {
    if (r->ncols == r->cols_cap) {
        uint32_t ncap = r->cols_cap ? r->cols_cap * 2 : 16;
        jcol *nc = tn_realloc(r->cols, ncap * sizeof *nc);
        if (!nc) return TN_ENOMEM;
        r->cols = nc;
        r->cols_cap = ncap;
    }
    jcol *c = &r->cols[r->ncols];
    memset(c, 0, sizeof *c);
    /* The key's exact bytes: a decoded key may hold NULs ("a\u0000b"), which a string copy
     * would cut while find_col compares name_len bytes. */
    c->name = tn_malloc((size_t)len + 1);
    if (!c->name) return TN_ENOMEM;
    if (len) memcpy(c->name, key, len);
    c->name[len] = 0;
    c->name_len = len;
    c->str_mask = TN_TEXT_M_TEMPORAL;
    r->ncols++;                            /* tn_ndjson_close frees it from here */
    int rc = index_col(r, r->ncols - 1);
    if (rc < 0) return rc;
    if (len == 0) {                        /* DuckDB names the column of key "" C<index> */
        char tmp[16];
        snprintf(tmp, sizeof tmp, "C%u", r->ncols - 1);
        if (!(c->label = tn_strdup(tmp))) return TN_ENOMEM;
    }
    return 0;
}

static void finish_type(jcol *c) {
    unsigned k = c->kinds & ~(1u << J_NULL);
    unsigned kb = (1u << J_TRUE) | (1u << J_FALSE);
    unsigned kn = (1u << J_INT) | (1u << J_REAL);
    c->json_text = false;
    if (k == 0) c->type = tn_type_make(TN_TYPE_VARCHAR);
    else if ((k & ~kb) == 0) c->type = tn_type_make(TN_TYPE_BOOLEAN);
    else if (k == (1u << J_INT)) c->type = tn_type_make(TN_TYPE_BIGINT);
    else if ((k & ~kn) == 0) c->type = tn_type_make(TN_TYPE_DOUBLE);
    else if (k == (1u << J_STRING)) c->type = tn_text_type_from_mask(c->str_mask, true);
    else {
        c->type = tn_type_make(TN_TYPE_VARCHAR);
        c->json_text = true;
    }
}

/* A string's temporal candidates (ISO 8601 only; it must start with the year's digits). */
static unsigned string_mask(const tn_ndjson_reader *r, const char *s, size_t n) {
    if (n < 10 || s[0] < '0' || s[0] > '9') return 0;
    return tn_text_classify_temporal(&r->conv, s, n);
}

static int sniff(tn_ndjson_reader *r, const tn_ndjson_options *o) {
    int rc = 0;
    if (o->ncolumns && o->column_names) {
        for (uint32_t i = 0; i < o->ncolumns; i++) {
            rc = add_col(r, o->column_names[i], (uint32_t)strlen(o->column_names[i]));
            if (rc < 0) return rc;
        }
    }
    bool fixed = o->ncolumns && o->column_names;
    uint32_t sample = o->sample_size ? o->sample_size : 20480;
    for (uint32_t rows = 0; rows < sample; rows++) {
        rc = read_object(r);
        if (rc < 0) return rc;
        if (rc == 0) break;
        for (uint32_t i = 0; i < r->nkv; i++) {
            const jkv *kv = &r->kvs[i];
            int32_t c = find_col(r, kv_key(r, kv), kv->key_len);
            if (c < 0) {
                if (fixed) continue;
                rc = add_col(r, kv_key(r, kv), kv->key_len);
                if (rc < 0) return rc;
                c = (int32_t)r->ncols - 1;
            }
            jcol *col = &r->cols[c];
            col->kinds |= 1u << kv->kind;
            if (kv->kind == J_STRING && col->str_mask)
                col->str_mask &= string_mask(r, scratch_at(r, kv->val_off), kv->val_len);
        }
    }
    r->names = tn_calloc(r->ncols ? r->ncols : 1, sizeof *r->names);
    r->types = tn_calloc(r->ncols ? r->ncols : 1, sizeof *r->types);
    if (!r->names || !r->types) return TN_ENOMEM;
    for (uint32_t i = 0; i < r->ncols; i++) {
        finish_type(&r->cols[i]);
        if (o->column_types && i < o->ncolumns) {
            r->cols[i].type = o->column_types[i];
            r->cols[i].json_text = false;
        }
        char *fixed_name = NULL;
        int crc = tn_text_check_name(r->path, r->cols[i].label ? r->cols[i].label : r->cols[i].name,
                                    o->replace_invalid_utf8, &fixed_name);
        if (crc < 0) return crc;
        if (fixed_name) { tn_free(r->cols[i].label); r->cols[i].label = fixed_name; }
        r->names[i] = r->cols[i].label ? r->cols[i].label : r->cols[i].name;
        r->types[i] = r->cols[i].type;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Open / close.
 */
int tn_ndjson_open(tn_ndjson_reader **out, tn_fs *fs, const char *path,
                   const tn_ndjson_options *opts) {
    tn_ndjson_options defaults = TN_NDJSON_OPTIONS_INIT;
    const tn_ndjson_options *o = opts ? opts : &defaults;
    int rc = 0;
    *out = NULL;
    tn_ndjson_reader *r = tn_calloc(1, sizeof *r);
    if (!r) return TN_ENOMEM;
    r->path = tn_strdup(path);
    if (!r->path) { rc = TN_ENOMEM; goto cleanup; }
    r->conv.path = r->path;
    r->conv.replace_invalid_utf8 = o->replace_invalid_utf8;
    uint64_t start = 0;
    rc = tn_text_input_open(&r->in, fs, r->path, o->buffer_size, o->max_record_size, &start);
    if (rc < 0) goto cleanup;
    tn_text_input_seek(&r->in, start);
    rc = sniff(r, o);
    if (rc < 0) goto cleanup;
    r->conv.names = (const char *const *)r->names;
    r->conv.types = r->types;
    /* Read again from the start. */
    tn_text_input_seek(&r->in, start);
    r->line = 0;
    r->hint = 0;
    rc = 0;
cleanup:
    if (rc < 0) {
        if (strncmp(tn_error_message(), path, strlen(path)) != 0) tn_error_prefix(rc, "%s", path);
        tn_ndjson_close(r);
        return rc;
    }
    *out = r;
    return 0;
}

void tn_ndjson_close(tn_ndjson_reader *r) {
    if (!r) return;
    tn_text_input_close(&r->in);
    for (uint32_t i = 0; i < r->ncols; i++) {
        tn_free(r->cols[i].name);
        tn_free(r->cols[i].label);
    }
    tn_free(r->cols);
    tn_free(r->index);
    tn_free(r->names);
    tn_free(r->types);
    tn_free(r->kvs);
    tn_buf_free(&r->scratch);
    tn_free(r->path);
    tn_free(r);
}

uint32_t tn_ndjson_columns(const tn_ndjson_reader *r, const char *const **names,
                           const tn_type **types) {
    if (names) *names = (const char *const *)r->names;
    if (types) *types = r->types;
    return r->ncols;
}

/* ---------------------------------------------------------------------------------------------
 * Reading rows.
 */
/* Whether a value of this kind may be read as a column of type id: numbers (and strings) as
 * numbers, only true/false as BOOLEAN, only strings as dates and timestamps. */
static bool kind_fits(uint8_t kind, uint8_t id) {
    switch (id) {
    case TN_TYPE_VARCHAR: case TN_TYPE_VARBINARY: return true;
    case TN_TYPE_BOOLEAN: return kind == J_TRUE || kind == J_FALSE;
    case TN_TYPE_TINYINT: case TN_TYPE_SMALLINT: case TN_TYPE_INTEGER: case TN_TYPE_BIGINT:
        return kind == J_INT || kind == J_STRING;
    case TN_TYPE_FLOAT: case TN_TYPE_DOUBLE: case TN_TYPE_DECIMAL:
        return kind == J_INT || kind == J_REAL || kind == J_STRING;
    case TN_TYPE_DATE: case TN_TYPE_TIMESTAMP: case TN_TYPE_TIMESTAMP_TZ: return kind == J_STRING;
    default: return false;
    }
}

static int store(tn_ndjson_reader *r, tn_vector *v, uint32_t row, uint32_t col, const jkv *kv) {
    const char *sval = scratch_at(r, kv->val_off);
    if (kv->kind == J_NULL) return tn_text_store_null(v, row);
    if (r->cols[col].json_text) {
        if (kv->kind == J_NESTED) return tn_text_store_str(&r->conv, r->line, col, v, row, sval, kv->val_len);
        return tn_text_store_str(&r->conv, r->line, col, v, row, kv->raw, kv->raw_len);
    }
    /* The value's text: decoded string, compact nested text, or the literal. */
    const char *s = kv->raw;
    size_t n = kv->raw_len;
    if (kv->kind == J_STRING || kv->kind == J_NESTED) {
        s = sval;
        n = kv->val_len;
    }
    if (!kind_fits(kv->kind, v->type.id)) return tn_text_convert_error(&r->conv, r->line, col, s, n);
    return tn_text_store_field(&r->conv, r->line, col, v, row, s, n);
}

int tn_ndjson_next(tn_ndjson_reader *r, tn_chunk *out) {
    int rc = 0;
    uint32_t cap, n = 0;
    if (r->failed) return tn_error_set(TN_EINVAL, "%s: reader failed earlier", r->path);
    rc = tn_text_chunk_begin(out, r->path, r->ncols, r->types, &cap);
    if (rc < 0) goto cleanup;
    for (uint32_t c = 0; c < r->ncols; c++) r->cols[c].last_row = 0;
    while (n < cap && !r->done) {
        rc = read_object(r);
        if (rc < 0) goto cleanup;
        if (rc == 0) {
            r->done = true;
            break;
        }
        for (uint32_t i = 0; i < r->nkv; i++) {
            const jkv *kv = &r->kvs[i];
            int32_t c = find_col(r, kv_key(r, kv), kv->key_len);
            if (c < 0) continue;
            if (r->cols[c].last_row == n + 1) { /* duplicate key: the last one wins */
                if (out->cols[c].validity) tn_vector_set_valid_bit(&out->cols[c], n, true);
            }
            rc = store(r, &out->cols[c], n, (uint32_t)c, kv);
            if (rc < 0) goto cleanup;
            r->cols[c].last_row = n + 1;
        }
        for (uint32_t c = 0; c < r->ncols; c++) {
            if (r->cols[c].last_row == n + 1) continue;
            rc = tn_text_store_null(&out->cols[c], n);
            if (rc < 0) goto cleanup;
        }
        r->row_lines[n++] = r->line;
    }
    rc = 0;
cleanup:
    return tn_text_chunk_end(out, n, rc, &r->failed);
}

uint64_t tn_ndjson_row_line(const tn_ndjson_reader *r, uint32_t row) { return row < TN_VECTOR_SIZE ? r->row_lines[row] : 0; }
