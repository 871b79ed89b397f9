#!/usr/bin/env bash
# scripts/check-expr-expectations.sh: a maintenance tool (not part of make test): re-checks the expected values of the DuckDB tables in
# tests/unit/test_sql_expr.c against the DuckDB oracle (one query per row; a few minutes).
# Usage: scripts/check-expr-expectations.sh [group]   (group: arith, string, column, ...)
# Exit 0 when every row still matches; prints the rows that differ.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
exec python3 - "$here/tests/unit/test_sql_expr.c" "$here/tests/oracle/duckdb" "${1:-}" <<'PY'
import csv, io, re, subprocess, sys
src, oracle, only = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(src, encoding='utf-8').read()
def unc(s):
    return s.encode('latin-1', 'backslashreplace').decode('unicode_escape').encode('latin-1').decode('utf-8') \
        if '\\' in s else s
# the chunk's rows, from the comment block "CREATE TABLE t AS SELECT * FROM (VALUES ...)"
names = ["ci", "cb", "cd", "cs", "ct", "cdt", "cts", "cm"]
types = ["INT", "BIGINT", "DOUBLE", "VARCHAR", "BOOLEAN", "DATE", "TIMESTAMP", "DECIMAL(10,2)"]
m = re.search(r'g_col_data\[\]\[NROWS\] = \{(.*?)\n\};', text, re.S)
cols = []
for row in re.findall(r'\{(.*?)\}', m.group(1), re.S):
    cols.append([None if v.strip() == 'NULL' else unc(v.strip()[1:-1]) for v in re.findall(r'"(?:[^"\\]|\\.)*"|NULL', row)])
q = lambda s: 'NULL' if s is None else "'" + s.replace("'", "''") + "'"
vals = ",".join("(%d,%s)" % (r + 1, ",".join(q(cols[c][r]) for c in range(8))) for r in range(6))
cte = "WITH t AS (SELECT rn, %s FROM (VALUES %s) v(rn,%s))" % (
    ", ".join("%s::%s AS %s" % (c, types[i], c) for i, c in enumerate(names)), vals, ",".join(names))
bad = total = 0
for g, body in re.findall(r'static const tcase g_(\w+)\[\] = \{(.*?)\n\};', text, re.S):
    if g == 'spark' or (only and g != only):
        continue
    for e, w in re.findall(r'\{"((?:[^"\\]|\\.)*)", "((?:[^"\\]|\\.)*)"\}', body):
        e, w = unc(e), unc(w)
        if g == 'column':
            sql = cte + " SELECT string_agg(COALESCE((%s)::VARCHAR, 'NULL'), '|' ORDER BY rn) FROM t" % e
        else:
            sql = "SELECT COALESCE((%s)::VARCHAR, 'NULL')" % e
        p = subprocess.run([oracle, sql], capture_output=True, text=True)
        if p.returncode == 0 and p.stdout:
            got = list(csv.reader(io.StringIO(p.stdout)))[1][0]
            ok = got == w
        else:
            msg = (p.stderr or p.stdout).strip().split('\n')[0]
            got = 'ERR:' + (msg.split(': ', 1)[1] if ': ' in msg else msg)
            ok = w.startswith('ERR:') and w[4:] in got
        total += 1
        if not ok:
            bad += 1
            print("%s: %s\n   duckdb: %s\n   table:  %s" % (g, e, got, w))
print("%d of %d rows differ from DuckDB" % (bad, total))
sys.exit(1 if bad else 0)
PY
