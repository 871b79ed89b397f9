/*
 * sql/parse.h: the SQL parser's interface: text -> list of statements (sql/ast.h), plus the
 * deterministic S-expression dump of the tree used by tests and EXPLAIN-style debugging.
 * All tree memory comes from the caller's arena and lives until the arena is reset/destroyed.
 */
#ifndef TN_SQL_PARSE_H
#define TN_SQL_PARSE_H

#include "sql/ast.h"

/*
 * Parse one or more statements separated by ';' (empty statements are skipped). On success
 * returns 0 and fills *out (out->n may be 0 for blank input). On failure returns TN_ESYNTAX
 * (or TN_ENOMEM) with a message of three lines:
 *     syntax error at line 2, column 14: expected ')' after column list, found 'FROM'
 *     <the source line>
 *     <spaces and a '^' under column 14>
 * and *out is left empty. Never crashes on any input; nesting deeper than 1000 levels is
 * "statement nested too deeply".
 */
int tn_sql_parse(tn_arena *arena, const char *sql, tn_sql_stmt_list *out);
/* Same for sql[0, len) that need not be NUL-terminated (NUL bytes are a syntax error). */
int tn_sql_parse_n(tn_arena *arena, const char *sql, size_t len, tn_sql_stmt_list *out);

/*
 * Position of the last syntax error (line/col 1-based; 0 if the last parse error had none,
 * e.g. out of memory). Thread-local, valid after tn_sql_parse* returned TN_ESYNTAX.
 */
tn_sql_pos tn_sql_last_error_pos(void);

/* Whether name must be double-quoted to read back as itself (not [a-z_][a-z0-9_]*, or a
 * keyword that cannot be a column name). */
bool tn_sql_ident_needs_quotes(const char *name);

/*
 * Append a deterministic S-expression of a node to out, e.g.
 *   (select (items (col a) (as (func count *) n)) (from (table t)) (where (> (col a) (int 1))))
 * The format is documented at the top of ast_print.c. Returns 0 or TN_ENOMEM.
 */
int tn_sql_print_stmt(tn_buf *out, const tn_sql_stmt *stmt);
int tn_sql_print_query(tn_buf *out, const tn_sql_query *query);
int tn_sql_print_expr(tn_buf *out, const tn_sql_expr *expr);
/* One line per statement, each ending in '\n'. */
int tn_sql_print_stmts(tn_buf *out, const tn_sql_stmt_list *list);

#endif
