/*
 * tests/fuzz/fuzz_sql_parser.c: libFuzzer target for the SQL lexer and parser (sql/parse.h) on
 * arbitrary bytes. Whatever parses is dumped (the printer must accept every tree the parser
 * builds) and parsed again from the same bytes (the dump must not change). Errors are expected;
 * crashes, leaks, stack overflows and malformed error messages are bugs.
 */
#include <stdlib.h>
#include <string.h>

#include "sql/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 1 << 20) return 0;
    /* Copy into an exact-size heap block so ASan catches any read past the end. */
    char *sql = malloc(size ? size : 1);
    if (sql == NULL) return 0;
    if (size) memcpy(sql, data, size);
    tn_arena *arena = tn_arena_create(0);
    tn_buf a = TN_BUF_INIT, b = TN_BUF_INIT;
    if (arena == NULL) goto cleanup;

    tn_sql_stmt_list list;
    int rc = tn_sql_parse_n(arena, sql, size, &list);
    if (rc == 0) {
        if (tn_sql_print_stmts(&a, &list) != 0) goto cleanup;
        tn_arena_reset(arena);
        if (tn_sql_parse_n(arena, sql, size, &list) != 0) __builtin_trap();
        if (tn_sql_print_stmts(&b, &list) != 0) goto cleanup;
        if (a.len != b.len || (a.len && memcmp(a.data, b.data, a.len) != 0)) __builtin_trap();
    } else if (rc == TN_ESYNTAX) {
        /* "syntax error at line L, column C: ...\n<line>\n<caret>" */
        const char *msg = tn_error_message();
        const char *l2 = strchr(msg, '\n');
        if (strncmp(msg, "syntax error at line ", 21) != 0 || !l2 || !strchr(l2 + 1, '\n')) __builtin_trap();
        if (tn_sql_last_error_pos().line == 0) __builtin_trap();
    } else if (rc != TN_ENOMEM && rc != TN_ELIMIT) {
        __builtin_trap();
    }
cleanup:
    tn_buf_free(&a);
    tn_buf_free(&b);
    tn_arena_destroy(arena);
    free(sql);
    return 0;
}
