/*
 * base/error.c: the thread-local error code and message (tn_error_*), their save/restore across
 * threads, the code-name table and the interrupt check. Owns nothing else.
 */
#include "base/base.h"

#include <stdio.h>
#include <string.h>

static _Thread_local int g_code;
static _Thread_local char g_message[1024];
static _Thread_local char g_value[256];
static _Thread_local int g_value_len = -1;   /* -1: none */

int tn_error_setv(int code, const char *fmt, va_list ap) {
    g_code = code;
    g_value_len = -1;
    if (fmt) vsnprintf(g_message, sizeof g_message, fmt, ap);
    else g_message[0] = '\0';
    return code;
}

int tn_error_set(int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    tn_error_setv(code, fmt, ap);
    va_end(ap);
    return code;
}

size_t tn_error_class_len(const char *m) {
    if (!m || !(m[0] >= 'A' && m[0] <= 'Z')) return 0;
    for (size_t i = 0; i < 40 && m[i]; i++) {
        if (strncmp(m + i, "Error: ", 7) == 0) return i > 0 && m[i - 1] != ' ' ? 0 : i + 7;
        char c = m[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == ' ')) return 0;
    }
    return 0;
}

int tn_error_prefix(int code, const char *fmt, ...) {
    char prefix[sizeof g_message];
    char old[sizeof g_message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, g_message, sizeof old);
    /* Assemble "[<class>: ]<prefix>: <old>" truncated to the buffer: a DuckDB error class
     * ("Conversion Error: ") stays in front. */
    size_t cap = sizeof g_message - 1, len = 0;
    size_t klass = tn_error_class_len(old);
    /* the callee already named it ("<path>: write: No space left on device"): no second copy */
    size_t pl = strlen(prefix);
    if (pl && strncmp(old + klass, prefix, pl) == 0 && old[klass + pl] == ':' && old[klass + pl + 1] == ' ')
    {
        if (code != 0) g_code = code;
        return code;
    }
    memcpy(g_message, old, klass);
    len = klass;
    size_t plen = strnlen(prefix, cap - len);
    memcpy(g_message + len, prefix, plen);
    len += plen;
    if (old[klass]) {
        const char *sep = ": ";
        for (int i = 0; i < 2 && len < cap; i++) g_message[len++] = sep[i];
        size_t olen = strnlen(old + klass, sizeof old - 1 - klass);
        if (olen > cap - len) olen = cap - len;
        memcpy(g_message + len, old + klass, olen);
        len += olen;
    }
    g_message[len] = '\0';
    if (code != 0) g_code = code;
    return code;
}

const char *tn_error_message(void) {
    if (g_message[0] == '\0' && g_code != 0) return tn_error_code_name(g_code);
    return g_message;
}

int tn_error_code_last(void) { return g_code; }

const char *tn_error_code_name(int code) {
    switch (code) {
#define TN_ERROR_NAME(name, value, text) case value: return text;
        TN_ERROR_TABLE(TN_ERROR_NAME)
#undef TN_ERROR_NAME
    default: return "unknown error";
    }
}

void tn_error_clear(void) {
    g_code = 0;
    g_message[0] = '\0';
    g_value_len = -1;
}

void tn_error_note_value(const char *s, size_t n) {
    if (n > sizeof g_value) {
        g_value_len = -1;
        return;
    }
    if (n) memcpy(g_value, s, n);
    g_value_len = (int)n;
}

bool tn_error_value(const char **s, size_t *n) {
    if (g_value_len < 0) return false;
    *s = g_value;
    *n = (size_t)g_value_len;
    return true;
}

void tn_error_save(tn_error_state *out) {
    out->code = g_code;
    memcpy(out->message, g_message, sizeof out->message);
}

int tn_error_restore(const tn_error_state *state) {
    g_code = state->code;
    memcpy(g_message, state->message, sizeof g_message);
    g_message[sizeof g_message - 1] = '\0';
    return state->code;
}

int tn_interrupt_check(const int *flag) {
    if (!tn_interrupt_pending(flag)) return 0;
    return tn_error_set(TN_EINTERRUPT, "Interrupted");
}
