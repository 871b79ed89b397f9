/*
 * tests/fuzz/fuzz_pgwire.c: libFuzzer target for the PostgreSQL frame codec (server/codec.c,
 * types.c, auth.c, commands.c) on arbitrary bytes: the startup packet, a stream of frames
 * each decoded by its type, Bind parameters decoded under every type OID in both formats,
 * binary COPY data (server/copy.c's decoder),
 * SCRAM client messages, and statement splitting / command recognition. Errors are expected;
 * crashes, leaks and reads past a body are bugs (each body is copied to an exact-size block).
 */
#include <stdlib.h>
#include <string.h>

#include "server/pgwireInt.h"

static const uint32_t oids[] = {0, 16, 17, 20, 21, 23, 25, 26, 700, 701, 1043, 1082, 1114, 1184, 1186, 1700, 3802};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1 || size > 1 << 20) return 0;
    uint8_t mode = data[0];
    data++;
    size--;
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) return 0;
    if (size) memcpy(copy, data, size);
    if (mode % 4 == 0) {
        tn_pg_startup st;
        tn_pg_decode_startup(copy, (uint32_t)size, &st);
    } else if (mode % 4 == 1) {
        size_t off = 0;
        while (size - off >= 5) {
            uint8_t type = data[off];
            int32_t len = (int32_t)(((uint32_t)data[off + 1] << 24) | ((uint32_t)data[off + 2] << 16) |
                                    ((uint32_t)data[off + 3] << 8) | data[off + 4]);
            uint32_t n;
            if (tn_pg_frame_check(type, len, 1 << 16, &n)) break;
            off += 5;
            if (n > size - off) break;
            uint8_t *body = malloc(n ? n : 1);
            if (!body) break;
            memcpy(body, data + off, n);
            tn_pg_decode_any(type, body, n);
            free(body);
            off += n;
        }
    } else if (mode % 4 == 2 && (mode & 0x40)) {
        /* binary COPY data, for fields of a few types, handed over in two parts */
        static const tn_type_id ids[] = {TN_TYPE_INTEGER, TN_TYPE_VARCHAR, TN_TYPE_DECIMAL, TN_TYPE_TIMESTAMP_TZ,
                                         TN_TYPE_VARBINARY, TN_TYPE_DOUBLE, TN_TYPE_DATE, TN_TYPE_BOOLEAN};
        tn_type types[3];
        for (uint32_t k = 0; k < 3; k++) {
            types[k] = tn_type_make(ids[(mode + k * 3) % 8]);
            if (types[k].id == TN_TYPE_DECIMAL) types[k] = tn_type_decimal(12, 3);
        }
        tn_pg_copy_binary_check(copy, size, size / 3, types, 1 + (mode >> 7));
        tn_error_clear();
    } else if (mode % 4 == 2) {
        tn_arena *a = tn_arena_create(0);
        tn_value v;
        if (a) tn_pg_decode_param(&v, oids[(mode / 4) % (sizeof oids / sizeof oids[0])], (mode >> 7) & 1, copy,
                                  (int32_t)size, 1, a);
        tn_arena_destroy(a);
    } else {
        tn_pg_scram s;
        tn_buf out = TN_BUF_INIT;
        static const uint8_t salt[16] = {1, 2, 3};
        if (tn_pg_scram_init_salt(&s, "pw", salt, 16, 1) == 0 &&
            tn_pg_scram_first_nonce(&s, copy, (int32_t)(size / 2), "srv", &out) == 0)
            tn_pg_scram_final(&s, copy + size / 2, (int32_t)(size - size / 2), &out);
        tn_buf_free(&out);
        char *text = malloc(size + 1);       /* an --auth-file verifier, NUL-terminated */
        if (text) {
            memcpy(text, copy, size);
            text[size] = 0;
            tn_pg_scram_init_verifier(&s, text);
            free(text);
        }
        size_t pos = 0, st, en;
        while (tn_pg_split_next((const char *)copy, size, &pos, &st, &en)) {
            if (en < st || en > size) __builtin_trap();
            tn_pg_cmd c;
            tn_pg_classify((const char *)copy + st, en - st, &c);
            tn_pg_cmd_free(&c);
        }
    }
    free(copy);
    return 0;
}
