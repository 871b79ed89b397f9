# tests/server/psycopg_client.py: psycopg2 (libpq) against `tarn serve`: connect with a
# transaction block (psycopg2's default), parameters of every common type, type conversion of
# results, errors with SQLSTATE (pgcode), autocommit, rollback after an error. Prints one
# "ok NAME" or "FAIL NAME: why" line per check.
import datetime
import decimal
import sys

import psycopg2
import psycopg2.errors

port = int(sys.argv[1])
results = []


def check(name, expected, actual):
    if expected == actual:
        print("ok", name)
    else:
        print("FAIL %s: expected %r, got %r" % (name, expected, actual))


conn = psycopg2.connect(host="127.0.0.1", port=port, user="tester", dbname="tarn",
                        application_name="psycopg-test")
cur = conn.cursor()
cur.execute("select 1, 'a'::varchar, 2.5::double, true")
check("simple row", (1, "a", 2.5, True), cur.fetchone())
conn.commit()

cur.execute("create table py (i int, b bigint, d double, n decimal(12,3), s varchar, dt date, ts timestamp, f boolean, bin varbinary)")
conn.commit()
rows = [
    (1, 10000000000, 1.25, decimal.Decimal("123.456"), "it's", datetime.date(2024, 2, 29),
     datetime.datetime(2024, 2, 29, 12, 30, 45, 123456), True, b"\x00\x01\xff"),
    (2, -5, -0.5, decimal.Decimal("-0.001"), "ünïcode ✓", datetime.date(1970, 1, 1),
     datetime.datetime(1999, 12, 31, 23, 59, 59), False, b""),
    (3, None, None, None, None, None, None, None, None),
]
for r in rows:
    cur.execute("insert into py values (%s, %s, %s, %s, %s, %s, %s, %s, %s)", r)
check("insert rowcount", 1, cur.rowcount)
conn.commit()
cur.execute("select * from py order by i")
got = cur.fetchall()
got = [tuple(bytes(v) if isinstance(v, memoryview) else v for v in row) for row in got]
check("types round trip", rows, got)
check("description names", ["i", "b", "d", "n", "s", "dt", "ts", "f", "bin"], [d.name for d in cur.description])
check("description type codes", [23, 20, 701, 1700, 25, 1082, 1114, 16, 17], [d.type_code for d in cur.description])

cur.execute("select s from py where i = %s and s like %s", (1, "it%"))
check("parameters in where", [("it's",)], cur.fetchall())
cur.execute("select count(*) from py where dt >= %s", (datetime.date(2000, 1, 1),))
check("date parameter", (1,), cur.fetchone())
conn.commit()

try:
    cur.execute("select * from missing_table")
    check("undefined table raises", True, False)
except psycopg2.Error as e:
    check("undefined table pgcode", "42P01", e.pgcode)
    check("error class", True, isinstance(e, psycopg2.errors.UndefinedTable))
try:
    cur.execute("select 1")
    check("aborted block refuses", True, False)
except psycopg2.Error as e:
    check("aborted block 25P02", "25P02", e.pgcode)
conn.rollback()
cur.execute("select 5")
check("after rollback", (5,), cur.fetchone())
conn.rollback()

try:
    cur.execute("selec 1")
except psycopg2.Error as e:
    check("syntax error 42601", "42601", e.pgcode)
conn.rollback()

conn.autocommit = True
cur.execute("insert into py (i) values (4)")
cur.execute("select count(*) from py")
check("autocommit insert", (4,), cur.fetchone())
check("server_version parsed by libpq", 150000, conn.server_version)
check("transaction status idle", psycopg2.extensions.TRANSACTION_STATUS_IDLE, conn.get_transaction_status())

cur.execute("select i, s from py where i < %(lim)s order by i", {"lim": 3})
check("named parameters", [(1, "it's"), (2, "ünïcode ✓")], cur.fetchall())
conn.close()
