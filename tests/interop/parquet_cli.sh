#!/usr/bin/env bash
# tests/interop/parquet_cli.sh: the `tarn parquet` tools against other systems' files and
# DuckDB (the oracle in tests/oracle). Run from the repo root by scripts/run-tests.sh
# with $BUILD (default build). Checks:
#  (a) `parquet cat --csv` of every READ golden file equals DuckDB's reading (expected_duckdb/);
#  (b) `parquet copy` with each codec and with small row groups/pages: DuckDB reads the copy
#      exactly as it reads the input, finds statistics on every chunk and the codec asked for;
#  (c) `parquet schema` / `meta` name the right columns and types;
#  (d) bad input (missing, truncated, encrypted, nested) exits 1 naming the file and the
#      problem; usage errors exit 2; saved fuzz crashes (tests/fuzz/regressions) do not crash;
#  (e) `tarn demo` (synthetic and real data) is idempotent and DuckDB reads its output.
# Prints one line per check and ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
require_oracle
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
TARN=$BUILD/tarn
G=$GOLDEN_PARQUET
E=$G/expected_duckdb
DW=$G/local/duckdb_written
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tarn-pqcli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok()  { echo "pass $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
duck() { "$DUCK" "$@" 2>"$tmp/duck.err"; }

if [ ! -x "$TARN" ]; then bad "$TARN not built"; echo "$pass passed, $fail failed"; exit 1; fi

# Runs `tarn parquet cat --csv [ARGS] FILE` into $tmp/out.csv; compares with EXPECTED.
cat_check() {   # label expected file [cat args...]
    local label=$1 expected=$2 file=$3; shift 3
    "$TARN" parquet cat --csv "$@" "$file" >"$tmp/out.csv" 2>"$tmp/err"
    local rc=$?
    if [ $rc -ne 0 ]; then bad "$label: exit $rc: $(head -c 300 "$tmp/err")"; return 1; fi
    if cmp -s "$tmp/out.csv" "$expected"; then ok "$label ($(($(wc -l <"$expected") - 1)) rows)"; return 0; fi
    bad "$label: differs from $expected"
    diff "$expected" "$tmp/out.csv" | head -n 6 | sed 's/^/    /'
    return 1
}

# ---------------------------------------------------------------------------------------------
# (a) Golden files marked READ in golden/parquet/README.md.
strict=(alltypes_plain.parquet alltypes_plain.snappy.parquet alltypes_dictionary.parquet
    alltypes_tiny_pages.parquet alltypes_tiny_pages_plain.parquet binary.parquet
    int32_with_null_pages.parquet nan_in_stats.parquet single_nan.parquet
    rle_boolean_encoding.parquet dict-page-offset-zero.parquet
    column_chunk_key_value_metadata.parquet sort_columns.parquet
    binary_truncated_min_max.parquet data_index_bloom_encoding_stats.parquet
    data_index_bloom_encoding_with_length.parquet datapage_v1-uncompressed-checksum.parquet
    datapage_v1-snappy-compressed-checksum.parquet plain-dict-uncompressed-checksum.parquet
    rle-dict-snappy-checksum.parquet lz4_raw_compressed.parquet lz4_raw_compressed_larger.parquet
    concatenated_gzip_members.parquet delta_binary_packed.parquet delta_byte_array.parquet
    delta_length_byte_array.parquet delta_encoding_optional_column.parquet
    delta_encoding_required_column.parquet byte_stream_split.zstd.parquet
    datapage_v2_empty_datapage.snappy.parquet page_v2_empty_compressed.parquet)
for f in "${strict[@]}"; do cat_check "read data/$f" "$E/data/$f/data.csv" "$G/data/$f"; done
cat_check "read bad_data/ARROW-GH-43605.parquet" "$E/bad_data/ARROW-GH-43605.parquet/data.csv" \
    "$G/bad_data/ARROW-GH-43605.parquet"

# README: "READ or REJECT(type)": must match DuckDB, or refuse cleanly (exit 1 with a message).
for f in fixed_length_byte_array.parquet int32_decimal.parquet int64_decimal.parquet \
         byte_array_decimal.parquet fixed_length_decimal.parquet \
         fixed_length_decimal_legacy.parquet unknown-logical-type.parquet; do
    "$TARN" parquet cat --csv "$G/data/$f" >"$tmp/out.csv" 2>"$tmp/err"; rc=$?
    if [ $rc -eq 0 ] && cmp -s "$tmp/out.csv" "$E/data/$f/data.csv"; then ok "read data/$f"
    elif [ $rc -eq 1 ] && grep -q "^tarn: .*$f" "$tmp/err"; then ok "read data/$f: refused cleanly: $(head -c 200 "$tmp/err")"
    else bad "read data/$f: exit $rc, neither DuckDB's rows nor a clean refusal"; diff "$E/data/$f/data.csv" "$tmp/out.csv" | head -n 4; head -c 300 "$tmp/err"; fi
done

# FLOAT16 columns may be refused/ignored: full match, else the four FLOAT/DOUBLE columns.
f=floating_orders_nan_count.parquet
if "$TARN" parquet cat --csv "$G/data/$f" 2>/dev/null | cmp -s - "$E/data/$f/data.csv"; then
    ok "read data/$f (all 6 columns)"
else
    cols=float_ieee754,float_typedef,double_ieee754,double_typedef
    duck "SELECT COLUMNS(*)::VARCHAR FROM (SELECT $cols FROM read_parquet('$G/data/$f'))" >"$tmp/exp.csv"
    cat_check "read data/$f (FLOAT16 columns left out)" "$tmp/exp.csv" "$G/data/$f" --columns $cols
fi

# Files where DuckDB is wrong (README "Known DuckDB deviations"): only the rows/columns DuckDB
# gets right are compared here; the rest is covered by the reader's unit tests.
f=int96_from_spark.parquet
head -n 6 "$E/data/$f/data.csv" >"$tmp/exp.csv"
cat_check "read data/$f rows 1-5 (row 6: DuckDB overflows; reader unit tests)" "$tmp/exp.csv" \
    "$G/data/$f" --limit 5
f=byte_stream_split_extended.gzip.parquet
readable=$(head -n 1 "$E/data/$f/data_readable_columns.csv")
cat_check "read data/$f (columns DuckDB can read)" "$E/data/$f/data_readable_columns.csv" \
    "$G/data/$f" --columns "$readable"
for t in float16 float double int32 int64 flba5 decimal; do
    "$TARN" parquet cat --csv --columns "${t}_plain" "$G/data/$f" 2>"$tmp/err" | tail -n +2 >"$tmp/plain.csv"
    "$TARN" parquet cat --csv --columns "${t}_byte_stream_split" "$G/data/$f" 2>>"$tmp/err" | tail -n +2 >"$tmp/bss.csv"
    if [ -s "$tmp/plain.csv" ] && cmp -s "$tmp/plain.csv" "$tmp/bss.csv"; then ok "read data/$f: ${t}_byte_stream_split == ${t}_plain"
    elif grep -q "^tarn: .*$f" "$tmp/err" && [ "$t" = float16 ]; then ok "read data/$f: float16 refused cleanly"
    else bad "read data/$f: ${t}_byte_stream_split != ${t}_plain: $(head -c 200 "$tmp/err")"; fi
done

# ---------------------------------------------------------------------------------------------
# (b) copy, then DuckDB reads the copy as it reads the input. All copies are made first, then
# checked with a few batched DuckDB queries (one DuckDB start costs ~0.3 s).
declare -A CODEC_NAME=([zstd]=ZSTD [snappy]=SNAPPY [gzip]=GZIP [lz4_raw]=LZ4_RAW [none]=UNCOMPRESSED)
codecs=(zstd snappy gzip lz4_raw none)
copies=()       # "label|in|out|codec name|row groups wanted (or empty)"
do_copy() {     # label in out codec rgs [copy args...]
    local label=$1 in=$2 out=$3 codec=$4 rgs=$5; shift 5
    if "$TARN" parquet copy "$in" "$out" "$@" >"$tmp/copy.out" 2>"$tmp/copy.err"; then
        copies+=("$label|$in|$out|$codec|$rgs")
        COPY_MSG[$out]=$(head -n 1 "$tmp/copy.err")
    else
        bad "$label: copy failed (exit $?): $(head -c 300 "$tmp/copy.err")"
    fi
}
declare -A COPY_MSG
copy_variants() {   # in tag small_rgs
    local in=$1 tag=$2 rgs=$3 c
    for c in "${codecs[@]}"; do
        do_copy "copy $tag --codec $c" "$in" "$tmp/$tag.$c.parquet" "${CODEC_NAME[$c]}" "" --codec "$c"
    done
    do_copy "copy $tag --row-group-rows 1000 --page-rows 300" "$in" "$tmp/$tag.small.parquet" ZSTD "$rgs" \
        --row-group-rows 1000 --page-rows 300
}
for in in "$DW"/*.parquet; do copy_variants "$in" "$(basename "$in" .parquet)" 5; done
nflights_copies=0
if [ -f "$FLIGHTS" ]; then
    if [ "${TARN_SANITIZED:-0}" = 1 ]; then     # ASan: one codec (the small-pages variant is slow)
        do_copy "copy flights-3m --codec zstd" "$FLIGHTS" "$tmp/flights-3m.zstd.parquet" ZSTD "" --codec zstd
    else
        copy_variants "$FLIGHTS" flights-3m 3000
    fi
else
    bad "missing $FLIGHTS"
fi

# Rows: an ordered hash of every row's text (DuckDB's spelling), per file, input and copy.
row_query() {
    case $1 in
    *flights*) echo "SELECT '$1' AS f, count(*) || ';' || sum(delay) || ';' || sum(distance) || ';' || min(date)::VARCHAR
                 || ';' || max(date)::VARCHAR || ';' || count(DISTINCT origin) || ';' || count(DISTINCT destination)
                 || ';' || max(origin) || ';' || min(destination) || ';' || count(*) FILTER (WHERE delay IS NULL)
                 || ';' || sum(hash(file_row_number, date, delay, distance, origin, destination)::HUGEINT) AS h
                 FROM read_parquet('$1', file_row_number=true)";;
    *) echo "SELECT '$1' AS f, count(*) || ';' || md5(string_agg(t::VARCHAR, chr(10) ORDER BY file_row_number)) AS h
             FROM read_parquet('$1', file_row_number=true) t";;
    esac
}
declare -A ROWS META KV
files=(); for c in "${copies[@]}"; do IFS='|' read -r _ in out _ _ <<<"$c"; files+=("$in" "$out"); done
mapfile -t files < <(printf '%s\n' "${files[@]}" | sort -u)
if [ ${#files[@]} -gt 0 ]; then
    sql=""; for f in "${files[@]}"; do sql="${sql:+$sql UNION ALL }$(row_query "$f")"; done
    duck "$sql" --no-header >"$tmp/rows.csv" || bad "DuckDB rows query: $(head -c 300 "$tmp/duck.err")"
    while IFS=, read -r f h; do ROWS[$f]=$h; done <"$tmp/rows.csv"
    list=$(printf "'%s'," "${files[@]}"); list="[${list%,}]"
    duck "SELECT file_name, string_agg(DISTINCT compression, ' ') || ';' ||
                 count(*) FILTER (WHERE (stats_min_value IS NULL OR stats_max_value IS NULL)
                                  AND stats_null_count IS DISTINCT FROM num_values) || ';' ||
                 count(DISTINCT row_group_id) || ';' || count(*)
          FROM parquet_metadata($list) GROUP BY file_name" --no-header >"$tmp/meta.csv" ||
        bad "DuckDB metadata query: $(head -c 300 "$tmp/duck.err")"
    while IFS=, read -r f m; do META[$f]=$m; done <"$tmp/meta.csv"
    duck "SELECT file_name, string_agg(decode(key) || '=' || md5(coalesce(decode(value), '<null>')), ' ' ORDER BY key)
          FROM parquet_kv_metadata($list) GROUP BY file_name" --no-header >"$tmp/kv.csv" ||
        bad "DuckDB key-value query: $(head -c 300 "$tmp/duck.err")"
    while IFS=, read -r f k; do KV[$f]=$k; done <"$tmp/kv.csv"
fi
for c in "${copies[@]}"; do
    IFS='|' read -r label in out codec rgs <<<"$c"
    if [ -n "${ROWS[$in]:-}" ] && [ "${ROWS[$in]}" = "${ROWS[$out]:-}" ]; then
        ok "$label: DuckDB reads the same rows ($(echo "${ROWS[$in]}" | cut -d';' -f1) rows; ${COPY_MSG[$out]})"
    else
        bad "$label: DuckDB reads different rows: input ${ROWS[$in]:-?} copy ${ROWS[$out]:-?}"
    fi
    IFS=';' read -r got_codec no_stats nrg nchunks <<<"${META[$out]:-;;;}"
    if [ "$got_codec" = "$codec" ] && [ "$no_stats" = 0 ] && { [ -z "$rgs" ] || [ "$nrg" = "$rgs" ]; }; then
        ok "$label: metadata: $nrg row groups, $nchunks chunks, all $codec, min/max on every chunk"
    else
        bad "$label: metadata: codecs '$got_codec' (want $codec), $no_stats chunks without min/max, $nrg row groups (want ${rgs:-any})"
    fi
    kvs=${KV[$in]:-none}
    if [ "${KV[$in]:-}" = "${KV[$out]:-}" ]; then ok "$label: key-value metadata kept (${kvs:0:60})"
    else bad "$label: key-value metadata: input '${KV[$in]:-}' copy '${KV[$out]:-}'"; fi
done
# One full CSV comparison (the hashes above cover the other files).
f=$tmp/duckdb_v1_snappy.zstd.parquet
if [ -f "$f" ]; then
    duck "SELECT COLUMNS(*)::VARCHAR FROM read_parquet('$f')" >"$tmp/full.csv"
    if cmp -s "$tmp/full.csv" "$DW/expected.csv"; then ok "copy duckdb_v1_snappy --codec zstd: DuckDB's CSV of the copy == expected.csv"
    else bad "copy duckdb_v1_snappy --codec zstd: DuckDB's CSV of the copy differs from expected.csv"; diff "$DW/expected.csv" "$tmp/full.csv" | head -n 4; fi
fi
rm -f "$tmp"/*.parquet

# Copying over an existing OUT replaces it (written under a temporary name, then renamed).
cp "$DW/duckdb_uncompressed.parquet" "$tmp/over.parquet"
if "$TARN" parquet copy "$G/data/binary.parquet" "$tmp/over.parquet" 2>/dev/null &&
   [ "$(duck "SELECT count(*) FROM read_parquet('$tmp/over.parquet')" --no-header)" = 12 ] &&
   [ -z "$(ls -A "$tmp" | grep '\.tmp-')" ]; then ok "copy over an existing file replaces it, no temporary left"
else bad "copy over an existing file"; fi

# ---------------------------------------------------------------------------------------------
# (c) schema and meta.
"$TARN" parquet schema "$DW/duckdb_v1_snappy.parquet" >"$tmp/schema.txt" 2>&1
want=("id INTEGER" "k BIGINT" "s VARCHAR" "u VARCHAR" "d DATE" "ts TIMESTAMP" "tstz TIMESTAMPTZ"
      "x DOUBLE" "f FLOAT" "b BOOLEAN" "bl VARBINARY" "dec DECIMAL(18,3)")
missing=""
for w in "${want[@]}"; do
    name=${w%% *}; type=${w#* }
    grep -Eq "^$name +$(printf '%s' "$type" | sed 's/[()]/\\&/g') +OPTIONAL " "$tmp/schema.txt" || missing="$missing [$w]"
done
if [ -z "$missing" ] && grep -q "^5000 rows" "$tmp/schema.txt"; then ok "schema duckdb_v1_snappy: 12 columns with tarn types, 5000 rows"
else bad "schema duckdb_v1_snappy: missing$missing"; head -n 15 "$tmp/schema.txt" | sed 's/^/    /'; fi

"$TARN" parquet schema "$G/data/delta_encoding_required_column.parquet" >"$tmp/schema.txt" 2>&1
if grep -q " REQUIRED .*def 0, rep 0" "$tmp/schema.txt" && ! grep -q "OPTIONAL" "$tmp/schema.txt"; then ok "schema delta_encoding_required_column: REQUIRED columns, def 0"
else bad "schema delta_encoding_required_column: expected REQUIRED columns"; head -n 4 "$tmp/schema.txt"; fi

if [ -f "$FLIGHTS" ]; then
    "$TARN" parquet schema "$FLIGHTS" >"$tmp/schema.txt" 2>&1
    if grep -Eq '^date +TIMESTAMP +OPTIONAL INT64' "$tmp/schema.txt" && grep -Eq '^delay +BIGINT' "$tmp/schema.txt" &&
       grep -Eq '^origin +VARCHAR' "$tmp/schema.txt" && grep -q '^3000000 rows, 11 row groups' "$tmp/schema.txt"; then
        ok "schema flights-3m"
    else bad "schema flights-3m"; cat "$tmp/schema.txt"; fi
fi

"$TARN" parquet meta "$DW/duckdb_gzip_rowgroups.parquet" >"$tmp/meta.txt" 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -q GZIP "$tmp/meta.txt" && grep -q "tstz" "$tmp/meta.txt" && grep -q "dec" "$tmp/meta.txt"; then
    ok "meta duckdb_gzip_rowgroups: names the codec and the columns ($(wc -l <"$tmp/meta.txt") lines)"
else bad "meta duckdb_gzip_rowgroups: exit $rc"; head -n 10 "$tmp/meta.txt"; fi

# (c2) schema and meta of every golden file, flat and nested, and of Delta checkpoints (golden
# and tarn's own), field by field against DuckDB's parquet_schema() / parquet_metadata()
# (tests/interop/parquet_describe.mjs: the tree, levels, every leaf's column chunks).
"$DUCK" "COPY (SELECT [1, 2, NULL] AS l, {'a': 1, 'b': 'x'} AS s, MAP {'k': 1.5} AS m,
    [{'x': [1]}] AS ls, [[['a\\b' || chr(10) || 'c']]] AS deep, 42 AS flat FROM range(3))
    TO '$tmp/duck_nested.parquet'" >/dev/null
sql="CREATE TABLE ck (id INT, s VARCHAR) PARTITIONED BY (s);"
for i in $(seq 1 10); do sql="$sql INSERT INTO ck VALUES ($i, 'p$((i % 3))');"; done
"$TARN" -w "$tmp/ckwh" -c "$sql" >/dev/null 2>"$tmp/err" || head -n 3 "$tmp/err"
tarn_ck=$tmp/ckwh/ck/_delta_log/00000000000000000010.checkpoint.parquet
[ -f "$tarn_ck" ] && ok "tarn wrote a checkpoint after 10 commits" || bad "no tarn checkpoint at $tarn_ck"
describe=()
for f in "$G"/data/*.parquet "$G"/bad_data/*.parquet "$G"/local/*/*.parquet \
         tests/data/delta/*/_delta_log/*.checkpoint*.parquet "$tmp/duck_nested.parquet" "$tarn_ck"; do
    case $(basename "$f") in
        # DuckDB refuses to describe these: MAP_KEY_VALUE with one child (checked below),
        # GeoParquet metadata without geometry types, an out-of-range enum
        map_no_value.parquet|ARROW-GH-41317.parquet|ARROW-GH-41321.parquet|PARQUET-1481.parquet) continue ;;
    esac
    [ -f "$f" ] && describe+=("$f")
done
node tests/interop/parquet_describe.mjs "$TARN" "${describe[@]}" >"$tmp/describe.out" 2>&1
grep -v '^[0-9]* passed' "$tmp/describe.out"
dp=$(grep -c '^pass ' "$tmp/describe.out"); df=$(grep -c '^FAIL ' "$tmp/describe.out")
pass=$((pass + dp)); fail=$((fail + df))
nested=$(grep -c '^pass .*(nested)' "$tmp/describe.out")
missing=""
for n in datapage_v2.snappy incorrect_map_schema large_string_map.brotli list_columns nested_lists.snappy \
         nested_maps.snappy nested_structs.rust nonnullable.impala null_list nullable.impala nulls.snappy \
         old_list_structure repeated_no_annotation repeated_primitive_no_list ARROW-GH-45185 \
         ARROW-RS-GH-6229-LEVELS 00000000000000000010.checkpoint duck_nested; do
    grep -q "^pass $n.parquet: .*(nested)" "$tmp/describe.out" || missing="$missing $n"
done
if [ "$df" -eq 0 ] && [ "$dp" -eq "${#describe[@]}" ] && [ -z "$missing" ]; then ok "describe: ${#describe[@]} files equal to DuckDB's, $nested of them nested"
else bad "describe: $dp of ${#describe[@]} files equal to DuckDB's; nested files not checked:$missing"; fi
"$TARN" parquet schema "$G/data/map_no_value.parquet" >"$tmp/schema.txt" 2>&1
if grep -Eq '^my_map_no_v +MAP +REQUIRED group, 1 child, converted MAP, logical MAP, def 0, rep 0$' "$tmp/schema.txt" &&
   grep -Eq '^    key +INTEGER +REQUIRED INT32, def 1, rep 1, column 2$' "$tmp/schema.txt" &&
   grep -q '^3 rows, 1 row groups, 3 columns (4 leaf columns)$' "$tmp/schema.txt"; then ok "schema map_no_value (DuckDB refuses it): the one-child MAP described"
else bad "schema map_no_value"; cat "$tmp/schema.txt"; fi
"$TARN" parquet meta "$tarn_ck" >"$tmp/meta.txt" 2>&1
if grep -q "^  column [0-9]* 'add.partitionValues.key_value.key': VARCHAR (BYTE_ARRAY), def 3, rep 1$" "$tmp/meta.txt" &&
   grep -q "^  column [0-9]* 'metaData.partitionColumns.list.element': VARCHAR (BYTE_ARRAY), def 4, rep 1$" "$tmp/meta.txt"; then
    ok "meta of tarn's checkpoint: map and list leaves with their levels"
else bad "meta of tarn's checkpoint"; grep "column" "$tmp/meta.txt" | head; fi

# ---------------------------------------------------------------------------------------------
# (d) errors: exit 1 with "tarn: " + the file name + what is wrong; usage errors exit 2.
err_check() {   # label pattern(ERE, case-insensitive) file [subcommand]
    local label=$1 pat=$2 file=$3 sub=${4:-cat}
    "$TARN" parquet "$sub" "$file" >/dev/null 2>"$tmp/err"; local rc=$?
    local msg; msg=$(head -n 1 "$tmp/err")
    if [ $rc -eq 1 ] && [[ "$msg" == "tarn: "* ]] && grep -qF "$(basename "$file")" "$tmp/err" && grep -Eqi "$pat" "$tmp/err"; then
        ok "$label: exit 1: $msg"
    else bad "$label: exit $rc, message: $msg"; fi
}
err_check "missing file" "no such|not found|does not exist" "$tmp/does-not-exist.parquet"
head -c 3000 "$G/data/alltypes_tiny_pages.parquet" >"$tmp/truncated.parquet"
err_check "truncated file" "magic|truncat|corrupt|footer|short|too small|not a parquet" "$tmp/truncated.parquet"
head -c 5 "$G/data/alltypes_plain.parquet" >"$tmp/tiny.parquet"
err_check "5-byte file" "magic|truncat|corrupt|footer|short|too small|not a parquet" "$tmp/tiny.parquet" schema
err_check "encrypted footer" "encrypt" "$G/data/encrypt_columns_and_footer.parquet.encrypted"
err_check "encrypted columns" "encrypt" "$G/data/encrypt_columns_plaintext_footer.parquet.encrypted"
for f in nested_lists.snappy nested_maps.snappy list_columns; do
    "$TARN" parquet cat --csv "$G/data/$f.parquet" >"$tmp/out.csv" 2>"$tmp/err"; rc=$?
    if [ $rc -eq 0 ] && cmp -s "$tmp/out.csv" "$E/data/$f.parquet/data.csv"; then ok "nested file (cat) $f: DuckDB's values"
    else bad "nested file (cat) $f: exit $rc: $(head -n 1 "$tmp/err")"; fi
done
# nested files are copied (the writer shreds them again): DuckDB reads the copy as the original
for f in nested_lists.snappy nested_maps.snappy list_columns; do
    rm -f "$tmp/nested_copy.parquet"
    "$TARN" parquet copy "$G/data/$f.parquet" "$tmp/nested_copy.parquet" >/dev/null 2>"$tmp/err"; rc=$?
    "$DUCK" "SELECT COLUMNS(*)::VARCHAR FROM '$tmp/nested_copy.parquet'" >"$tmp/copy.csv" 2>&1
    "$DUCK" "SELECT COLUMNS(*)::VARCHAR FROM '$G/data/$f.parquet'" >"$tmp/orig.csv" 2>&1
    if [ $rc -eq 0 ] && cmp -s "$tmp/copy.csv" "$tmp/orig.csv"; then ok "nested file (copy) $f: DuckDB reads the copy as the original"
    else bad "nested file (copy) $f: exit $rc: $(head -n 1 "$tmp/err")"; diff "$tmp/orig.csv" "$tmp/copy.csv" | head -5; fi
done
# Deprecated LZ4 (codec 5): decoded (arrow-rs's values = lz4_raw_compressed's rows) or refused.
for f in hadoop_lz4_compressed.parquet non_hadoop_lz4_compressed.parquet; do
    "$TARN" parquet cat --csv "$G/data/$f" >"$tmp/out.csv" 2>"$tmp/err"; rc=$?
    if [ $rc -eq 0 ] && cmp -s "$tmp/out.csv" "$E/data/lz4_raw_compressed.parquet/data.csv"; then ok "deprecated LZ4 $f: decoded to arrow-rs's values"
    elif [ $rc -eq 1 ] && grep -Eqi "lz4|codec" "$tmp/err"; then ok "deprecated LZ4 $f: refused: $(head -n 1 "$tmp/err")"
    else bad "deprecated LZ4 $f: exit $rc"; fi
done
err_check "bad schema enum" "corrupt|invalid|type" "$G/bad_data/PARQUET-1481.parquet"
"$TARN" parquet cat --csv "$G/data/datapage_v1-corrupt-checksum.parquet" >/dev/null 2>"$tmp/err"; rc=$?
if [ $rc -eq 1 ] && grep -Eqi "crc|checksum" "$tmp/err"; then ok "corrupt page CRC: exit 1: $(head -n 1 "$tmp/err")"
else bad "corrupt page CRC: exit $rc: $(head -n 1 "$tmp/err")"; fi
"$TARN" parquet cat --columns nope "$DW/duckdb_v1_snappy.parquet" >/dev/null 2>"$tmp/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "nope" "$tmp/err"; then ok "unknown column: exit 1"; else bad "unknown column: exit $rc"; fi

usage_check() {
    "$TARN" "$@" >/dev/null 2>"$tmp/err"; local rc=$?
    if [ $rc -eq 2 ]; then ok "usage error exits 2: tarn $*"; else bad "tarn $*: exit $rc (want 2)"; fi
}
usage_check parquet
usage_check parquet frobnicate x.parquet
usage_check parquet cat
usage_check parquet cat --limit ten x.parquet
usage_check parquet copy only-in.parquet
usage_check parquet copy a.parquet b.parquet --codec nosuch
usage_check parquet copy a.parquet b.parquet --row-group-rows 0
usage_check parquet schema a.parquet b.parquet
usage_check nosuchdir "SELECT 1" extra-argument     # tarn [DIR [SQL]]: a third is a usage error
usage_check --nosuchoption
usage_check -c "SELECT 1" parquet schema x.parquet
# -c without the SQL front end linked in: "SQL is not available yet", exit 2; with it: runs.
"$TARN" -c "SELECT 1" >/dev/null 2>"$tmp/err"; rc=$?
if { [ $rc -eq 2 ] && grep -q "SQL is not available yet" "$tmp/err"; } || [ $rc -eq 0 ]; then ok "tarn -c 'SELECT 1': exit $rc"
else bad "tarn -c 'SELECT 1': exit $rc: $(head -n 1 "$tmp/err")"; fi
if "$TARN" --version | grep -Eq '^tarn [0-9]+\.[0-9]+'; then ok "--version"; else bad "--version"; fi
if "$TARN" --help | grep -q "parquet copy"; then ok "--help"; else bad "--help"; fi

# Saved fuzz findings must not crash the reader (exit 0 or 1, never a signal).
nreg=0; crashed=""
for r in tests/fuzz/regressions/*; do
    [ -f "$r" ] || continue
    nreg=$((nreg + 1))
    timeout 60 "$TARN" parquet cat "$r" >/dev/null 2>&1; rc=$?
    [ $rc -le 1 ] || crashed="$crashed $(basename "$r")(exit $rc)"
    for sub in meta schema; do
        timeout 60 "$TARN" parquet $sub "$r" >/dev/null 2>&1; rc=$?
        [ $rc -le 1 ] || crashed="$crashed $(basename "$r")($sub exit $rc)"
    done
done
if [ -z "$crashed" ]; then ok "fuzz regressions: $nreg files read and described (meta, schema) without a crash"; else bad "fuzz regressions crash:$crashed"; fi

# ---------------------------------------------------------------------------------------------
# (e) tarn demo: synthetic (TARN_DEMO_DATA names a missing file), twice; then the real dataset.
wh=$tmp/warehouse
for run in 1 2; do
    if TARN_DEMO_DATA=$tmp/no-such-file.parquet "$TARN" demo -w "$wh" >"$tmp/demo.out" 2>&1 &&
       [ "$(duck "SELECT count(*), count(DISTINCT origin) > 10 FROM read_parquet('$wh/demo/flights.parquet')" --no-header)" = "100000,true" ] &&
       [ -z "$(ls -A "$wh/demo" | grep -v '^flights.parquet$' | grep -v '^flights$')" ] && grep -q "compression" "$tmp/demo.out" &&
       [ "$("$TARN" -w "$wh" -c "SELECT count(*), count(DISTINCT origin) > 10 FROM demo.flights" --csv | tail -n 1)" = "100000,true" ]; then
        ok "demo (synthetic) run $run: 100000 rows in the file and in table demo.flights, nothing else left in $wh/demo"
    else bad "demo (synthetic) run $run"; head -n 20 "$tmp/demo.out"; ls -A "$wh/demo"; fi
done
if [ -f "$FLIGHTS" ] && [ "${TARN_SANITIZED:-0}" != 1 ]; then
    if "$TARN" demo -w "$wh" >"$tmp/demo.out" 2>&1 &&
       [ "$(duck "SELECT count(*) FROM read_parquet('$wh/demo/flights.parquet')" --no-header)" = 3000000 ]; then
        ok "demo (flights-3m): $(grep -E '^(compression|time)' "$tmp/demo.out" | tr -s ' ' | tr '\n' ' ')"
    else bad "demo (flights-3m)"; head -n 20 "$tmp/demo.out"; fi
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
