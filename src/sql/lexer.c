/*
 * sql/lexer.c: SQL text -> tokens (identifiers folded, strings and blobs decoded, numbers kept
 * as text, comments dropped, hint comments kept as spans), and the formatting of syntax errors
 * with the offending source line and a caret. Owns no grammar: that is parser*.c.
 */
#include "sql/parserInt.h"

#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * Syntax errors.
 */
static _Thread_local tn_sql_pos g_last_error_pos;

tn_sql_pos tn_sql_last_error_pos(void) { return g_last_error_pos; }

#define ERR_WINDOW 100    /* characters of the source line shown around the error */

int tn_sql_syntax_error(const char *src, size_t src_len, tn_sql_pos pos, const char *fmt, ...) {
    char msg[512];
    char line[ERR_WINDOW * 4 + 8];
    char caret[ERR_WINDOW + 8];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    g_last_error_pos = pos;

    size_t off = pos.offset <= src_len ? pos.offset : src_len;
    size_t ls = off, le = off;
    while (ls > 0 && src[ls - 1] != '\n') ls--;
    while (le < src_len && src[le] != '\n') le++;
    /* Character index of the caret within the line (0-based), then the window start. */
    uint32_t caret_ch = pos.col > 0 ? pos.col - 1 : 0;
    uint32_t first_ch = caret_ch > ERR_WINDOW - 30 ? caret_ch - (ERR_WINDOW - 40) : 0;
    size_t ln = 0, cn = 0;
    if (first_ch > 0) {
        memcpy(line, "...", 3);
        memcpy(caret, "   ", 3);
        ln = cn = 3;
    }
    uint32_t ch = 0;       /* index of the character the byte at b belongs to */
    for (size_t b = ls; b < le; b++) {
        unsigned char c = (unsigned char)src[b];
        bool cont = (c & 0xC0) == 0x80;
        if (!cont && b != ls) ch++;
        if (!cont && ch >= first_ch + ERR_WINDOW) break;
        if (ch < first_ch) continue;
        if (ln + 1 >= sizeof line) break;
        if (c == '\r' && b + 1 == le) break;
        line[ln++] = (c == '\t' || c >= 0x20) && c != 0x7f ? (char)c : ' ';
        if (!cont && ch < caret_ch && cn + 2 < sizeof caret) caret[cn++] = c == '\t' ? '\t' : ' ';
    }
    line[ln] = '\0';
    caret[cn++] = '^';
    caret[cn] = '\0';
    return tn_error_set(TN_ESYNTAX, "syntax error at line %u, column %u: %s\n%s\n%s", pos.line,
                        pos.col, msg, line, caret);
}

/* ---------------------------------------------------------------------------------------------
 * The lexer.
 */
typedef struct lexer {
    tn_arena *arena;
    const char *src;
    size_t src_len;
    uint32_t i, end;
    tn_sql_pos pos;          /* position of src[i] */
    tn_sql_token *toks;
    int n, cap;
    bool keep_hints;
    tn_sql_hint_span *pending_hints, *pending_tail;
} lexer;

static void adv(lexer *lx, uint32_t n) {
    for (uint32_t k = 0; k < n && lx->i < lx->end; k++) {
        unsigned char c = (unsigned char)lx->src[lx->i++];
        lx->pos.offset++;
        if (c == '\n') {
            lx->pos.line++;
            lx->pos.col = 1;
        } else if ((c & 0xC0) != 0x80) {
            lx->pos.col++;
        }
    }
}

static int at(const lexer *lx, uint32_t k) {
    return lx->i + k < lx->end ? (unsigned char)lx->src[lx->i + k] : -1;
}

static tn_sql_token *push_tok(lexer *lx, tn_tok_type type, tn_sql_pos pos, uint32_t len) {
    if (lx->n == lx->cap) {
        int ncap = lx->cap ? lx->cap * 2 : 64;
        tn_sql_token *nt = tn_arena_alloc(lx->arena, (size_t)ncap * sizeof *nt);
        if (!nt) return NULL;
        if (lx->n) memcpy(nt, lx->toks, (size_t)lx->n * sizeof *nt);
        lx->toks = nt;
        lx->cap = ncap;
    }
    tn_sql_token *t = &lx->toks[lx->n++];
    memset(t, 0, sizeof *t);
    t->type = type;
    t->pos = pos;
    t->len = len;
    t->hints = lx->pending_hints;
    lx->pending_hints = lx->pending_tail = NULL;
    return t;
}

static bool is_ident_start(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}
static bool is_ident_char(int c) { return is_ident_start(c) || (c >= '0' && c <= '9') || c == '$'; }
static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static int hex_val(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int lex_error(lexer *lx, tn_sql_pos pos, const char *what) {
    return tn_sql_syntax_error(lx->src, lx->src_len, pos, "%s", what);
}

/* A quoted run starting at lx->i (the opening quote q); doubled q is an escaped q.
 * Decoded into the arena; on return lx->i is past the closing quote. */
static int lex_quoted(lexer *lx, char q, const char **out, size_t *out_len, const char *unterminated) {
    tn_sql_pos start = lx->pos;
    uint32_t j = lx->i + 1;
    size_t n = 0;
    for (;;) {
        if (j >= lx->end) return lex_error(lx, start, unterminated);
        if (lx->src[j] == q) {
            if (j + 1 < lx->end && lx->src[j + 1] == q) { n++; j += 2; continue; }
            break;
        }
        n++;
        j++;
    }
    char *s = tn_arena_alloc(lx->arena, n + 1);
    if (!s) return TN_ENOMEM;
    size_t k = 0;
    for (uint32_t m = lx->i + 1; m < j; m++) {
        s[k++] = lx->src[m];
        if (lx->src[m] == q) m++;
    }
    s[k] = '\0';
    *out = s;
    *out_len = k;
    adv(lx, j + 1 - lx->i);
    return 0;
}

/* A comment starting at lx->i ("--" or slash-star, which nests). Hint comments are recorded. */
static int lex_comment(lexer *lx) {
    tn_sql_pos start = lx->pos;
    if (at(lx, 0) == '-') {
        while (lx->i < lx->end && lx->src[lx->i] != '\n') adv(lx, 1);
        return 0;
    }
    bool hint = at(lx, 2) == '+';
    adv(lx, hint ? 3 : 2);
    uint32_t body = lx->i;
    tn_sql_pos body_pos = lx->pos;
    int depth = 1;
    while (depth > 0) {
        if (lx->i >= lx->end) return lex_error(lx, start, "unterminated comment");
        if (at(lx, 0) == '*' && at(lx, 1) == '/') {
            depth--;
            if (depth == 0) break;
            adv(lx, 2);
        } else if (at(lx, 0) == '/' && at(lx, 1) == '*') {
            depth++;
            adv(lx, 2);
        } else {
            adv(lx, 1);
        }
    }
    uint32_t body_end = lx->i;
    adv(lx, 2);
    if (hint && lx->keep_hints) {
        tn_sql_hint_span *h = tn_arena_calloc(lx->arena, sizeof *h);
        if (!h) return TN_ENOMEM;
        h->start = body;
        h->end = body_end;
        h->pos = body_pos;
        if (lx->pending_tail) lx->pending_tail->next = h;
        else lx->pending_hints = h;
        lx->pending_tail = h;
    }
    return 0;
}

static int lex_number(lexer *lx) {
    tn_sql_pos start = lx->pos;
    uint32_t j = lx->i;
    tn_tok_type type = TK_INTEGER;
    while (j < lx->end && is_digit((unsigned char)lx->src[j])) j++;
    if (j < lx->end && lx->src[j] == '.' && !(j + 1 < lx->end && lx->src[j + 1] == '.')) {
        type = TK_DECIMAL;
        j++;
        while (j < lx->end && is_digit((unsigned char)lx->src[j])) j++;
    }
    if (j < lx->end && (lx->src[j] == 'e' || lx->src[j] == 'E')) {
        uint32_t k = j + 1;
        if (k < lx->end && (lx->src[k] == '+' || lx->src[k] == '-')) k++;
        if (k < lx->end && is_digit((unsigned char)lx->src[k])) {
            while (k < lx->end && is_digit((unsigned char)lx->src[k])) k++;
            j = k;
            type = TK_FLOAT;
        }
    }
    uint32_t len = j - lx->i;
    tn_sql_token *t = push_tok(lx, type, start, len);
    char *s = t ? tn_arena_strndup(lx->arena, lx->src + lx->i, len) : NULL;
    if (!s) return TN_ENOMEM;
    t->text = s;
    t->text_len = len;
    adv(lx, len);
    return 0;
}

static int lex_blob(lexer *lx) {
    tn_sql_pos start = lx->pos;
    uint32_t i0 = lx->i;
    adv(lx, 1);                                   /* the X */
    const char *raw;
    size_t raw_len;
    int rc = lex_quoted(lx, '\'', &raw, &raw_len, "unterminated string literal");
    if (rc) return rc;
    if (raw_len % 2) return lex_error(lx, start, "hexadecimal string has an odd number of digits");
    char *bytes = tn_arena_alloc(lx->arena, raw_len / 2 + 1);
    if (!bytes) return TN_ENOMEM;
    for (size_t k = 0; k < raw_len; k += 2) {
        int hi = hex_val((unsigned char)raw[k]), lo = hex_val((unsigned char)raw[k + 1]);
        if (hi < 0 || lo < 0) return lex_error(lx, start, "invalid hexadecimal digit in X'...' string");
        bytes[k / 2] = (char)(hi * 16 + lo);
    }
    bytes[raw_len / 2] = '\0';
    tn_sql_token *t = push_tok(lx, TK_BLOB, start, lx->i - i0);
    if (!t) return TN_ENOMEM;
    t->text = bytes;
    t->text_len = raw_len / 2;
    return 0;
}

/* E'...': PostgreSQL's escape string: \n \t \r \b \f \\ \' \ooo (octal) \xHH, '' a quote. */
static int lex_escape_string(lexer *lx) {
    tn_sql_pos start = lx->pos;
    uint32_t i0 = lx->i, j = lx->i + 2;
    char *out = tn_arena_alloc(lx->arena, lx->end - lx->i + 1);
    if (!out) return TN_ENOMEM;
    size_t n = 0;
    for (;;) {
        if (j >= lx->end) return lex_error(lx, start, "unterminated string literal");
        char ch = lx->src[j];
        if (ch == '\'') {
            if (j + 1 < lx->end && lx->src[j + 1] == '\'') { out[n++] = '\''; j += 2; continue; }
            j++;
            break;
        }
        if (ch != '\\' || j + 1 >= lx->end) { out[n++] = ch; j++; continue; }
        char e = lx->src[j + 1];
        j += 2;
        switch (e) {
        case 'n': out[n++] = '\n'; break;
        case 't': out[n++] = '\t'; break;
        case 'r': out[n++] = '\r'; break;
        case 'b': out[n++] = '\b'; break;
        case 'f': out[n++] = '\f'; break;
        case 'x': {
            int v = 0, k = 0;
            while (k < 2 && j < lx->end && hex_val((unsigned char)lx->src[j]) >= 0) v = v * 16 + hex_val((unsigned char)lx->src[j++]), k++;
            if (!k) return lex_error(lx, start, "invalid escape \\x without hexadecimal digits");
            out[n++] = (char)v;
            break;
        }
        default:
            if (e >= '0' && e <= '7') {
                int v = e - '0', k = 1;
                while (k < 3 && j < lx->end && lx->src[j] >= '0' && lx->src[j] <= '7') v = v * 8 + (lx->src[j++] - '0'), k++;
                out[n++] = (char)v;
            } else {
                out[n++] = e;          /* \\ \' and any other character as itself */
            }
        }
    }
    out[n] = '\0';
    tn_sql_token *t = push_tok(lx, TK_STRING, start, j - i0);
    if (!t) return TN_ENOMEM;
    t->text = out;
    t->text_len = n;
    adv(lx, j - i0);
    return 0;
}

static int lex_one(lexer *lx) {
    int c = at(lx, 0), c1 = at(lx, 1);
    tn_sql_pos start = lx->pos;
    uint32_t i0 = lx->i;
    if ((c == 'x' || c == 'X') && c1 == '\'') return lex_blob(lx);
    if ((c == 'e' || c == 'E') && c1 == '\'') return lex_escape_string(lx);
    if (is_ident_start(c)) {
        uint32_t j = lx->i;
        while (j < lx->end && is_ident_char((unsigned char)lx->src[j])) j++;
        uint32_t len = j - lx->i;
        char *s = tn_arena_alloc(lx->arena, len + 1);
        if (!s) return TN_ENOMEM;
        for (uint32_t k = 0; k < len; k++) {
            char ch = lx->src[lx->i + k];
            s[k] = ch >= 'A' && ch <= 'Z' ? (char)(ch + 'a' - 'A') : ch;
        }
        s[len] = '\0';
        tn_sql_token *t = push_tok(lx, TK_IDENT, start, len);
        if (!t) return TN_ENOMEM;
        t->text = s;
        t->text_len = len;
        t->kw = tn_sql_keyword_lookup(s, len);
        adv(lx, len);
        return 0;
    }
    if (is_digit(c) || (c == '.' && is_digit(c1))) return lex_number(lx);
    if (c == '\'' || c == '"' || c == '`') {
        const char *s;
        size_t n;
        int rc = lex_quoted(lx, (char)c, &s, &n,
                            c == '\'' ? "unterminated string literal" : "unterminated quoted identifier");
        if (rc) return rc;
        if (c != '\'' && n == 0) return lex_error(lx, start, "zero-length quoted identifier");
        if (c != '\'' && memchr(s, '\0', n)) return lex_error(lx, start, "NUL byte in quoted identifier");
        tn_sql_token *t = push_tok(lx, c == '\'' ? TK_STRING : TK_QIDENT, start, lx->i - i0);
        if (!t) return TN_ENOMEM;
        t->text = s;
        t->text_len = n;
        return 0;
    }
    if (c == '$' && is_digit(c1)) {
        uint32_t j = lx->i + 1;
        int64_t v = 0;
        while (j < lx->end && is_digit((unsigned char)lx->src[j])) {
            v = v * 10 + (lx->src[j] - '0');
            if (v > 65535) return lex_error(lx, start, "parameter number too large");
            j++;
        }
        if (v == 0) return lex_error(lx, start, "parameter numbers start at $1");
        tn_sql_token *t = push_tok(lx, TK_PARAM, start, j - lx->i);
        if (!t) return TN_ENOMEM;
        t->ival = v;
        adv(lx, j - lx->i);
        return 0;
    }
    tn_tok_type type;
    uint32_t len = 2;
    if (c == ':' && c1 == ':') type = TK_CAST;
    else if (c == ':' && c1 == '=') type = TK_ASSIGN;
    else if (c == '=' && c1 == '>') type = TK_ARROW;
    else if (c == '=' && c1 == '=') type = TK_EQEQ;
    else if (c == '|' && c1 == '|') type = TK_CONCAT;
    else if (c == '<' && c1 == '=') type = TK_LE;
    else if (c == '>' && c1 == '=') type = TK_GE;
    else if (c == '<' && c1 == '>') type = TK_NE;
    else if (c == '!' && c1 == '=') type = TK_NE;
    else if (c == '^' && c1 == '@') type = TK_STARTS_WITH;
    else if (c == '~' || (c == '!' && c1 == '~')) {   /* ~ ~* !~ !~* */
        uint32_t j = lx->i + (c == '!' ? 2 : 1);
        bool ci = j < lx->end && lx->src[j] == '*';
        tn_sql_token *t = push_tok(lx, TK_REGEX, start, j - lx->i + (ci ? 1 : 0));
        if (!t) return TN_ENOMEM;
        t->ival = (c == '!' ? 1 : 0) | (ci ? 2 : 0);
        adv(lx, j - lx->i + (ci ? 1 : 0));
        return 0;
    } else {
        len = 1;
        switch (c) {
        case '(': type = TK_LPAREN; break;
        case ')': type = TK_RPAREN; break;
        case '[': type = TK_LBRACKET; break;
        case '{': type = TK_LBRACE; break;
        case '}': type = TK_RBRACE; break;
        case ']': type = TK_RBRACKET; break;
        case ',': type = TK_COMMA; break;
        case ';': type = TK_SEMI; break;
        case '.': type = TK_DOT; break;
        case ':': type = TK_COLON; break;
        case '+': type = TK_PLUS; break;
        case '-': type = TK_MINUS; break;
        case '*': type = TK_STAR; break;
        case '/': type = TK_SLASH; break;
        case '%': type = TK_PERCENT; break;
        case '=': type = TK_EQ; break;
        case '<': type = TK_LT; break;
        case '>': type = TK_GT; break;
        case '?': type = TK_PARAM; break;
        default:
            if (c >= 0x21 && c < 0x7f)
                return tn_sql_syntax_error(lx->src, lx->src_len, start, "unexpected character '%c'", c);
            return tn_sql_syntax_error(lx->src, lx->src_len, start, "unexpected byte 0x%02X", c);
        }
    }
    if (!push_tok(lx, type, start, len)) return TN_ENOMEM;
    adv(lx, len);
    return 0;
}

int tn_sql_lex(tn_arena *arena, const char *src, size_t src_len, uint32_t start, uint32_t end,
               tn_sql_pos pos, bool keep_hints, tn_sql_token **out, int *out_n) {
    lexer lx = {0};
    int rc = 0;
    lx.arena = arena;
    lx.src = src;
    lx.src_len = src_len;
    lx.i = start;
    lx.end = end;
    lx.pos = pos;
    lx.keep_hints = keep_hints;
    while (lx.i < lx.end) {
        int c = at(&lx, 0), c1 = at(&lx, 1);
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            adv(&lx, 1);
            continue;
        }
        if ((c == '-' && c1 == '-') || (c == '/' && c1 == '*')) rc = lex_comment(&lx);
        else rc = lex_one(&lx);
        if (rc) goto cleanup;
    }
    if (!push_tok(&lx, TK_EOF, lx.pos, 0)) {
        rc = TN_ENOMEM;
        goto cleanup;
    }
    *out = lx.toks;
    *out_n = lx.n;
cleanup:
    if (rc == TN_ENOMEM) tn_error_set(TN_ENOMEM, "out of memory while lexing SQL");
    return rc;
}
