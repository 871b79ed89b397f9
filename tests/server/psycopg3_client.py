# tests/server/psycopg3_client.py: psycopg 3 (Debian python3-psycopg, its own libpq binding)
# against `tarn serve`: server-side parameter binding, binary results, server-side cursors
# (DECLARE, with parameters too, Describe Portal of the cursor, FETCH over the extended
# protocol), COPY both ways, errors as exception classes. Prints one "ok NAME" or "FAIL NAME: why" line per check.
import sys, datetime, decimal, psycopg
port = int(sys.argv[1])
def check(name, exp, got):
    print(("ok " if exp == got else "FAIL ") + name + ("" if exp == got else ": expected %r, got %r" % (exp, got)))
with psycopg.connect(host="127.0.0.1", port=port, user="tester", dbname="tarn", autocommit=True) as c:
    c.execute("create table p3 (i int, s varchar, d date, n decimal(10,2), b boolean)")
    with c.cursor() as cur:
        cur.executemany("insert into p3 values (%s, %s, %s, %s, %s)",
                        [(1, "a", datetime.date(2020, 1, 2), decimal.Decimal("1.50"), True), (2, None, None, None, False)])
    row = c.execute("select i, s, d, n, b from p3 where i = %s", (1,)).fetchone()
    check("parameters (server-side binding)", (1, "a", datetime.date(2020, 1, 2), decimal.Decimal("1.50"), True), row)
    with c.cursor(binary=True) as cur:
        cur.execute("select i, s, d, n, b from p3 order by i")
        check("binary results", [(1, "a", datetime.date(2020, 1, 2), decimal.Decimal("1.50"), True), (2, None, None, None, False)], cur.fetchall())
    with c.transaction():
        with c.cursor(name="srv") as cur:
            cur.execute("select i from p3 order by i")
            check("server-side cursor", [(1,), (2,)], cur.fetchmany(1) + cur.fetchall())
        with c.cursor(name="srvp") as cur:
            # parameters of a named cursor: psycopg 3 binds them to the DECLARE (extended protocol)
            cur.execute("select i, s from p3 where i >= %s and b = %s order by i", (1, False))
            check("server-side cursor with parameters", [(2, None)], cur.fetchall())
    with c.cursor(name="held", withhold=True) as cur:
        cur.execute("select i from p3 where s = %s", ("a",))
        check("WITH HOLD cursor with a text parameter", [(1,)], cur.fetchall())
    with c.cursor() as cur:
        with cur.copy("copy (select i, s, d, n, b from p3 order by i) to stdout (format binary)") as cp:
            cp.set_types(["int4", "text", "date", "numeric", "bool"])
            check("COPY TO STDOUT binary", [(1, "a", datetime.date(2020, 1, 2), decimal.Decimal("1.50"), True), (2, None, None, None, False)], list(cp.rows()))
    with c.cursor() as cur:
        with cur.copy("copy p3 (i, s) from stdin") as cp:
            cp.write_row((3, "x"))
            cp.write_row((4, None))
        check("COPY FROM STDIN rows", 2, cur.rowcount)
        out = b""
        with cur.copy("copy (select i, s from p3 where i >= 3 order by i) to stdout") as cp:
            for data in cp:
                out += bytes(data)
        check("COPY TO STDOUT", b"3\tx\n4\t\\N\n", out)
    try:
        c.execute("select * from nope")
        check("error", "raised", "no error")
    except psycopg.errors.UndefinedTable as e:
        check("UndefinedTable (42P01)", "42P01", e.sqlstate)
