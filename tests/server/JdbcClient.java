// tests/server/JdbcClient.java: pgjdbc (Debian libpostgresql-jdbc-java) against `tarn serve`,
// compiled by tests/interop/server_clients.sh at test time: PreparedStatement with parameters
// of every common type, text and binary transfer (prepareThreshold=-1 makes pgjdbc use named
// server-side statements and binary results from the first execution), batch inserts, NULLs,
// errors with SQLSTATE, DatabaseMetaData (getTables, getColumns, getSchemas, getPrimaryKeys: pgjdbc's own
// queries over pg_catalog). Prints one "ok NAME" or "FAIL NAME: why" line per check.
import java.math.BigDecimal;
import java.sql.*;
import java.util.*;

public class JdbcClient {
    static void check(String name, Object expected, Object actual) {
        boolean same = Objects.equals(expected, actual)
            || (expected instanceof byte[] && actual instanceof byte[] && Arrays.equals((byte[]) expected, (byte[]) actual));
        System.out.println(same ? "ok " + name : "FAIL " + name + ": expected " + expected + ", got " + actual);
    }

    static void roundTrip(Connection c, String label) throws SQLException {
        String t = "jt_" + label;
        try (Statement s = c.createStatement()) {
            s.execute("create table " + t + " (i int, l bigint, sm smallint, d double, r real, n decimal(12,3), s varchar, " +
                      "b boolean, dt date, ts timestamp, bin varbinary)");
        }
        try (PreparedStatement p = c.prepareStatement("insert into " + t + " values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            for (int k = 0; k < 3; k++) {
                p.setInt(1, k);
                p.setLong(2, 10000000000L + k);
                p.setShort(3, (short) (-k));
                p.setDouble(4, k + 0.25);
                p.setFloat(5, 1.5f * k);
                p.setBigDecimal(6, new BigDecimal("-12.345").add(BigDecimal.valueOf(k)));
                p.setString(7, "row " + k + " 'quoted' ✓");
                p.setBoolean(8, k % 2 == 0);
                p.setDate(9, java.sql.Date.valueOf("2024-03-0" + (k + 1)));
                p.setTimestamp(10, java.sql.Timestamp.valueOf("2024-03-01 10:20:30.25"));
                p.setBytes(11, new byte[] {(byte) k, (byte) 0xff, 0});
                p.addBatch();
            }
            int[] counts = p.executeBatch();
            check(label + ": batch counts", "[1, 1, 1]", Arrays.toString(counts));
            for (int k = 1; k <= 11; k++) p.setNull(k, Types.NULL);
            p.setInt(1, 99);
            check(label + ": insert nulls", 1, p.executeUpdate());
        }
        try (PreparedStatement p = c.prepareStatement("select i, l, sm, d, r, n, s, b, dt, ts, bin from " + t + " where i >= ? and s like ? order by i")) {
            for (int rep = 0; rep < 3; rep++) {                 // several executions: pgjdbc switches to binary
                p.setInt(1, 1);
                p.setString(2, "row%");
                try (ResultSet rs = p.executeQuery()) {
                    check(label + ": row 1 (" + rep + ")", true, rs.next());
                    check(label + ": int", 1, rs.getInt(1));
                    check(label + ": bigint", 10000000001L, rs.getLong(2));
                    check(label + ": smallint", (short) -1, rs.getShort(3));
                    check(label + ": double", 1.25, rs.getDouble(4));
                    check(label + ": real", 1.5f, rs.getFloat(5));
                    check(label + ": numeric", new BigDecimal("-11.345"), rs.getBigDecimal(6));
                    check(label + ": varchar", "row 1 'quoted' ✓", rs.getString(7));
                    check(label + ": boolean", false, rs.getBoolean(8));
                    check(label + ": date", java.sql.Date.valueOf("2024-03-02"), rs.getDate(9));
                    check(label + ": timestamp", java.sql.Timestamp.valueOf("2024-03-01 10:20:30.25"), rs.getTimestamp(10));
                    check(label + ": bytea", new byte[] {1, (byte) 0xff, 0}, rs.getBytes(11));
                    check(label + ": row 2", true, rs.next());
                    check(label + ": end", false, rs.next());
                }
            }
        }
        try (PreparedStatement p = c.prepareStatement("select count(*), count(s), sum(i) from " + t + " where i = ? or i = ?")) {
            p.setInt(1, 99);
            p.setLong(2, 0);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                check(label + ": count with nulls", "2 1 99", rs.getLong(1) + " " + rs.getLong(2) + " " + rs.getLong(3));
            }
        }
        try (PreparedStatement p = c.prepareStatement("select s from " + t + " where i = ?")) {
            p.setInt(1, 99);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                rs.getString(1);
                check(label + ": wasNull", true, rs.wasNull());
            }
        }
    }

    // pgjdbc's DatabaseMetaData queries pg_catalog (sql/pg_catalog.c) with its own SQL.
    static void metadata(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("create schema jmeta");
            s.execute("create table jmeta.facts (id bigint not null, amount decimal(10,2), name varchar, day date)");
            s.execute("create view jmeta.big as select id, amount from jmeta.facts where amount > 100");
        }
        DatabaseMetaData md = c.getMetaData();
        List<String> got = new ArrayList<>();
        try (ResultSet rs = md.getTables(null, "jmeta", "%", new String[] {"TABLE", "VIEW"})) {
            while (rs.next()) got.add(rs.getString("TABLE_SCHEM") + "." + rs.getString("TABLE_NAME") + " " + rs.getString("TABLE_TYPE"));
        }
        check("getTables", "[jmeta.facts TABLE, jmeta.big VIEW]", got.toString());
        got.clear();
        try (ResultSet rs = md.getTables(null, null, "jt_%", new String[] {"TABLE"})) {
            while (rs.next()) got.add(rs.getString("TABLE_SCHEM") + "." + rs.getString("TABLE_NAME"));
        }
        check("getTables by pattern", "[public.jt_binary, public.jt_text]", got.toString());
        got.clear();
        try (ResultSet rs = md.getColumns(null, "jmeta", "facts", "%")) {
            while (rs.next())
                got.add(rs.getInt("ORDINAL_POSITION") + " " + rs.getString("COLUMN_NAME") + " " + rs.getString("TYPE_NAME") + " "
                        + rs.getInt("DATA_TYPE") + " " + rs.getString("IS_NULLABLE") + " " + rs.getInt("COLUMN_SIZE") + " "
                        + rs.getInt("DECIMAL_DIGITS"));
        }
        check("getColumns", "[1 id int8 " + Types.BIGINT + " NO 19 0, 2 amount numeric " + Types.NUMERIC + " YES 10 2, 3 name text "
              + Types.VARCHAR + " YES 2147483647 0, 4 day date " + Types.DATE + " YES 13 0]", got.toString());
        got.clear();
        try (ResultSet rs = md.getColumns(null, "jmeta", "big", null)) {
            while (rs.next()) got.add(rs.getString("COLUMN_NAME") + " " + rs.getString("TYPE_NAME"));
        }
        check("getColumns of a view", "[id int8, amount numeric]", got.toString());
        got.clear();
        try (ResultSet rs = md.getSchemas()) {
            while (rs.next()) got.add(rs.getString("TABLE_SCHEM"));
        }
        check("getSchemas", "[information_schema, jmeta, pg_catalog, public]", got.toString());
        // a primary-key table: its key columns in key order (not column order), named <table>_pkey
        try (Statement s = c.createStatement()) {
            s.execute("create table jmeta.keyed (a int, b varchar, c int, d date) with ('primary-key' = 'c, a')");
        }
        got.clear();
        try (ResultSet rs = md.getPrimaryKeys(null, "jmeta", "keyed")) {
            while (rs.next())
                got.add(rs.getString("TABLE_SCHEM") + "." + rs.getString("TABLE_NAME") + " " + rs.getString("COLUMN_NAME") + " "
                        + rs.getInt("KEY_SEQ") + " " + rs.getString("PK_NAME"));
        }
        check("getPrimaryKeys", "[jmeta.keyed c 1 keyed_pkey, jmeta.keyed a 2 keyed_pkey]", got.toString());
        got.clear();
        try (ResultSet rs = md.getPrimaryKeys(null, null, "facts")) {
            while (rs.next()) got.add(rs.getString("COLUMN_NAME"));
        }
        check("getPrimaryKeys of a table without one", "[]", got.toString());
        try (Statement s = c.createStatement()) {
            s.execute("drop table jmeta.keyed");
            s.execute("drop view jmeta.big");
            s.execute("drop table jmeta.facts");
            s.execute("drop schema jmeta");
        }
    }

    public static void main(String[] args) throws Exception {
        String base = "jdbc:postgresql://127.0.0.1:" + args[0] + "/tarn?user=tester&ApplicationName=jdbc-test";
        try (Connection c = DriverManager.getConnection(base)) {
            DatabaseMetaData md = c.getMetaData();
            check("product name", "PostgreSQL", md.getDatabaseProductName());
            check("major version", 15, md.getDatabaseMajorVersion());
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("select 1 + 1, 'x'")) {
                rs.next();
                check("simple select", "2 x", rs.getInt(1) + " " + rs.getString(2));
            }
            roundTrip(c, "text");
            try (Statement s = c.createStatement()) {
                s.executeQuery("select * from missing");
                check("missing table raises", true, false);
            } catch (SQLException e) {
                check("missing table SQLSTATE", "42P01", e.getSQLState());
            }
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.executeUpdate("insert into jt_text (i) values (500)");
            }
            c.commit();
            c.setAutoCommit(true);
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("select count(*) from jt_text where i = 500")) {
                rs.next();
                check("autocommit off + commit", 1, rs.getInt(1));
            }
        }
        try (Connection c = DriverManager.getConnection(base + "&prepareThreshold=-1")) {
            roundTrip(c, "binary");
            metadata(c);
        }
    }
}
