/*
 * parquet/thrift.c: the generic Thrift compact protocol: a bounded, depth-capped reader over a
 * byte buffer (hostile input: every read is checked, lists are bounded by the bytes left) and a
 * writer into a tn_buf with sticky errors. Knows nothing of Parquet's structures (metadata.c).
 *
 * Wire: varint = ULEB128; i16/i32/i64 = zigzag varint; i8 = 1 raw byte; double = 8 bytes LE;
 * binary = varint length + bytes; field header = (delta << 4) | type, or 0x0T + zigzag i16 id;
 * struct ends with 0x00; list = (size << 4) | etype, or 0xF0 | etype + varint size.
 */
#include "parquet/parquetInt.h"

#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * Reader.
 */
static int corrupt(const pq_thrift_reader *r, const char *what) {
    return tn_error_set(TN_ECORRUPT, "thrift: %s at byte %zu", what, r->pos);
}

void pq_thrift_reader_init(pq_thrift_reader *r, const uint8_t *buf, size_t len) {
    r->buf = buf;
    r->len = len;
    r->pos = 0;
    r->depth = 0;
    r->last_id[0] = 0;
}

int pq_thrift_read_uvarint(pq_thrift_reader *r, uint64_t *out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (r->pos >= r->len) return corrupt(r, "truncated varint");
        uint8_t b = r->buf[r->pos++];
        if (shift == 63 && (b & 0x7e)) return corrupt(r, "varint overflows 64 bits");
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) { *out = v; return 0; }
    }
    return corrupt(r, "varint longer than 10 bytes");
}

static int read_zz32(pq_thrift_reader *r, int32_t *out) {
    uint64_t zz;
    int rc = pq_thrift_read_uvarint(r, &zz);
    if (rc) return rc;
    if (zz > 0xffffffffu) return corrupt(r, "i32 varint out of range");
    uint32_t z = (uint32_t)zz;
    *out = (int32_t)((z >> 1) ^ (0u - (z & 1)));
    return 0;
}

int pq_thrift_read_i8(pq_thrift_reader *r, int8_t *out) {
    if (r->pos >= r->len) return corrupt(r, "truncated i8");
    *out = (int8_t)r->buf[r->pos++];
    return 0;
}

int pq_thrift_read_i16(pq_thrift_reader *r, int16_t *out) {
    int32_t v = 0;
    int rc = read_zz32(r, &v);
    if (rc) return rc;
    if (v < INT16_MIN || v > INT16_MAX) return corrupt(r, "i16 out of range");
    *out = (int16_t)v;
    return 0;
}

int pq_thrift_read_i32(pq_thrift_reader *r, int32_t *out) { return read_zz32(r, out); }

int pq_thrift_read_i64(pq_thrift_reader *r, int64_t *out) {
    uint64_t zz;
    int rc = pq_thrift_read_uvarint(r, &zz);
    if (rc) return rc;
    *out = (int64_t)((zz >> 1) ^ (0 - (zz & 1)));
    return 0;
}

int pq_thrift_read_double(pq_thrift_reader *r, double *out) {
    if (r->len - r->pos < 8) return corrupt(r, "truncated double");
    uint64_t bits = tn_load_u64le(r->buf + r->pos);
    r->pos += 8;
    memcpy(out, &bits, 8);
    return 0;
}

int pq_thrift_read_binary(pq_thrift_reader *r, const uint8_t **ptr, uint32_t *len) {
    uint64_t n;
    int rc = pq_thrift_read_uvarint(r, &n);
    if (rc) return rc;
    if (n > r->len - r->pos) return corrupt(r, "binary length past the end of the buffer");
    if (n > UINT32_MAX) return corrupt(r, "binary too long");
    *ptr = r->buf + r->pos;
    *len = (uint32_t)n;
    r->pos += (size_t)n;
    return 0;
}

int pq_thrift_struct_begin(pq_thrift_reader *r) {
    if (r->depth >= PQ_THRIFT_MAX_DEPTH) return corrupt(r, "nesting deeper than 64");
    r->depth++;
    r->last_id[r->depth] = 0;
    return 0;
}

void pq_thrift_struct_end(pq_thrift_reader *r) {
    if (r->depth > 0) r->depth--;
}

int pq_thrift_field(pq_thrift_reader *r, int *type, int16_t *id) {
    if (r->pos >= r->len) return corrupt(r, "truncated struct (no stop byte)");
    uint8_t b = r->buf[r->pos++];
    if (b == 0) { *type = PQ_TT_STOP; *id = 0; return 0; }
    int t = b & 0x0f, delta = b >> 4;
    if (t == PQ_TT_STOP || t > PQ_TT_UUID) return corrupt(r, "bad field type");
    int32_t fid;
    if (delta) {
        fid = (int32_t)r->last_id[r->depth] + delta;
        if (fid > INT16_MAX) return corrupt(r, "field id overflows i16");
    } else {
        int16_t v;
        int rc = pq_thrift_read_i16(r, &v);
        if (rc) return rc;
        fid = v;
    }
    r->last_id[r->depth] = (int16_t)fid;
    *type = t;
    *id = (int16_t)fid;
    return 0;
}

int pq_thrift_list_begin(pq_thrift_reader *r, int *elem_type, uint32_t *size) {
    if (r->pos >= r->len) return corrupt(r, "truncated list header");
    uint8_t b = r->buf[r->pos++];
    int t = b & 0x0f;
    uint64_t n = b >> 4;
    if (n == 15) {
        int rc = pq_thrift_read_uvarint(r, &n);
        if (rc) return rc;
    }
    if (t == PQ_TT_STOP || t > PQ_TT_UUID) return corrupt(r, "bad list element type");
    /* every element takes at least one byte on the wire (an empty struct is 0x00) */
    if (n > r->len - r->pos) return corrupt(r, "list size larger than the bytes left");
    *elem_type = t;
    *size = (uint32_t)n;
    return 0;
}

int pq_thrift_read_bool_elem(pq_thrift_reader *r, bool *out) {
    if (r->pos >= r->len) return corrupt(r, "truncated bool");
    *out = r->buf[r->pos++] == 1;
    return 0;
}

static int skip_depth(pq_thrift_reader *r, int type, int depth);

static int skip_struct(pq_thrift_reader *r, int depth) {
    int rc = pq_thrift_struct_begin(r);
    if (rc) return rc;
    for (;;) {
        int t; int16_t id;
        rc = pq_thrift_field(r, &t, &id);
        if (rc) return rc;
        if (t == PQ_TT_STOP) break;
        if (t == PQ_TT_BOOL_TRUE || t == PQ_TT_BOOL_FALSE) continue;
        rc = skip_depth(r, t, depth + 1);
        if (rc) return rc;
    }
    pq_thrift_struct_end(r);
    return 0;
}

static int skip_depth(pq_thrift_reader *r, int type, int depth) {
    uint64_t v;
    size_t n = 0;
    int rc = 0;
    if (depth > PQ_THRIFT_MAX_DEPTH) return corrupt(r, "nesting deeper than 64");
    switch (type) {
    case PQ_TT_BOOL_TRUE: case PQ_TT_BOOL_FALSE: case PQ_TT_I8: n = 1; break;
    case PQ_TT_I16: case PQ_TT_I32: case PQ_TT_I64: return pq_thrift_read_uvarint(r, &v);
    case PQ_TT_DOUBLE: n = 8; break;
    case PQ_TT_UUID: n = 16; break;
    case PQ_TT_BINARY: {
        const uint8_t *p; uint32_t l;
        return pq_thrift_read_binary(r, &p, &l);
    }
    case PQ_TT_LIST: case PQ_TT_SET: {
        int et; uint32_t size;
        rc = pq_thrift_list_begin(r, &et, &size);
        for (uint32_t i = 0; rc == 0 && i < size; i++) rc = skip_depth(r, et, depth + 1);
        return rc;
    }
    case PQ_TT_MAP: {
        rc = pq_thrift_read_uvarint(r, &v);
        if (rc) return rc;
        if (v == 0) return 0;
        if (v > (r->len - r->pos) / 2) return corrupt(r, "map size larger than the bytes left");
        if (r->pos >= r->len) return corrupt(r, "truncated map header");
        uint8_t kv = r->buf[r->pos++];
        int kt = kv >> 4, vt = kv & 0x0f;
        if (kt == 0 || kt > PQ_TT_UUID || vt == 0 || vt > PQ_TT_UUID) return corrupt(r, "bad map types");
        for (uint64_t i = 0; rc == 0 && i < v; i++) {
            rc = skip_depth(r, kt, depth + 1);
            if (rc == 0) rc = skip_depth(r, vt, depth + 1);
        }
        return rc;
    }
    case PQ_TT_STRUCT: return skip_struct(r, depth);
    default: return corrupt(r, "unknown type to skip");
    }
    if (r->len - r->pos < n) return corrupt(r, "truncated value");
    r->pos += n;
    return 0;
}

int pq_thrift_skip(pq_thrift_reader *r, int type) { return skip_depth(r, type, r->depth); }

int pq_thrift_skip_field(pq_thrift_reader *r, int type) {
    if (type == PQ_TT_BOOL_TRUE || type == PQ_TT_BOOL_FALSE) return 0;
    return skip_depth(r, type, r->depth);
}

/* ---------------------------------------------------------------------------------------------
 * Writer.
 */
void pq_thrift_writer_init(pq_thrift_writer *w, tn_buf *out) {
    w->out = out;
    w->rc = 0;
    w->depth = 0;
    w->last_id[0] = 0;
}

static void put(pq_thrift_writer *w, const void *p, size_t n) {
    if (w->rc) return;
    w->rc = tn_buf_append(w->out, p, n);
}

void pq_thrift_write_uvarint(pq_thrift_writer *w, uint64_t v) {
    uint8_t tmp[10];
    size_t n = 0;
    while (v >= 0x80) { tmp[n++] = (uint8_t)(v | 0x80); v >>= 7; }
    tmp[n++] = (uint8_t)v;
    put(w, tmp, n);
}

void pq_thrift_write_i32(pq_thrift_writer *w, int32_t v) {
    uint32_t u = (uint32_t)v;
    pq_thrift_write_uvarint(w, (u << 1) ^ (0u - (u >> 31)));
}

void pq_thrift_write_i64(pq_thrift_writer *w, int64_t v) {
    uint64_t u = (uint64_t)v;
    pq_thrift_write_uvarint(w, (u << 1) ^ (0 - (u >> 63)));
}

void pq_thrift_write_i8(pq_thrift_writer *w, int8_t v) {
    uint8_t b = (uint8_t)v;
    put(w, &b, 1);
}

void pq_thrift_write_double(pq_thrift_writer *w, double v) {
    uint64_t bits;
    uint8_t tmp[8];
    memcpy(&bits, &v, 8);
    tn_store_u64le(tmp, bits);
    put(w, tmp, 8);
}

void pq_thrift_write_binary(pq_thrift_writer *w, const void *data, size_t len) {
    pq_thrift_write_uvarint(w, len);
    if (len) put(w, data, len);
}

void pq_thrift_write_struct_begin(pq_thrift_writer *w) {
    if (w->rc) return;
    if (w->depth >= PQ_THRIFT_MAX_DEPTH) {
        w->rc = tn_error_set(TN_EINTERNAL, "thrift writer: nesting deeper than 64");
        return;
    }
    w->depth++;
    w->last_id[w->depth] = 0;
}

void pq_thrift_write_struct_end(pq_thrift_writer *w) {
    uint8_t stop = 0;
    put(w, &stop, 1);
    if (w->depth > 0) w->depth--;
}

void pq_thrift_write_field(pq_thrift_writer *w, int16_t id, int type) {
    if (w->rc) return;
    int delta = (int)id - (int)w->last_id[w->depth];
    if (delta > 0 && delta <= 15) {
        uint8_t b = (uint8_t)((delta << 4) | type);
        put(w, &b, 1);
    } else {
        uint8_t b = (uint8_t)type;
        put(w, &b, 1);
        pq_thrift_write_i32(w, id);
    }
    w->last_id[w->depth] = id;
}

void pq_thrift_write_bool_field(pq_thrift_writer *w, int16_t id, bool value) {
    pq_thrift_write_field(w, id, value ? PQ_TT_BOOL_TRUE : PQ_TT_BOOL_FALSE);
}

void pq_thrift_write_list_begin(pq_thrift_writer *w, int elem_type, uint32_t size) {
    if (size < 15) {
        uint8_t b = (uint8_t)((size << 4) | (uint32_t)elem_type);
        put(w, &b, 1);
    } else {
        uint8_t b = (uint8_t)(0xf0 | elem_type);
        put(w, &b, 1);
        pq_thrift_write_uvarint(w, size);
    }
}

void pq_thrift_write_bool_elem(pq_thrift_writer *w, bool v) {
    uint8_t b = v ? 1 : 2;
    put(w, &b, 1);
}
