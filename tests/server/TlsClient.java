// tests/server/TlsClient.java: pgjdbc over TLS against `tarn serve` (sslmode=require, SCRAM
// password): a PreparedStatement with a parameter and a batch insert. Prints the results; the
// suite (tests/interop/server_tls.sh) also checks the server logged the connection as TLS.
import java.sql.*;

public class TlsClient {
    public static void main(String[] args) throws Exception {
        String url = "jdbc:postgresql://127.0.0.1:" + args[0] + "/tarn?user=tester&password=" + args[1]
            + "&sslmode=require&ApplicationName=jdbc-tls&assumeMinServerVersion=10";
        try (Connection c = DriverManager.getConnection(url)) {
            try (Statement s = c.createStatement()) { s.execute("create table jt (i int, s varchar)"); }
            try (PreparedStatement p = c.prepareStatement("insert into jt values (?, ?)")) {
                for (int i = 1; i <= 3; i++) { p.setInt(1, i); p.setString(2, "r" + i); p.addBatch(); }
                p.executeBatch();
            }
            try (PreparedStatement p = c.prepareStatement("select count(*), max(s) from jt where i >= ?")) {
                p.setInt(1, 2);
                try (ResultSet r = p.executeQuery()) { r.next(); System.out.println(r.getLong(1) + " " + r.getString(2)); }
            }
        }
    }
}
