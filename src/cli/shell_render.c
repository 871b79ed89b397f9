/*
 * cli/shell_render.c: how the shell prints a result, per .mode: table (ASCII, with the column
 * types and a row count, tarn's default on a terminal), box (the same drawn with Unicode box
 * characters), markdown, csv (RFC 4180), tabs, list (.separator), line (one "name = value" per
 * column), json (an array) and jsonlines (one object per line). Widths are display widths
 * (wcwidth: CJK and emoji take two columns, combining marks none); .width fixes them. Text
 * modes stream rows as they come; the aligned modes keep the first MAX_TABLE_ROWS rows.
 */
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "cli/shell.h"
#include "text/text.h"

static const char *const mode_names[] = {"table", "box", "csv", "json", "jsonlines", "line",
                                         "list", "markdown", "tabs"};

const char *sh_mode_name(sh_mode m) { return mode_names[m]; }

bool sh_mode_parse(const char *name, sh_mode *out) {
    for (size_t i = 0; i < sizeof mode_names / sizeof mode_names[0]; i++)
        if (strcmp(name, mode_names[i]) == 0) { *out = (sh_mode)i; return true; }
    if (strcmp(name, "duckbox") == 0) { *out = MODE_BOX; return true; }
    if (strcmp(name, "ndjson") == 0) { *out = MODE_JSONLINES; return true; }
    if (strcmp(name, "tab") == 0) { *out = MODE_TABS; return true; }
    return false;
}

/* Decodes one code point at s[0, n) (an ill-formed byte is U+FFFD of length 1). */
static uint32_t decode(const unsigned char *s, size_t n, size_t *len) {
    unsigned c = s[0];
    size_t k = c < 0x80 ? 1 : c >= 0xC2 && c < 0xE0 ? 2 : c >= 0xE0 && c < 0xF0 ? 3 : c >= 0xF0 && c < 0xF5 ? 4 : 0;
    if (k == 0 || k > n) { *len = 1; return c < 0x80 ? c : 0xFFFD; }
    if (k == 1) { *len = 1; return c; }
    uint32_t cp = c & (0x7F >> k);
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xC0) != 0x80) { *len = 1; return 0xFFFD; }
        cp = cp << 6 | (s[i] & 0x3F);
    }
    *len = k;
    return cp;
}

static int cp_width(uint32_t cp) {
    int w = wcwidth((wchar_t)cp);
    return w < 0 ? 1 : w;
}

size_t sh_display_width(const char *s, size_t n) {
    size_t w = 0;
    for (size_t i = 0; i < n;) {
        if ((unsigned char)s[i] < 0x80) { w++; i++; continue; }
        size_t k;
        uint32_t cp = decode((const unsigned char *)s + i, n - i, &k);
        w += (size_t)cp_width(cp);
        i += k;
    }
    return w;
}

/* The longest prefix of s whose width is <= max (bytes). */
static size_t prefix_for_width(const char *s, size_t n, size_t max, size_t *width) {
    size_t w = 0, i = 0;
    while (i < n) {
        size_t k;
        uint32_t cp = decode((const unsigned char *)s + i, n - i, &k);
        size_t cw = (size_t)cp_width(cp);
        if (w + cw > max) break;
        w += cw;
        i += k;
    }
    while (i < n) {                 /* keep combining marks with their base */
        size_t k;
        uint32_t cp = decode((const unsigned char *)s + i, n - i, &k);
        if (cp_width(cp) != 0) break;
        i += k;
    }
    *width = w;
    return i;
}

static bool is_null(const tn_vector *v, uint32_t i) {
    return v->type.id == TN_TYPE_NULL || !tn_vector_is_valid(v, i);
}

/* A cell's text as DuckDB's shell prints it: tn_value_format (the ::VARCHAR spelling), except
 * that a NaN prints as "nan" whatever its sign bit ("-nan" is only CAST's spelling). */
static int format_cell(tn_buf *cell, const tn_vector *v, uint32_t i) {
    int f = tn_value_format(cell, v, i);
    if (f >= 0 && (v->type.id == TN_TYPE_DOUBLE || v->type.id == TN_TYPE_FLOAT) && cell->len == 4 &&
        memcmp(cell->data, "-nan", 4) == 0) {
        memmove(cell->data, cell->data + 1, 3);
        cell->len = 3;
        cell->data[3] = 0;
    }
    return f;
}

/* The text of a value (NULL: nullv). */
static int cell_text(tn_buf *b, const tn_vector *v, uint32_t i, const char *nullv) {
    tn_buf_clear(b);
    if (is_null(v, i)) return tn_buf_append(b, nullv, strlen(nullv));
    int rc = format_cell(b, v, i);
    return rc < 0 ? rc : 0;
}

static const char *nullv_for(const shell *sh, const char *dflt) { return sh->nullvalue ? sh->nullvalue : dflt; }

static void flush_buf(shell *sh, tn_buf *b, bool force) {
    if (b->len && (force || b->len > (1 << 16))) {
        fwrite(b->data, 1, b->len, sh->out);
        tn_buf_clear(b);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Streaming text modes.
 */
static int render_delimited(shell *sh, tn_sql_result *r, char sep, bool csv, const char *seps) {
    tn_buf b = TN_BUF_INIT, cell = TN_BUF_INIT;
    uint32_t nc = tn_sql_result_ncols(r);
    size_t seplen = seps ? strlen(seps) : 1;
    int rc = 0;
#define SEP() (seps ? tn_buf_append(&b, seps, seplen) : tn_buf_append_byte(&b, (uint8_t)sep))
    if (sh->headers) {
        for (uint32_t c = 0; c < nc && !rc; c++) {
            const char *n = tn_sql_result_name(r, c);
            if (c) rc = SEP();
            if (!rc) rc = csv ? tn_csv_append_field(&b, n, strlen(n), sep, '"') : tn_buf_append(&b, n, strlen(n));
        }
        if (!rc) rc = tn_buf_append_byte(&b, '\n');
    }
    const char *nullv = nullv_for(sh, "");
    const tn_chunk *ch = NULL;
    while (!rc && !(rc = tn_sql_result_fetch(r, &ch)) && ch) {
        for (uint32_t i = 0; i < ch->count && !rc; i++) {
            for (uint32_t c = 0; c < nc && !rc; c++) {
                if (c) rc = SEP();
                const tn_vector *v = &ch->cols[c];
                if (rc) break;
                if (csv && is_null(v, i) && !sh->nullvalue) continue;     /* NULL: empty, unquoted */
                rc = cell_text(&cell, v, i, nullv);
                if (rc) break;
                const char *s = cell.data ? (const char *)cell.data : "";
                rc = csv ? tn_csv_append_field(&b, s, cell.len, sep, '"') : tn_buf_append(&b, s, cell.len);
            }
            if (!rc) rc = tn_buf_append_byte(&b, '\n');
            flush_buf(sh, &b, false);
        }
    }
#undef SEP
    flush_buf(sh, &b, true);            /* the rows before an error too */
    tn_buf_free(&cell);
    tn_buf_free(&b);
    return rc;
}

static int json_value(tn_buf *b, tn_buf *cell, const tn_vector *v, uint32_t i);

/* LIST as a JSON array, STRUCT as an object, MAP as an object keyed by the keys' text (as
 * DuckDB's to_json). */
static int json_nested(tn_buf *b, tn_buf *cell, const tn_vector *v, uint32_t i) {
    int rc = 0;
    if (v->type.id == TN_TYPE_STRUCT) {
        rc = tn_buf_append_byte(b, '{');
        for (uint32_t f = 0; !rc && f < v->type.nested->nchildren; f++) {
            const char *name = v->type.nested->names[f];
            if (f) rc = tn_buf_append_byte(b, ',');
            if (!rc) rc = tn_json_append_string(b, name, strlen(name));
            if (!rc) rc = tn_buf_append_byte(b, ':');
            if (!rc) rc = json_value(b, cell, &v->children[f], i);
        }
        return rc ? rc : tn_buf_append_byte(b, '}');
    }
    tn_list_entry e = ((const tn_list_entry *)v->data)[i];
    bool map = v->type.id == TN_TYPE_MAP;
    rc = tn_buf_append_byte(b, map ? '{' : '[');
    for (uint32_t k = 0; !rc && k < e.length; k++) {
        if (k) rc = tn_buf_append_byte(b, ',');
        if (rc) break;
        if (!map) {
            rc = json_value(b, cell, &v->children[0], e.offset + k);
            continue;
        }
        const tn_vector *keys = &v->children[0].children[0];
        tn_buf_clear(cell);
        rc = tn_value_format(cell, keys, e.offset + k);
        if (rc < 0) break;
        rc = tn_json_append_string(b, cell->data ? (const char *)cell->data : "", cell->len);
        if (!rc) rc = tn_buf_append_byte(b, ':');
        if (!rc) rc = json_value(b, cell, &v->children[0].children[1], e.offset + k);
    }
    return rc ? rc : tn_buf_append_byte(b, map ? '}' : ']');
}

static int json_value(tn_buf *b, tn_buf *cell, const tn_vector *v, uint32_t i) {
    if (is_null(v, i)) return tn_buf_printf(b, "null");
    if (tn_type_is_nested(v->type)) return json_nested(b, cell, v, i);
    tn_buf_clear(cell);
    int f = format_cell(cell, v, i);
    if (f < 0) return f;
    const char *s = cell->data ? (const char *)cell->data : "";
    /* JSON has no NaN or infinity: those print as the strings "nan", "inf", "-inf" */
    bool bare = v->type.id == TN_TYPE_BOOLEAN ||
                (tn_type_is_numeric(v->type) && !(cell->len == 3 && (!memcmp(s, "nan", 3) || !memcmp(s, "inf", 3))) &&
                 !(cell->len == 4 && !memcmp(s, "-inf", 4)));
    return bare ? tn_buf_append(b, s, cell->len) : tn_json_append_string(b, s, cell->len);
}

static int render_json(shell *sh, tn_sql_result *r, bool lines) {
    tn_buf b = TN_BUF_INIT, cell = TN_BUF_INIT;
    uint32_t nc = tn_sql_result_ncols(r);
    int rc = lines ? 0 : tn_buf_append_byte(&b, '[');
    bool first = true;
    const tn_chunk *ch = NULL;
    while (!rc && !(rc = tn_sql_result_fetch(r, &ch)) && ch) {
        for (uint32_t i = 0; i < ch->count && !rc; i++) {
            rc = tn_buf_printf(&b, "%s{", lines || first ? "" : ",\n");
            first = false;
            for (uint32_t c = 0; c < nc && !rc; c++) {
                const char *n = tn_sql_result_name(r, c);
                if (c) rc = tn_buf_append_byte(&b, ',');
                if (!rc) rc = tn_json_append_string(&b, n, strlen(n));
                if (!rc) rc = tn_buf_append_byte(&b, ':');
                if (!rc) rc = json_value(&b, &cell, &ch->cols[c], i);
            }
            if (!rc) rc = tn_buf_append(&b, lines ? "}\n" : "}", lines ? 2 : 1);
            flush_buf(sh, &b, false);
        }
    }
    if (!rc && !lines) rc = tn_buf_printf(&b, "]\n");
    flush_buf(sh, &b, true);
    tn_buf_free(&cell);
    tn_buf_free(&b);
    return rc;
}

static int render_line(shell *sh, tn_sql_result *r) {
    tn_buf b = TN_BUF_INIT, cell = TN_BUF_INIT;
    uint32_t nc = tn_sql_result_ncols(r);
    size_t nw = 0;
    for (uint32_t c = 0; c < nc; c++) {
        const char *n = tn_sql_result_name(r, c);
        size_t w = sh_display_width(n, strlen(n));
        if (w > nw) nw = w;
    }
    const char *nullv = nullv_for(sh, "NULL");
    int rc = 0;
    bool first = true;
    const tn_chunk *ch = NULL;
    while (!rc && !(rc = tn_sql_result_fetch(r, &ch)) && ch) {
        for (uint32_t i = 0; i < ch->count && !rc; i++) {
            if (!first) rc = tn_buf_append_byte(&b, '\n');
            first = false;
            for (uint32_t c = 0; c < nc && !rc; c++) {
                const char *n = tn_sql_result_name(r, c);
                rc = cell_text(&cell, &ch->cols[c], i, nullv);
                if (!rc) rc = tn_buf_printf(&b, "%*s%s = %.*s\n", (int)(nw - sh_display_width(n, strlen(n))), "",
                                            n, (int)cell.len, cell.data ? (const char *)cell.data : "");
            }
            flush_buf(sh, &b, false);
        }
    }
    flush_buf(sh, &b, true);
    tn_buf_free(&cell);
    tn_buf_free(&b);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Aligned modes: table, box, markdown.
 */
#define MAX_CELL 48
#define MAX_TABLE_ROWS 10000

typedef struct cellv {
    char *s;
    size_t len, width;
} cellv;

static void put_n(tn_buf *b, const char *s, size_t times) {
    for (size_t i = 0; i < times; i++) tn_buf_append(b, s, strlen(s));
}

/* One aligned cell: s padded (or cut with an ellipsis) to width w. */
static void put_cell(tn_buf *b, const char *s, size_t len, size_t sw, size_t w, bool right) {
    if (sw > w) {
        size_t cw;
        size_t cut = prefix_for_width(s, len, w ? w - 1 : 0, &cw);
        tn_buf_append(b, s, cut);
        if (w) tn_buf_append(b, "\xe2\x80\xa6", 3);
        put_n(b, " ", w - (w ? cw + 1 : 0));
        return;
    }
    if (right) put_n(b, " ", w - sw);
    tn_buf_append(b, s, len);
    if (!right) put_n(b, " ", w - sw);
}

static int render_aligned(shell *sh, tn_sql_result *r) {
    uint32_t nc = tn_sql_result_ncols(r);
    bool box = sh->mode == MODE_BOX, md = sh->mode == MODE_MARKDOWN;
    bool types = !md;
    size_t *w = calloc(nc + 1, sizeof *w);
    bool *right = calloc(nc + 1, sizeof *right);
    char (*tnames)[64] = calloc(nc + 1, sizeof *tnames);
    size_t cap = 0, nrows_kept = 0;
    cellv *cells = NULL;
    if (!w || !right || !tnames) { free(w); free(right); free(tnames); return TN_ENOMEM; }
    for (uint32_t c = 0; c < nc; c++) {
        const char *n = tn_sql_result_name(r, c);
        tn_type_format(tn_sql_result_type(r, c), tnames[c], sizeof tnames[c]);
        right[c] = tn_type_is_numeric(tn_sql_result_type(r, c));
        if (sh->headers) {
            w[c] = sh_display_width(n, strlen(n));
            if (types && strlen(tnames[c]) > w[c]) w[c] = strlen(tnames[c]);
        }
        if (md && w[c] < 3) w[c] = 3;
    }
    const char *nullv = nullv_for(sh, "NULL");
    tn_buf cell = TN_BUF_INIT;
    int64_t nrows = 0;
    const tn_chunk *ch = NULL;
    int rc = 0;
    while (!rc && !(rc = tn_sql_result_fetch(r, &ch)) && ch) {
        nrows += ch->count;
        for (uint32_t i = 0; i < ch->count && nrows_kept < MAX_TABLE_ROWS && !rc; i++, nrows_kept++) {
            if ((nrows_kept + 1) * nc > cap) {
                size_t ncap = cap ? cap * 2 : (size_t)nc * 64;
                cellv *nn = realloc(cells, ncap * sizeof *nn);
                if (!nn) { rc = TN_ENOMEM; break; }
                memset(nn + cap, 0, (ncap - cap) * sizeof *nn);
                cells = nn;
                cap = ncap;
            }
            for (uint32_t c = 0; c < nc && !rc; c++) {
                rc = cell_text(&cell, &ch->cols[c], i, nullv);
                if (rc) break;
                cellv *cv = &cells[nrows_kept * nc + c];
                cv->s = malloc(cell.len + 1);
                if (!cv->s) { rc = TN_ENOMEM; break; }
                if (cell.len) memcpy(cv->s, cell.data, cell.len);
                cv->s[cell.len] = 0;
                cv->len = cell.len;
                for (size_t k = 0; k < cv->len; k++)
                    if (cv->s[k] == '\n' || cv->s[k] == '\r' || cv->s[k] == '\t') cv->s[k] = ' ';
                if (md)
                    for (size_t k = 0; k < cv->len; k++)
                        if (cv->s[k] == '|') cv->s[k] = '/';
                cv->width = sh_display_width(cv->s, cv->len);
                size_t shown = cv->width > MAX_CELL ? MAX_CELL : cv->width;
                if (shown > w[c]) w[c] = shown;
            }
        }
    }
    tn_buf_free(&cell);
    for (uint32_t c = 0; c < nc && (int)c < sh->nwidths; c++)
        if (sh->widths[c]) {
            w[c] = (size_t)abs(sh->widths[c]);
            right[c] = sh->widths[c] < 0;
        }
    if (!rc) {
        tn_buf o = TN_BUF_INIT;
        const char *h = box ? "\xe2\x94\x80" : "-";
        /* rules: top, middle, bottom */
#define RULE(l, m, rr) do { tn_buf_append(&o, l, strlen(l)); \
        for (uint32_t c = 0; c < nc; c++) { if (c) tn_buf_append(&o, m, strlen(m)); put_n(&o, h, w[c] + 2); } \
        tn_buf_append(&o, rr, strlen(rr)); tn_buf_append_byte(&o, '\n'); } while (0)
        const char *v = box ? "\xe2\x94\x82" : "|";
        if (box) RULE("\xe2\x94\x8c", "\xe2\x94\xac", "\xe2\x94\x90");
        else if (!md) RULE("+", "+", "+");
        if (sh->headers) {
            for (uint32_t c = 0; c < nc; c++) {
                const char *n = tn_sql_result_name(r, c);
                tn_buf_append(&o, v, strlen(v));
                tn_buf_append_byte(&o, ' ');
                put_cell(&o, n, strlen(n), sh_display_width(n, strlen(n)), w[c], false);
                tn_buf_append_byte(&o, ' ');
            }
            tn_buf_append(&o, v, strlen(v));
            tn_buf_append_byte(&o, '\n');
            if (types) {
                for (uint32_t c = 0; c < nc; c++) {
                    tn_buf_append(&o, v, strlen(v));
                    tn_buf_append_byte(&o, ' ');
                    put_cell(&o, tnames[c], strlen(tnames[c]), strlen(tnames[c]), w[c], false);
                    tn_buf_append_byte(&o, ' ');
                }
                tn_buf_append(&o, v, strlen(v));
                tn_buf_append_byte(&o, '\n');
            }
            if (box) RULE("\xe2\x94\x9c", "\xe2\x94\xbc", "\xe2\x94\xa4");
            else if (md) {
                for (uint32_t c = 0; c < nc; c++) {
                    tn_buf_append(&o, "| ", 2);
                    put_n(&o, "-", w[c] - (right[c] ? 1 : 0));
                    if (right[c]) tn_buf_append_byte(&o, ':');
                    tn_buf_append_byte(&o, ' ');
                }
                tn_buf_append(&o, "|\n", 2);
            } else RULE("+", "+", "+");
        }
        for (size_t i = 0; i < nrows_kept; i++) {
            for (uint32_t c = 0; c < nc; c++) {
                cellv *cv = &cells[i * nc + c];
                tn_buf_append(&o, v, strlen(v));
                tn_buf_append_byte(&o, ' ');
                put_cell(&o, cv->s, cv->len, cv->width, w[c], right[c]);
                tn_buf_append_byte(&o, ' ');
            }
            tn_buf_append(&o, v, strlen(v));
            tn_buf_append_byte(&o, '\n');
            flush_buf(sh, &o, false);
        }
        if (box) RULE("\xe2\x94\x94", "\xe2\x94\xb4", "\xe2\x94\x98");
        else if (!md) RULE("+", "+", "+");
#undef RULE
        if (!md) {
            tn_buf_printf(&o, "%lld row%s", (long long)nrows, nrows == 1 ? "" : "s");
            if ((int64_t)nrows_kept < nrows) tn_buf_printf(&o, " (%lld shown)", (long long)nrows_kept);
            tn_buf_append_byte(&o, '\n');
        }
        flush_buf(sh, &o, true);
        tn_buf_free(&o);
    }
    for (size_t i = 0; i < nrows_kept * nc; i++) free(cells[i].s);
    free(cells);
    free(w);
    free(right);
    free(tnames);
    return rc;
}

int sh_render(shell *sh, tn_sql_result *r) {
    switch (sh->mode) {
    case MODE_CSV: return render_delimited(sh, r, ',', true, NULL);
    case MODE_TABS: return render_delimited(sh, r, '\t', false, NULL);
    case MODE_LIST: return render_delimited(sh, r, '|', false, sh->separator);
    case MODE_JSON: return render_json(sh, r, false);
    case MODE_JSONLINES: return render_json(sh, r, true);
    case MODE_LINE: return render_line(sh, r);
    default: return render_aligned(sh, r);
    }
}
