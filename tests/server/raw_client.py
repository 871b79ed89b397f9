# tests/server/raw_client.py: hand-made frames against `tarn serve` for the safety suite:
# prints what the server answered (error fields, or "closed") for one scenario named on the
# command line, so tests/interop/server_safety.sh can check the SQLSTATE and that the server
# still serves afterwards.
import socket
import struct
import sys


def connect(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    return s


def startup(s, user="tester", extra=b""):
    body = struct.pack("!i", 196608) + b"user\0" + user.encode() + b"\0database\0tarn\0" + extra + b"\0"
    s.sendall(struct.pack("!i", len(body) + 4) + body)


def read_msgs(s, until=b"Z"):
    """Reads messages until one of type `until` or the connection closes; returns a list."""
    msgs = []
    buf = b""
    while True:
        while len(buf) >= 5:
            t = buf[0:1]
            n = struct.unpack("!i", buf[1:5])[0]
            if len(buf) < 1 + n:
                break
            msgs.append((t, buf[5:1 + n]))
            buf = buf[1 + n:]
            if t in until or (t == b"E" and b"SFATAL" in msgs[-1][1]):
                return msgs
        try:
            chunk = s.recv(65536)
        except (ConnectionResetError, socket.timeout):
            chunk = b""
        if not chunk:
            msgs.append((b"closed", b""))
            return msgs
        buf += chunk


def fields(body):
    out = {}
    for part in body.split(b"\0"):
        if part:
            out[chr(part[0])] = part[1:].decode(errors="replace")
    return out


def report(msgs):
    for t, b in msgs:
        if t in (b"E", b"N"):
            f = fields(b)
            print("%s %s %s: %s" % (t.decode(), f.get("S"), f.get("C"), f.get("M")))
        elif t == b"closed":
            print("closed")
        elif t == b"K":
            print("K")
        elif t == b"Z":
            print("Z " + b.decode())


def main():
    port = int(sys.argv[1])
    what = sys.argv[2]
    s = connect(port)
    if what == "garbage":
        s.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\xff" * 200)
        report(read_msgs(s))
    elif what == "protocol2":
        body = struct.pack("!i", 2 << 16) + b"user\0tester\0\0"
        s.sendall(struct.pack("!i", len(body) + 4) + body)
        report(read_msgs(s))
    elif what == "startup_too_long":
        s.sendall(struct.pack("!ii", 2 ** 31 - 1, 196608))
        report(read_msgs(s))
    elif what == "no_user":
        body = struct.pack("!i", 196608) + b"database\0tarn\0\0"
        s.sendall(struct.pack("!i", len(body) + 4) + body)
        report(read_msgs(s))
    elif what == "ssl_then_query":
        s.sendall(struct.pack("!ii", 8, 80877103))
        print("ssl answer " + s.recv(1).decode())
        startup(s)
        read_msgs(s)
        q = b"select 41 + 1\0"
        s.sendall(b"Q" + struct.pack("!i", len(q) + 4) + q)
        msgs = read_msgs(s)
        rows = [b for t, b in msgs if t == b"D"]
        print("row " + rows[0][6:].decode() if rows else "no row")
    elif what in ("frame_2gb", "frame_negative", "bad_type", "truncated_bind", "bind_overlong_param"):
        startup(s)
        read_msgs(s)
        if what == "frame_2gb":
            s.sendall(b"Q" + struct.pack("!I", 2 ** 31 - 1) + b"select 1")
        elif what == "frame_negative":
            s.sendall(b"Q" + struct.pack("!i", 2))
        elif what == "bad_type":
            s.sendall(b"\x07" + struct.pack("!i", 4))
        elif what == "truncated_bind":
            body = b"\0\0" + struct.pack("!hh", 0, 3)
            s.sendall(b"B" + struct.pack("!i", len(body) + 4) + body)
        else:
            p = b"select $1::varchar\0"
            s.sendall(b"P" + struct.pack("!i", len(p) + 4 + 3) + b"\0" + p + struct.pack("!h", 0))
            body = b"\0\0" + struct.pack("!hhi", 0, 1, 2 ** 31 - 1) + b"x" + struct.pack("!h", 0)
            s.sendall(b"B" + struct.pack("!i", len(body) + 4) + body)
        report(read_msgs(s))
    elif what == "cancel_wrong_key":
        startup(s)
        msgs = read_msgs(s)
        k = [b for t, b in msgs if t == b"K"][0]
        pid, key = struct.unpack("!ii", k)
        c = connect(port)
        c.sendall(struct.pack("!iiii", 16, 80877102, pid, key ^ 1))
        print("cancel reply: " + ("closed" if c.recv(1) == b"" else "data"))
        q = b"select 7\0"
        s.sendall(b"Q" + struct.pack("!i", len(q) + 4) + q)
        msgs = read_msgs(s)
        rows = [b for t, b in msgs if t == b"D"]
        print("row " + rows[0][6:].decode() if rows else "no row")
    elif what == "extended_error_skips_to_sync":
        startup(s)
        read_msgs(s)
        p = b"selec 1\0"
        s.sendall(b"P" + struct.pack("!i", len(p) + 4 + 3) + b"\0" + p + struct.pack("!h", 0))
        s.sendall(b"B" + struct.pack("!i", 4 + 2 + 6) + b"\0\0" + struct.pack("!hhh", 0, 0, 0))
        s.sendall(b"E" + struct.pack("!i", 4 + 1 + 4) + b"\0" + struct.pack("!i", 0))
        s.sendall(b"S" + struct.pack("!i", 4))
        msgs = read_msgs(s)
        print(" ".join(t.decode() for t, b in msgs))
    elif what == "release_in_own_portal":
        # DEALLOCATE ALL / DISCARD ALL / DEALLOCATE of its own statement, each run through the
        # extended protocol from a named statement and portal (psycopg 3 on a reset): the
        # statement releases the portal that runs it. Prints each Execute's answer, then proves
        # the session still serves and the statements are gone.
        startup(s)
        read_msgs(s)
        def msg(t, body):
            return t + struct.pack("!i", len(body) + 4) + body
        for sql in (b"DEALLOCATE ALL", b"DISCARD ALL", b"DEALLOCATE s1", b"deallocate all"):
            frames = msg(b"P", b"s1\0" + sql + b"\0" + struct.pack("!h", 0))
            frames += msg(b"P", b"s2\0select 5\0" + struct.pack("!h", 0))
            frames += msg(b"B", b"p1\0s1\0" + struct.pack("!hhh", 0, 0, 0))
            frames += msg(b"D", b"Pp1\0")
            frames += msg(b"E", b"p1\0" + struct.pack("!i", 0))
            frames += msg(b"S", b"")
            s.sendall(frames)
            msgs = read_msgs(s)
            out = []
            for t, b in msgs:
                if t == b"C":
                    out.append("C " + b.rstrip(b"\0").decode())
                elif t == b"E":
                    out.append("E " + fields(b).get("C", "?"))
                elif t != b"S":                  # DISCARD ALL's ParameterStatus messages
                    out.append(t.decode())
            print(sql.decode() + ": " + " ".join(out))
            # s2 survives only DEALLOCATE s1; s1 is gone in every case
            frames = msg(b"B", b"\0s2\0" + struct.pack("!hhh", 0, 0, 0)) + msg(b"E", b"\0" + struct.pack("!i", 0))
            frames += msg(b"S", b"") + msg(b"C", b"Ss2\0") + msg(b"C", b"Ss1\0") + msg(b"S", b"")
            s.sendall(frames)
            msgs = read_msgs(s) + read_msgs(s)
            rows = [b[6:].decode() for t, b in msgs if t == b"D"]
            errs = [fields(b).get("C", "?") for t, b in msgs if t == b"E"]
            print("  s2 afterwards: " + (("row " + rows[0]) if rows else "error " + ",".join(errs)))
        q = b"select 7\0"
        s.sendall(msg(b"Q", q))
        rows = [b for t, b in read_msgs(s) if t == b"D"]
        print("row " + rows[0][6:].decode() if rows else "no row")
    else:
        print("unknown scenario " + what)


main()
