/*
 * base/regex.cc: regular expressions through RE2 behind a C interface (tn_regex_*, base.h).
 * RE2 matches in time linear in the input (no backtracking, so `(a+)+$` cannot blow up), has
 * DuckDB's syntax and semantics (tests compare with DuckDB), and bounds its memory by max_mem:
 * a pattern whose program or DFA would need more fails to compile with a message. The only C++
 * file of the library; it throws nothing across the interface (RE2 reports errors by status).
 */
#include <re2/re2.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

extern "C" {
#include "base/base.h"
}

struct tn_regex {
    RE2 *re;
};

static uint64_t g_regex_max_mem = 0;   /* 0: RE2's default (8 MiB) */

extern "C" void tn_regex_set_max_mem(uint64_t bytes) { __atomic_store_n(&g_regex_max_mem, bytes, __ATOMIC_RELAXED); }

extern "C" int tn_regex_compile(tn_regex **out, const char *pattern, size_t len, int flags) {
    *out = NULL;
    RE2::Options o;
    o.set_log_errors(false);
    o.set_case_sensitive(!(flags & TN_REGEX_ICASE));
    o.set_literal((flags & TN_REGEX_LITERAL) != 0);
    o.set_dot_nl((flags & TN_REGEX_DOT_NL) != 0);
    uint64_t mem = __atomic_load_n(&g_regex_max_mem, __ATOMIC_RELAXED);
    const uint64_t cap = (uint64_t)64 << 20;      /* one pattern: at most 64 MiB of program and DFA */
    if (mem == 0 || mem > cap) mem = cap;
    if (mem < ((uint64_t)1 << 20)) mem = (uint64_t)1 << 20;
    o.set_max_mem((int64_t)mem);
    tn_regex *r = (tn_regex *)tn_calloc(1, sizeof *r);
    if (!r) return TN_ENOMEM;
    r->re = new (std::nothrow) RE2(re2::StringPiece(pattern, len), o);
    if (!r->re) {
        tn_free(r);
        return TN_ENOMEM;
    }
    if (!r->re->ok()) {
        int shown = len > 200 ? 200 : (int)len;
        int rc = tn_error_set(TN_EINVAL, "Invalid regular expression '%.*s%s': %s", shown, pattern,
                              len > 200 ? "..." : "", r->re->error().c_str());
        delete r->re;
        tn_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

extern "C" void tn_regex_free(tn_regex *re) {
    if (!re) return;
    delete re->re;
    tn_free(re);
}

extern "C" int tn_regex_ngroups(const tn_regex *re) { return re->re->NumberOfCapturingGroups(); }

extern "C" bool tn_regex_search(const tn_regex *re, const char *s, size_t len) {
    return re->re->Match(re2::StringPiece(s, len), 0, len, RE2::UNANCHORED, NULL, 0);
}

extern "C" bool tn_regex_full_match(const tn_regex *re, const char *s, size_t len) {
    return re->re->Match(re2::StringPiece(s, len), 0, len, RE2::ANCHOR_BOTH, NULL, 0);
}

extern "C" bool tn_regex_find(const tn_regex *re, const char *s, size_t len, size_t start, tn_regex_span *groups,
                              int ngroups) {
    if (start > len || ngroups < 1 || ngroups > 64) return false;
    re2::StringPiece sub[64];
    if (!re->re->Match(re2::StringPiece(s, len), start, len, RE2::UNANCHORED, sub, ngroups)) return false;
    for (int i = 0; i < ngroups; i++) {
        if (sub[i].data() == NULL) {
            groups[i].start = -1;
            groups[i].len = 0;
        } else {
            groups[i].start = (int64_t)(sub[i].data() - s);
            groups[i].len = (int64_t)sub[i].size();
        }
    }
    return true;
}

extern "C" int tn_regex_replace(const tn_regex *re, const char *s, size_t len, const char *rewrite, size_t rlen,
                                bool global, tn_buf *out) {
    try {
        std::string str(s, len);
        re2::StringPiece rw(rewrite, rlen);
        std::string err;
        if (!re->re->CheckRewriteString(rw, &err))
            return tn_error_set(TN_EINVAL, "Invalid replacement '%.*s': %s", (int)(rlen > 200 ? 200 : rlen), rewrite,
                                err.c_str());
        if (global) RE2::GlobalReplace(&str, *re->re, rw);
        else RE2::Replace(&str, *re->re, rw);
        return tn_buf_append(out, str.data(), str.size());
    } catch (const std::bad_alloc &) {
        return TN_ENOMEM;
    }
}
