/*
 * server/compat.c: catalog queries of psql 15's \d that tarn's SQL cannot run as written
 * (arrays: = any(x), array(subquery), x[i], generate_series; scalar subqueries correlated
 * without an aggregate), each with the query that gives the same answer over tarn's catalog
 * (sql/pg_catalog.c). A statement is rewritten only when it equals a template word for word
 * (runs of blanks are one blank); %OID% in a template matches an oid (digits) and %ANY% any
 * text (the shortest that lets the rest match: the optional filters drivers add), and each is
 * put into the replacement. Why the answers are the same:
 *
 *   relation of \d+ t  tarn has no TOAST tables (reltoastrelid is 0), so the toast options
 *                      appended to reloptions are none
 *   columns of \d t and \d+ t
 *                      pg_attrdef is empty (tarn keeps no defaults) and every text column has
 *                      its type's collation, so both scalar subqueries are NULL
 *   view definition of \d+ v
 *                      pg_get_viewdef(oid) is the view's text as pg_views.definition holds it
 *                      (tarn keeps the text it was created with, not a deparsed query)
 *   policies, extended statistics, publications of \d t
 *                      pg_policy, pg_statistic_ext and pg_publication* are empty: no rows
 *   pgjdbc's getPrimaryKeys
 *                      _pg_expandarray(indkey) pairs each key column's attnum x with its
 *                      position n; the rewrite pairs them with generate_series and split_part
 *                      over indkey's text ("3 1"), and names the key "<table>_pkey" as
 *                      pg_index's rows do (sql/pg_catalog.c)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/pgwireInt.h"

typedef struct compat_rule {
    const char *what;
    const char *match;
    const char *replace;
} compat_rule;

static const compat_rule g_rules[] = {
    {"psql \\d columns",
     "SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), (SELECT pg_catalog.pg_get_expr(d.adbin, "
     "d.adrelid, true) FROM pg_catalog.pg_attrdef d WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum AND "
     "a.atthasdef), a.attnotnull, (SELECT c.collname FROM pg_catalog.pg_collation c, pg_catalog.pg_type t WHERE "
     "c.oid = a.attcollation AND t.oid = a.atttypid AND a.attcollation <> t.typcollation) AS attcollation, "
     "a.attidentity, a.attgenerated FROM pg_catalog.pg_attribute a WHERE a.attrelid = '%OID%' AND a.attnum > 0 AND "
     "NOT a.attisdropped ORDER BY a.attnum",
     "SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), CAST(NULL AS text) AS pg_get_expr, "
     "a.attnotnull, CAST(NULL AS text) AS attcollation, a.attidentity, a.attgenerated FROM pg_catalog.pg_attribute a "
     "WHERE a.attrelid = '%OID%' AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum"},
    {"psql \\d+ relation",
     "SELECT c.relchecks, c.relkind, c.relhasindex, c.relhasrules, c.relhastriggers, c.relrowsecurity, "
     "c.relforcerowsecurity, false AS relhasoids, c.relispartition, pg_catalog.array_to_string(c.reloptions || "
     "array(select 'toast.' || x from pg_catalog.unnest(tc.reloptions) x), ', ') , c.reltablespace, CASE WHEN "
     "c.reloftype = 0 THEN '' ELSE c.reloftype::pg_catalog.regtype::pg_catalog.text END, c.relpersistence, "
     "c.relreplident, am.amname FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_class tc ON (c.reltoastrelid = "
     "tc.oid) LEFT JOIN pg_catalog.pg_am am ON (c.relam = am.oid) WHERE c.oid = '%OID%'",
     "SELECT c.relchecks, c.relkind, c.relhasindex, c.relhasrules, c.relhastriggers, c.relrowsecurity, "
     "c.relforcerowsecurity, false AS relhasoids, c.relispartition, pg_catalog.array_to_string(c.reloptions, ', ') "
     "AS array_to_string, c.reltablespace, CASE WHEN c.reloftype = 0 THEN '' ELSE "
     "c.reloftype::pg_catalog.regtype::pg_catalog.text END AS reloftype, c.relpersistence, c.relreplident, "
     "am.amname FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_am am ON (c.relam = am.oid) WHERE c.oid = "
     "'%OID%'"},
    {"psql \\d+ columns",
     "SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), (SELECT pg_catalog.pg_get_expr(d.adbin, "
     "d.adrelid, true) FROM pg_catalog.pg_attrdef d WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum AND "
     "a.atthasdef), a.attnotnull, (SELECT c.collname FROM pg_catalog.pg_collation c, pg_catalog.pg_type t WHERE "
     "c.oid = a.attcollation AND t.oid = a.atttypid AND a.attcollation <> t.typcollation) AS attcollation, "
     "a.attidentity, a.attgenerated, a.attstorage, a.attcompression AS attcompression, CASE WHEN "
     "a.attstattarget=-1 THEN NULL ELSE a.attstattarget END AS attstattarget, "
     "pg_catalog.col_description(a.attrelid, a.attnum) FROM pg_catalog.pg_attribute a WHERE a.attrelid = '%OID%' "
     "AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
     "SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), CAST(NULL AS text) AS pg_get_expr, "
     "a.attnotnull, CAST(NULL AS text) AS attcollation, a.attidentity, a.attgenerated, a.attstorage, "
     "a.attcompression AS attcompression, CASE WHEN a.attstattarget=-1 THEN NULL ELSE a.attstattarget END AS "
     "attstattarget, pg_catalog.col_description(a.attrelid, a.attnum) AS col_description FROM "
     "pg_catalog.pg_attribute a WHERE a.attrelid = '%OID%' AND a.attnum > 0 AND NOT a.attisdropped ORDER BY "
     "a.attnum"},
    {"psql \\d+ view columns",
     "SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), (SELECT pg_catalog.pg_get_expr(d.adbin, "
     "d.adrelid, true) FROM pg_catalog.pg_attrdef d WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum AND "
     "a.atthasdef), a.attnotnull, (SELECT c.collname FROM pg_catalog.pg_collation c, pg_catalog.pg_type t WHERE "
     "c.oid = a.attcollation AND t.oid = a.atttypid AND a.attcollation <> t.typcollation) AS attcollation, "
     "a.attidentity, a.attgenerated, a.attstorage, pg_catalog.col_description(a.attrelid, a.attnum) FROM "
     "pg_catalog.pg_attribute a WHERE a.attrelid = '%OID%' AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
     "SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), CAST(NULL AS text) AS pg_get_expr, "
     "a.attnotnull, CAST(NULL AS text) AS attcollation, a.attidentity, a.attgenerated, a.attstorage, "
     "pg_catalog.col_description(a.attrelid, a.attnum) AS col_description FROM pg_catalog.pg_attribute a WHERE "
     "a.attrelid = '%OID%' AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum"},
    {"psql \\d+ view definition",
     "SELECT pg_catalog.pg_get_viewdef('%OID%'::pg_catalog.oid, true)",
     "SELECT (SELECT v.definition FROM pg_catalog.pg_views v, pg_catalog.pg_class c, pg_catalog.pg_namespace n "
     "WHERE c.oid = '%OID%' AND c.relnamespace = n.oid AND n.nspname = v.schemaname AND c.relname = v.viewname) "
     "AS pg_get_viewdef"},
    {"psql \\d policies",
     "SELECT pol.polname, pol.polpermissive, CASE WHEN pol.polroles = '{0}' THEN NULL ELSE "
     "pg_catalog.array_to_string(array(select rolname from pg_catalog.pg_roles where oid = any (pol.polroles) order "
     "by 1),',') END, pg_catalog.pg_get_expr(pol.polqual, pol.polrelid), pg_catalog.pg_get_expr(pol.polwithcheck, "
     "pol.polrelid), CASE pol.polcmd WHEN 'r' THEN 'SELECT' WHEN 'a' THEN 'INSERT' WHEN 'w' THEN 'UPDATE' WHEN 'd' "
     "THEN 'DELETE' END AS cmd FROM pg_catalog.pg_policy pol WHERE pol.polrelid = '%OID%' ORDER BY 1",
     "SELECT CAST(NULL AS text) AS polname, CAST(NULL AS boolean) AS polpermissive, CAST(NULL AS text) AS "
     "array_to_string, CAST(NULL AS text) AS pg_get_expr, CAST(NULL AS text) AS pg_get_expr, CAST(NULL AS text) AS "
     "cmd WHERE false"},
    {"psql \\d statistics",
     "SELECT oid, stxrelid::pg_catalog.regclass, stxnamespace::pg_catalog.regnamespace::pg_catalog.text AS nsp, "
     "stxname, pg_catalog.pg_get_statisticsobjdef_columns(oid) AS columns, 'd' = any(stxkind) AS ndist_enabled, "
     "'f' = any(stxkind) AS deps_enabled, 'm' = any(stxkind) AS mcv_enabled, stxstattarget FROM "
     "pg_catalog.pg_statistic_ext WHERE stxrelid = '%OID%' ORDER BY nsp, stxname",
     "SELECT CAST(NULL AS bigint) AS oid, CAST(NULL AS text) AS stxrelid, CAST(NULL AS text) AS nsp, CAST(NULL AS "
     "text) AS stxname, CAST(NULL AS text) AS columns, CAST(NULL AS boolean) AS ndist_enabled, CAST(NULL AS boolean) "
     "AS deps_enabled, CAST(NULL AS boolean) AS mcv_enabled, CAST(NULL AS integer) AS stxstattarget WHERE false"},
    {"psql \\d publications",
     "SELECT pubname , NULL , NULL FROM pg_catalog.pg_publication p JOIN pg_catalog.pg_publication_namespace pn ON "
     "p.oid = pn.pnpubid JOIN pg_catalog.pg_class pc ON pc.relnamespace = pn.pnnspid WHERE pc.oid ='%OID%' and "
     "pg_catalog.pg_relation_is_publishable('%OID%') UNION SELECT pubname , pg_get_expr(pr.prqual, c.oid) , (CASE "
     "WHEN pr.prattrs IS NOT NULL THEN (SELECT string_agg(attname, ', ') FROM pg_catalog.generate_series(0, "
     "pg_catalog.array_upper(pr.prattrs::pg_catalog.int2[], 1)) s, pg_catalog.pg_attribute WHERE attrelid = "
     "pr.prrelid AND attnum = prattrs[s]) ELSE NULL END) FROM pg_catalog.pg_publication p JOIN "
     "pg_catalog.pg_publication_rel pr ON p.oid = pr.prpubid JOIN pg_catalog.pg_class c ON c.oid = pr.prrelid WHERE "
     "pr.prrelid = '%OID%' UNION SELECT pubname , NULL , NULL FROM pg_catalog.pg_publication p WHERE p.puballtables "
     "AND pg_catalog.pg_relation_is_publishable('%OID%') ORDER BY 1",
     "SELECT CAST(NULL AS text) AS pubname, CAST(NULL AS text) AS \"?column?\", CAST(NULL AS text) AS \"?column?\" "
     "WHERE false"},
    {"pgjdbc getPrimaryKeys",
     "SELECT result.TABLE_CAT, result.TABLE_SCHEM, result.TABLE_NAME, result.COLUMN_NAME, result.KEY_SEQ, "
     "result.PK_NAME FROM (SELECT NULL AS TABLE_CAT, n.nspname AS TABLE_SCHEM, ct.relname AS TABLE_NAME, a.attname AS "
     "COLUMN_NAME, (information_schema._pg_expandarray(i.indkey)).n AS KEY_SEQ, ci.relname AS PK_NAME, "
     "information_schema._pg_expandarray(i.indkey) AS KEYS, a.attnum AS A_ATTNUM FROM pg_catalog.pg_class ct JOIN "
     "pg_catalog.pg_attribute a ON (ct.oid = a.attrelid) JOIN pg_catalog.pg_namespace n ON (ct.relnamespace = n.oid) "
     "JOIN pg_catalog.pg_index i ON ( a.attrelid = i.indrelid) JOIN pg_catalog.pg_class ci ON (ci.oid = "
     "i.indexrelid) WHERE true%ANY% AND i.indisprimary ) result where result.A_ATTNUM = (result.KEYS).x ORDER BY "
     "result.table_name, result.pk_name, result.key_seq",
     "SELECT result.TABLE_CAT, result.TABLE_SCHEM, result.TABLE_NAME, result.COLUMN_NAME, result.KEY_SEQ, "
     "result.PK_NAME FROM (SELECT CAST(NULL AS text) AS TABLE_CAT, n.nspname AS TABLE_SCHEM, ct.relname AS TABLE_NAME, "
     "a.attname AS COLUMN_NAME, CAST(k.n AS integer) AS KEY_SEQ, ct.relname || '_pkey' AS PK_NAME FROM "
     "pg_catalog.pg_class ct JOIN pg_catalog.pg_attribute a ON (ct.oid = a.attrelid) JOIN pg_catalog.pg_namespace n "
     "ON (ct.relnamespace = n.oid) JOIN pg_catalog.pg_index i ON (a.attrelid = i.indrelid) JOIN generate_series(1, "
     "32) k(n) ON (CAST(a.attnum AS text) = split_part(i.indkey, ' ', CAST(k.n AS integer))) WHERE true%ANY% AND "
     "i.indisprimary) result ORDER BY result.table_name, result.pk_name, result.key_seq"},
};

static bool blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* The holes a template matched: %OID% (every one must match the same digits) and %ANY%. */
typedef struct compat_holes {
    char oid[16];
    const char *any;
    size_t any_len;
} compat_holes;

/* Compares s[i, n) (each run of blanks one ' ') with template t, filling h. */
static bool match_from(const char *s, size_t i, size_t n, const char *t, compat_holes *h) {
    while (*t) {
        if (strncmp(t, "%OID%", 5) == 0) {
            size_t k = 0;
            char got[16];
            while (i < n && s[i] >= '0' && s[i] <= '9' && k + 1 < sizeof got) got[k++] = s[i++];
            got[k] = 0;
            if (!k || (h->oid[0] && strcmp(h->oid, got) != 0)) return false;
            snprintf(h->oid, sizeof h->oid, "%s", got);
            t += 5;
        } else if (strncmp(t, "%ANY%", 5) == 0) {
            for (size_t j = i; j <= n; j++) {          /* the shortest text after which the rest matches */
                if (match_from(s, j, n, t + 5, h)) {
                    h->any = s + i;
                    h->any_len = j - i;
                    return true;
                }
            }
            return false;
        } else if (*t == ' ') {
            if (i >= n || !blank(s[i])) return false;
            while (i < n && blank(s[i])) i++;
            t++;
        } else {
            if (i >= n || s[i] != *t) return false;
            i++;
            t++;
        }
    }
    return i == n;
}

static bool matches(const char *s, size_t n, const char *t, compat_holes *h) {
    size_t i = 0;
    memset(h, 0, sizeof *h);
    while (i < n && blank(s[i])) i++;
    while (n > i && (blank(s[n - 1]) || s[n - 1] == ';')) n--;
    return match_from(s, i, n, t, h);
}

bool tn_pg_compat_rewrite(const char *sql, size_t len, char **out, const char **what) {
    *out = NULL;
    compat_holes h;
    for (size_t r = 0; r < sizeof g_rules / sizeof g_rules[0]; r++) {
        if (!matches(sql, len, g_rules[r].match, &h)) continue;
        tn_buf b = TN_BUF_INIT;
        int rc = 0;
        for (const char *p = g_rules[r].replace; *p && !rc;) {
            const char *hole = strchr(p, '%');
            while (hole && strncmp(hole, "%OID%", 5) != 0 && strncmp(hole, "%ANY%", 5) != 0) hole = strchr(hole + 1, '%');
            size_t k = hole ? (size_t)(hole - p) : strlen(p);
            rc = tn_buf_append(&b, p, k);
            if (hole && !rc) rc = hole[1] == 'O' ? tn_buf_append(&b, h.oid, strlen(h.oid)) : tn_buf_append(&b, h.any, h.any_len);
            p += k + (hole ? 5 : 0);
        }
        if (!rc) rc = tn_buf_append_byte(&b, 0);
        if (rc) {
            tn_buf_free(&b);
            return false;       /* out of memory: run the statement as written (it fails clearly) */
        }
        *out = (char *)b.data;
        if (what) *what = g_rules[r].what;
        return true;
    }
    return false;
}
