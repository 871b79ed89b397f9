#!/usr/bin/env python3
# bench/compare_rows.py TARN.txt DUCKDB.txt: the benchmarks' result check. Each file holds one
# result row a line, columns '|'-separated; rows are compared sorted, numbers with a 1e-9
# relative tolerance. Prints "ok (N rows)", "DIFFER ..." or "missing".
import sys
def rows(p):
    try: return sorted(l.rstrip('\n') for l in open(p))
    except OSError: return None
def same(a, b):
    if a == b: return True
    try:
        x, y = float(a), float(b)
        return abs(x - y) <= 1e-9 * max(abs(x), abs(y), 1e-300)
    except ValueError: return False
a, b = rows(sys.argv[1]), rows(sys.argv[2])
if a is None or b is None: print("missing"); sys.exit()
if len(a) != len(b): print("DIFFER (%d vs %d rows)" % (len(a), len(b))); sys.exit()
for x, y in zip(a, b):
    fx, fy = x.split('|'), y.split('|')
    if len(fx) != len(fy) or not all(same(p, q) for p, q in zip(fx, fy)):
        print("DIFFER: tarn %r vs DuckDB %r" % (x, y)); sys.exit()
print("ok (%d rows)" % len(a))
