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
    c.execute("create table pbin (i int, s varchar, d date, n decimal(10,2), f double, t timestamp, tz timestamptz, b boolean, x bigint, y varbinary, h smallint)")
    brows = [(1, "a\tb\\", datetime.date(2020, 1, 2), decimal.Decimal("1.50"), 2.5, datetime.datetime(2020, 1, 2, 3, 4, 5, 123456),
              datetime.datetime(2020, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc), True, 9000000000, b"\x01\xff\\x", 7), (2,) + (None,) * 10]
    with c.cursor() as cur:
        with cur.copy("copy pbin from stdin (format binary)") as cp:
            cp.set_types(["int4", "text", "date", "numeric", "float8", "timestamp", "timestamptz", "bool", "int8", "bytea", "int2"])
            for r in brows:
                cp.write_row(r)
        check("COPY FROM STDIN binary rows", 2, cur.rowcount)
        got = c.execute("select * from pbin order by i").fetchall()
        check("COPY FROM STDIN binary values (read back as text)", brows, [tuple(bytes(v) if isinstance(v, memoryview) else v for v in r) for r in got])
        try:
            with cur.copy("copy pbin (i, s) from stdin (format binary)") as cp:
                cp.write(b"PGCOPY\n\xff\r\n\x00" + b"\x00" * 8 + b"\x00\x01\x00\x00\x00\x04\x00\x00\x00\x05\xff\xff")
            check("COPY binary, too few fields refused", "error", "none")
        except psycopg.Error as e:
            check("COPY binary, too few fields refused", True, "has 1 fields, the copy takes 2" in str(e))
        check("a refused binary COPY commits nothing", [(2,)], c.execute("select count(*) from pbin").fetchall())
        # PostgreSQL refuses text that is not UTF-8 or holds a NUL byte (22021), binary or text COPY
        for fmt, data in (("(format binary)", None), ("", b"9\ta\\0b\n"), ("", b"9\t\xc3\x28\n")):
            try:
                with cur.copy("copy pbin (i, s) from stdin " + fmt) as cp:
                    if data is None:
                        cp.set_types(["int4", "text"])
                        cp.write_row((9, "a\x00b"))
                    else:
                        cp.write(data)
                check("COPY %s of a bad text field refused" % (fmt or repr(data)), "error", "none")
            except psycopg.errors.CharacterNotInRepertoire as e:
                check("COPY %s of a bad text field: 22021" % (fmt or repr(data)), True,
                      'invalid byte sequence for encoding "UTF8": ' + ("0x00" if data is None or b"\\0" in data else "0xc3 0x28") in str(e))
        check("refused COPYs commit nothing", [(2,)], c.execute("select count(*) from pbin").fetchall())
    c.execute("drop table pbin")
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
    # psycopg 3 sends DEALLOCATE ALL itself through the extended protocol (unnamed statement and
    # portal) after a DROP once it holds prepared statements, and a pool's reset sends DISCARD ALL
    # the same way: the statement releases the portal running it (a use-after-free once)
    got = [c.execute("select i from p3 where i = %s", (k,), prepare=True).fetchone() for k in (1, 2)]
    c.execute("create table p3drop (i int)")
    c.execute("drop table p3drop")
    check("psycopg's DEALLOCATE ALL after a DROP, then prepared again", ([(1,), (2,)], 0, [(2,)]),
          (got, len(c._prepared._names), c.execute("select i from p3 where i = %s", (2,), prepare=True).fetchall()))
    check("DISCARD ALL through the extended protocol", ("DISCARD ALL", [(1,)]),
          (c.execute("discard all").statusmessage, c.execute("select i from p3 where i = %s and s = %s", (1, "a")).fetchall()))
