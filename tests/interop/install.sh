#!/usr/bin/env bash
# `make install` / `make uninstall` into a DESTDIR: libtarn.so (with its soname), libtarn.a,
# include/tarn.h, tarn.pc and the tarn command land under PREFIX; both libraries export only
# tarn_* symbols (nm); examples/query.c builds out of tree with `pkg-config --cflags --libs tarn`
# alone (shared) and with `pkg-config --static` (static), runs and answers as the in-tree build;
# a program defining names libtarn uses internally links with the static library; `tarn
# --version` and `--help` are complete; uninstall leaves no file behind.
set -u
. "$(dirname "$0")/lib.sh"
cd "$TN_REPO"
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok: $1"; }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tarn-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/root
san=""; [ "${TARN_SANITIZED:-}" = 1 ] && san="-fsanitize=address,undefined -fno-omit-frame-pointer"
mk() { make -s --no-print-directory BUILD="$BUILD" ${TARN_SANITIZED:+SANITIZE=1 OPT=-O1} "$@"; }

if mk install DESTDIR="$dest" PREFIX=/usr/local >"$tmp/install.log" 2>&1; then ok "make install DESTDIR PREFIX=/usr/local"
else ko "make install: $(tail -5 "$tmp/install.log")"; echo "$pass passed, $fail failed"; exit 1; fi
P=$dest/usr/local
for f in bin/tarn lib/libtarn.a lib/libtarn.so lib/libtarn.so.0 include/tarn.h lib/pkgconfig/tarn.pc; do
    [ -e "$P/$f" ] && ok "installed $f" || ko "missing $f"
done
ver=$(sed -n 's/^#define TARN_VERSION "\(.*\)"/\1/p' include/tarn.h)
[ -f "$P/lib/libtarn.so.$ver" ] && [ "$(readlink "$P/lib/libtarn.so")" = "libtarn.so.$ver" ] \
    && ok "libtarn.so -> libtarn.so.$ver" || ko "libtarn.so link: $(ls -l "$P/lib")"
soname=$(readelf -d "$P/lib/libtarn.so.$ver" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = "libtarn.so.${ver%%.*}" ] && ok "soname $soname" || ko "soname '$soname'"
cmp -s include/tarn.h "$P/include/tarn.h" && ok "tarn.h installed as is" || ko "tarn.h differs"

# Only tarn_* is exported.
bad=$(nm -D --defined-only "$P/lib/libtarn.so" | awk '{print $NF}' | grep -v '^tarn_')
n=$(nm -D --defined-only "$P/lib/libtarn.so" | grep -c ' tarn_')
[ -z "$bad" ] && [ "$n" -ge 25 ] && ok "libtarn.so exports $n symbols, all tarn_*" || ko "libtarn.so exports: $(echo "$bad" | head -5 | tr '\n' ' ') ($n tarn_)"
bad=$(nm -g --defined-only "$P/lib/libtarn.a" | awk 'NF == 3 {print $3}' | grep -v '^tarn_')
n=$(nm -g --defined-only "$P/lib/libtarn.a" | grep -c ' tarn_')
[ -z "$bad" ] && [ "$n" -ge 25 ] && ok "libtarn.a defines $n global symbols, all tarn_*" || ko "libtarn.a globals: $(echo "$bad" | head -5 | tr '\n' ' ') ($n tarn_)"
# every function tarn.h declares is exported
missing=""
for s in $(grep -oE 'TARN_API [^(]*\(' include/tarn.h | grep -oE 'tarn_[a-z0-9_]+\($' | tr -d '('); do
    nm -D --defined-only "$P/lib/libtarn.so" | grep -q " $s\$" || missing="$missing $s"
done
[ -z "$missing" ] && ok "every tarn.h function is exported" || ko "not exported:$missing"

# pkg-config, out of tree (the example is copied away from the repository).
export PKG_CONFIG_PATH=$P/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$dest
mkdir -p "$tmp/user"; cp examples/query.c "$tmp/user/"
cflags=$(pkg-config --cflags tarn) && libs=$(pkg-config --libs tarn) && ok "pkg-config --cflags --libs tarn: $cflags $libs" || ko "pkg-config tarn"
[ "$(pkg-config --modversion tarn)" = "$ver" ] && ok "pkg-config --modversion = $ver" || ko "modversion $(pkg-config --modversion tarn)"
( cd "$tmp/user" && cc -std=c11 -Wall -Werror $san query.c $(pkg-config --cflags --libs tarn) -o query_shared ) \
    && ok "example builds with pkg-config (shared)" || ko "shared build"
( cd "$tmp/user" && cc -std=c11 -Wall -Werror $san query.c $(pkg-config --cflags tarn) "$P/lib/libtarn.a" $(pkg-config --static --libs tarn | sed 's/-ltarn\b//') -o query_static ) \
    && ok "example builds with pkg-config --static (static)" || ko "static build"
if ldd "$tmp/user/query_shared" 2>/dev/null | grep -q 'libtarn.so.0 => not found'; then ok "shared example needs libtarn.so.0"; else ko "ldd: $(ldd "$tmp/user/query_shared" | grep tarn)"; fi
if ldd "$tmp/user/query_static" 2>/dev/null | grep -q libtarn; then ko "static example links libtarn.so"; else ok "static example has no libtarn.so dependency"; fi
want=$(cd "$tmp" && "$TN_REPO/$BUILD/tarn" -w "$tmp/wh" --csv -c "SELECT origin, count(*) AS flights, avg(delay) AS avg_delay FROM read_parquet('$FLIGHTS') WHERE distance >= 1000 GROUP BY origin ORDER BY flights DESC, origin LIMIT 5" | tail -n +2)
got=$(cd "$tmp" && LD_LIBRARY_PATH=$P/lib ./user/query_shared "$FLIGHTS" 1000 | sed -n '2,6p')
[ -n "$want" ] && [ "$got" = "$want" ] && ok "shared example answers as tarn" || { ko "shared example"; echo "want: $want"; echo "got: $got"; }
got=$(cd "$tmp" && ./user/query_static "$FLIGHTS" 1000 | sed -n '2,6p')
[ -n "$want" ] && [ "$got" = "$want" ] && ok "static example answers as tarn" || ko "static example: $got"

# A program whose own names are libtarn-internal ones links and runs (no clash).
internal=$(nm -g --defined-only "$BUILD/libtarn.a" | awk '$2 == "T" && $3 !~ /^tarn_/ {print $3}' | sort -u | head -3)
{ echo '#include <stdio.h>'; echo '#include "tarn.h"'
  for s in $internal pq_compress; do echo "int $s(void); int $s(void) { return 7; }"; done
  echo 'int main(void) { printf("%s %d\n", tarn_version(), pq_compress()); return 0; }'; } > "$tmp/user/clash.c"
if ( cd "$tmp/user" && cc -std=c11 $san clash.c "$P/lib/libtarn.a" $(pkg-config --cflags tarn) $(pkg-config --static --libs tarn | sed 's/-ltarn\b//') -o clash ) 2>"$tmp/clash.err" \
    && [ "$("$tmp/user/clash")" = "$ver 7" ]; then ok "user functions named $(echo $internal | tr '\n' ' ')pq_compress link with libtarn.a"
else ko "name clash: $(head -3 "$tmp/clash.err")"; fi
if ( cd "$tmp/user" && cc -std=c11 $san clash.c $(pkg-config --cflags --libs tarn) -o clash_so ) && [ "$(LD_LIBRARY_PATH=$P/lib "$tmp/user/clash_so")" = "$ver 7" ]; then
    ok "and with libtarn.so"; else ko "name clash with libtarn.so"; fi

# The installed command.
v=$("$P/bin/tarn" --version)
[ "$v" = "tarn $ver" ] && ok "tarn --version: $v" || ko "--version: $v"
h=$("$P/bin/tarn" --help); hrc=$?
miss=""
for o in -w -c -f -cmd -init -csv -json -jsonlines -table -box -line -list -markdown -tabs -header -noheader -nullvalue -separator -bail -echo -timer -stats -batch -interactive --version --help "parquet schema" "parquet meta" "parquet cat" "parquet copy" demo DIR TARN_WAREHOUSE; do
    printf '%s' "$h" | grep -q -- "$o" || miss="$miss [$o]"
done
[ $hrc -eq 0 ] && [ -z "$miss" ] && ok "tarn --help lists every option and command" || ko "--help lacks:$miss"
"$P/bin/tarn" --bogus >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "unknown option --bogus" "$tmp/err" && ok "unknown option: exit 2 and named" || ko "unknown option rc=$rc"

# uninstall
if mk uninstall DESTDIR="$dest" PREFIX=/usr/local >"$tmp/un.log" 2>&1; then ok "make uninstall"; else ko "make uninstall: $(tail -3 "$tmp/un.log")"; fi
left=$(find "$dest" -not -type d)
[ -z "$left" ] && ok "uninstall removes every installed file" || ko "left behind: $left"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
