/*
 * sql/keywords.c: the SQL keyword table (spelling and reservation class of every keyword the
 * parser knows, TN_SQL_KEYWORDS in parserInt.h) and the lookup the lexer uses on each unquoted
 * word, and whether a name needs quotes to read back (SHOW CREATE TABLE). Owns nothing else;
 * which words are reserved is decided here and only here.
 */
#include "sql/parserInt.h"

#include <string.h>

typedef struct kw_entry {
    tn_kw id;
    tn_kw_class cls;
} kw_entry;

static const kw_entry g_keywords[] = {
#define TN_KW_ROW(name, cls) {KW_##name, KWC_##cls},
    TN_SQL_KEYWORDS(TN_KW_ROW)
#undef TN_KW_ROW
};

/* Upper-case names, indexed by id - 1. The X-macro list is in alphabetical order, which the
 * binary search relies on (a unit test checks it). */
static const char *const g_names[] = {
#define TN_KW_NAME(name, cls) #name,
    TN_SQL_KEYWORDS(TN_KW_NAME)
#undef TN_KW_NAME
};

#define N_KEYWORDS ((int)(sizeof g_keywords / sizeof g_keywords[0]))

/* Compare the upper-case table name with a lower-case word of len bytes. */
static int cmp_word(const char *upper, const char *word, size_t len) {
    size_t i = 0;
    for (; i < len && upper[i]; i++) {
        int a = (unsigned char)upper[i], b = (unsigned char)word[i];
        if (a >= 'A' && a <= 'Z') a += 'a' - 'A';
        if (a != b) return a - b;
    }
    if (i < len) return -1;            /* table name is a prefix of the word */
    return upper[i] ? 1 : 0;
}

tn_kw tn_sql_keyword_lookup(const char *word, size_t len) {
    if (len == 0 || len > 20) return KW_NONE;
    int lo = 0, hi = N_KEYWORDS - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int c = cmp_word(g_names[mid], word, len);
        if (c == 0) return g_keywords[mid].id;
        if (c < 0) lo = mid + 1;
        else hi = mid - 1;
    }
    return KW_NONE;
}

tn_kw_class tn_sql_keyword_class(tn_kw kw) {
    if (kw <= KW_NONE || kw >= KW_COUNT_) return KWC_UNRESERVED;
    return g_keywords[kw - 1].cls;
}

const char *tn_sql_keyword_name(tn_kw kw) {
    if (kw <= KW_NONE || kw >= KW_COUNT_) return "";
    return g_names[kw - 1];
}

bool tn_sql_ident_needs_quotes(const char *name) {
    size_t n = strlen(name);
    if (n == 0 || (name[0] >= '0' && name[0] <= '9')) return true;
    for (size_t i = 0; i < n; i++)
        if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') || name[i] == '_')) return true;
    tn_kw kw = tn_sql_keyword_lookup(name, n);
    return kw != KW_NONE && tn_sql_keyword_class(kw) != KWC_UNRESERVED;
}
