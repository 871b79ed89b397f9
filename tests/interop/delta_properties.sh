#!/usr/bin/env bash
# tests/interop/delta_properties.sh: Delta table properties are honoured or refused, never
# ignored (issue 16 item 8). Through tarn's SQL: delta.appendOnly (the appendOnly writer feature
# on writer-7 tables; DELETE and overwrites refused), CHECK constraints (ALTER TABLE ADD/DROP
# CONSTRAINT, delta.constraints.*, writer 3, Delta's error texts, every write checked), change
# data feed (_change_data files, cdc actions, table_changes), column mapping name/id (physical
# names and field ids in the Parquet files, RENAME/DROP COLUMN without rewriting), deletion
# vectors written by DELETE, delta.checkpoint.writeStatsAsStruct/AsJson, delta.checkpointInterval,
# delta.feature.*, refused properties and generated/identity/invariant columns of tables other
# engines wrote, NaN partition values, timestamp stats, DELETE predicates. The expected
# values come from the protocol text, from DuckDB (parquet_schema, read_parquet of the files)
# and from arithmetic on the inserted data, never from tarn. Every table is then validated by
# the Delta-protocol checker (tn_cleanup). Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$BUILD/tarn
pass=0; fail=0
require_bin "$BIN"
require_oracle
dir=$(mktemp -d /tmp/tn_props.XXXXXX)
trap 'tn_cleanup "$dir"' EXIT   # checks every table written, then removes
wh=$dir/wh

ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && echo "    $2" | head -c 2000; echo; }
run() {   # run SQL that must succeed
    if ! "$BIN" -w "$wh" --csv -c "$1" >"$dir/out" 2>"$dir/err"; then bad "setup: $1" "$(cat "$dir/err")"; return 1; fi
}
q() { "$BIN" -w "$wh" --csv -c "$1" 2>&1; }
expect() {   # expect NAME SQL EXPECTED-OUTPUT
    local got; got=$(q "$2")
    if [ "$got" = "$3" ]; then ok "$1"; else bad "$1" "got: $got | expected: $3"; fi
}
expect_error() {   # expect_error NAME SQL SUBSTRING (the statement must fail with it)
    local got rc
    got=$("$BIN" -w "$wh" -c "$2" 2>&1); rc=$?
    if [ $rc -ne 0 ] && [[ "$got" == *"$3"* ]]; then ok "$1"; else bad "$1" "rc=$rc got: $got | expected an error with: $3"; fi
}
json() {   # json NAME PYTHON-EXPR-ON-commit-list  (commits of table dir $T as lists of dicts)
    local r
    r=$(python3 - "$T" "$2" <<'EOF'
import json, os, sys
t, expr = sys.argv[1], sys.argv[2]
log = os.path.join(t, "_delta_log")
commits = []
for n in sorted(os.listdir(log)):
    if n.endswith(".json") and len(n) == 25:
        commits.append([json.loads(l) for l in open(os.path.join(log, n)) if l.strip()])
def proto(v=None):
    p = None
    for c in commits[: (v + 1) if v is not None else None]:
        for a in c:
            if "protocol" in a: p = a["protocol"]
    return p
def acts(v, k): return [a[k] for a in commits[v] if k in a]
print("yes" if eval(expr) else "no: " + json.dumps(eval(expr.split(" ==")[0]) if " ==" in expr else None, default=str)[:500])
EOF
)
    if [ "$r" = yes ]; then ok "$1"; else bad "$1" "$r"; fi
}

# --- refused and validated properties --------------------------------------------------------
expect_error unknown_delta_property_refused "CREATE TABLE r1 (x INT) TBLPROPERTIES ('delta.notAThing' = 'true')" "unknown Delta table property 'delta.notAThing'"
expect_error unhonoured_property_refused_by_name "CREATE TABLE r1 (x INT) TBLPROPERTIES ('delta.enableRowTracking' = 'true')" "delta.enableRowTracking is not supported"
expect_error bad_value_named "CREATE TABLE r1 (x INT) TBLPROPERTIES ('delta.appendOnly' = 'yes')" "delta.appendOnly = 'yes' is not a valid value"
run "CREATE TABLE r1 (x INT)"
expect_error alter_refuses_unhonoured "ALTER TABLE r1 SET TBLPROPERTIES ('delta.enableTypeWidening' = 'true')" "delta.enableTypeWidening is not supported"
expect_error alter_refuses_v2_checkpoints "ALTER TABLE r1 SET TBLPROPERTIES ('delta.checkpointPolicy' = 'v2')" "delta.checkpointPolicy = 'v2' is not supported"
expect_error unknown_feature_refused "ALTER TABLE r1 SET TBLPROPERTIES ('delta.feature.noSuchFeature' = 'supported')" "unknown Delta table feature 'noSuchFeature'"
run "ALTER TABLE r1 SET TBLPROPERTIES ('delta.feature.appendOnly' = 'supported')"
T=$wh/r1 json feature_request_lists_it "proto()['minWriterVersion'] == 7 and 'appendOnly' in proto()['writerFeatures'] and not any('delta.feature.appendOnly' in (a.get('metaData') or {}).get('configuration', {}) for c in commits for a in c)"
run "ALTER TABLE r1 SET TBLPROPERTIES ('delta.APPENDONLY' = 'false')"
T=$wh/r1 json property_spelling_canonical "acts(2, 'metaData')[0]['configuration'].get('delta.appendOnly') == 'false'"

# --- append-only ----------------------------------------------------------------------------
run "CREATE TABLE ao (x INT, t TIMESTAMP) TBLPROPERTIES ('delta.appendOnly' = 'true')"
T=$wh/ao json appendonly_feature_on_writer7 "proto()['minWriterVersion'] == 7 and 'appendOnly' in proto()['writerFeatures'] and 'timestampNtz' in proto()['readerFeatures']"
run "CREATE TABLE ao2 (x INT) TBLPROPERTIES ('delta.appendOnly' = 'true')"
T=$wh/ao2 json appendonly_legacy_writer2 "proto() == {'minReaderVersion': 1, 'minWriterVersion': 2}"
run "INSERT INTO ao VALUES (1, TIMESTAMP '2024-01-01 00:00:00')"
expect_error appendonly_refuses_delete "DELETE FROM ao WHERE x = 1" "append-only"
expect_error appendonly_refuses_overwrite "INSERT OVERWRITE ao SELECT * FROM ao" "append-only"
expect appendonly_data_kept "SELECT count(*) FROM ao" $'count_star()\n1'

# --- CHECK constraints ----------------------------------------------------------------------
run "CREATE TABLE ck (a INT, b INT, s STRING)"
run "INSERT INTO ck VALUES (1, 2, 'x'), (-5, 3, 'y')"
expect_error add_constraint_checks_rows "ALTER TABLE ck ADD CONSTRAINT positive CHECK (a > 0)" "1 rows in ck violate the new CHECK constraint (a > 0)"
T=$wh/ck json failed_add_constraint_commits_nothing "len(commits) == 2"
run "DELETE FROM ck WHERE a < 0"
run "ALTER TABLE ck ADD CONSTRAINT Positive CHECK (a > 0)"
run "ALTER TABLE ck ADD CONSTRAINT ordered CHECK (a < b)"
T=$wh/ck json constraint_declared_writer3 "proto()['minWriterVersion'] == 3 and acts(len(commits)-1, 'metaData')[0]['configuration'].get('delta.constraints.ordered') == 'a < b' and 'delta.constraints.positive' in acts(len(commits)-1, 'metaData')[0]['configuration']"
expect_error insert_violating_refused_with_values "INSERT INTO ck VALUES (100, 50, 'z')" $'CHECK constraint ordered (a < b) violated by row with values:\n - a : 100\n - b : 50'
expect_error null_violates "INSERT INTO ck VALUES (NULL, 5, 'n')" $'CHECK constraint positive (a > 0) violated by row with values:\n - a : null'
expect_error duplicate_constraint "ALTER TABLE ck ADD CONSTRAINT positive CHECK (b > 0)" "Constraint 'positive' already exists"
expect constraint_write_left_table_unchanged "SELECT count(*) FROM ck" $'count_star()\n1'
run "INSERT INTO ck SELECT a + 1, b + 10, s FROM ck"
expect valid_rows_still_written "SELECT count(*) FROM ck" $'count_star()\n2'
run "ALTER TABLE ck DROP CONSTRAINT ordered"
run "INSERT INTO ck VALUES (100, 50, 'z')"
expect_error drop_missing_constraint "ALTER TABLE ck DROP CONSTRAINT ordered" "Cannot drop nonexistent constraint ordered"
run "ALTER TABLE ck DROP CONSTRAINT IF EXISTS ordered"
run "CREATE TABLE ck2 (a INT) TBLPROPERTIES ('delta.constraints.small' = 'a < 10')"
expect_error create_constraint_enforced "INSERT INTO ck2 VALUES (3), (11)" "CHECK constraint small (a < 10) violated by row with values:"
run "INSERT INTO ck2 VALUES (3)"
expect_error set_constraint_checks_rows "ALTER TABLE ck2 SET TBLPROPERTIES ('delta.constraints.big' = 'a > 5')" "1 rows in ck2 violate the new CHECK constraint (a > 5)"
expect_error ctas_checked "CREATE TABLE ck3 TBLPROPERTIES ('delta.constraints.c' = 'x > 0') AS SELECT -1 AS x" "CHECK constraint c (x > 0) violated"

# --- change data feed -----------------------------------------------------------------------
run "CREATE TABLE cdf (id INT, p STRING) PARTITIONED BY (p) TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')"
run "INSERT INTO cdf VALUES (1, 'a'), (2, 'b'), (3, 'a'), (4, 'b')"
run "DELETE FROM cdf WHERE id % 2 = 1"
T=$wh/cdf json cdf_writer4 "proto()['minWriterVersion'] == 4"
T=$wh/cdf json delete_writes_cdc_actions "len(acts(2, 'cdc')) == 1 and acts(2, 'cdc')[0]['path'].startswith('_change_data/p=a/') and acts(2, 'cdc')[0]['dataChange'] is False"
cdcfile=$(ls "$wh"/cdf/_change_data/p=a/*.parquet 2>/dev/null | head -1)
got=$("$DUCK" "SELECT string_agg(id::VARCHAR || ':' || _change_type, ',' ORDER BY id) AS r FROM read_parquet('$cdcfile')" 2>&1)
if [ "$got" = $'r\n"1:delete,3:delete"' ]; then ok cdc_file_rows_read_by_duckdb; else bad cdc_file_rows_read_by_duckdb "$got"; fi
run "INSERT OVERWRITE cdf SELECT id * 10, p FROM cdf"
expect table_changes_all "SELECT id, p, _change_type, _commit_version FROM table_changes('cdf', 0) ORDER BY _commit_version, _change_type, id" \
$'id,p,_change_type,_commit_version\n1,a,insert,1\n2,b,insert,1\n3,a,insert,1\n4,b,insert,1\n1,a,delete,2\n3,a,delete,2\n2,b,delete,3\n4,b,delete,3\n20,b,insert,3\n40,b,insert,3'
expect table_changes_range "SELECT count(*) FROM table_changes('cdf', 2, 2)" $'count_star()\n2'
ts=$(q "SELECT max(_commit_timestamp)::VARCHAR AS t FROM table_changes('cdf', 3)" | tail -1)
expect table_changes_by_timestamp "SELECT count(*) FROM table_changes('cdf', '$ts')" $'count_star()\n4'
expect_error table_changes_needs_cdf "SELECT * FROM table_changes('ck', 0)" "change data feed is not enabled"
expect_error table_changes_bad_range "SELECT * FROM table_changes('cdf', 3, 1)" "End cannot be before start"

# --- column mapping -------------------------------------------------------------------------
run "CREATE TABLE cm (id INT, name STRING, d DATE) PARTITIONED BY (d) TBLPROPERTIES ('delta.columnMapping.mode' = 'name')"
run "INSERT INTO cm VALUES (1, 'one', DATE '2024-01-01'), (2, 'two', DATE '2024-01-02')"
T=$wh/cm json column_mapping_reader2_writer5 "proto() == {'minReaderVersion': 2, 'minWriterVersion': 5}"
T=$wh/cm json physical_names_in_schema "all(f['metadata']['delta.columnMapping.physicalName'].startswith('col-') and isinstance(f['metadata']['delta.columnMapping.id'], int) for f in json.loads(acts(0, 'metaData')[0]['schemaString'])['fields'])"
cmfile=$(find "$wh/cm" -name '*.parquet' -not -path '*_delta_log*' | head -1)
got=$("$DUCK" "SELECT string_agg(name, ',' ORDER BY name) AS n, count(field_id) AS ids FROM parquet_schema('$cmfile') WHERE name <> 'spark_schema'" 2>&1)
if [[ "$got" == *'col-'*'col-'*',2' ]] && [[ "$got" != *'"id"'* ]]; then ok parquet_physical_names_and_field_ids; else bad parquet_physical_names_and_field_ids "$got"; fi
nfiles=$(find "$wh/cm" -name '*.parquet' -not -path '*_delta_log*' | wc -l)
run "ALTER TABLE cm RENAME COLUMN name TO label"
run "ALTER TABLE cm DROP COLUMN id"
expect rename_drop_metadata_only "SELECT label, d FROM cm ORDER BY label" $'label,d\none,2024-01-01\ntwo,2024-01-02'
n2=$(find "$wh/cm" -name '*.parquet' -not -path '*_delta_log*' | wc -l)
if [ "$nfiles" = "$n2" ]; then ok rename_drop_rewrote_nothing; else bad rename_drop_rewrote_nothing "$nfiles -> $n2"; fi
run "ALTER TABLE cm ADD COLUMN extra BIGINT"
run "INSERT INTO cm (label, d, extra) VALUES ('three', DATE '2024-01-01', 7)"
expect column_added_under_mapping "SELECT label, extra FROM cm ORDER BY label" $'label,extra\none,\nthree,7\ntwo,'
run "CREATE TABLE cmid (id INT, v STRING) TBLPROPERTIES ('delta.columnMapping.mode' = 'id')"
run "INSERT INTO cmid VALUES (5, 'five')"
idfile=$(find "$wh/cmid" -name '*.parquet' -not -path '*_delta_log*' | head -1)
got=$("$DUCK" "SELECT string_agg(field_id::VARCHAR, ',' ORDER BY field_id) AS f FROM parquet_schema('$idfile') WHERE name <> 'spark_schema'" 2>&1)
if [ "$got" = $'f\n"1,2"' ]; then ok id_mode_field_ids; else bad id_mode_field_ids "$got"; fi
run "CREATE TABLE cmup (a INT, b STRING)"
run "INSERT INTO cmup VALUES (1, 'x')"
expect_error rename_needs_mapping "ALTER TABLE cmup RENAME COLUMN b TO c" "RENAME COLUMN needs column mapping"
run "ALTER TABLE cmup SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name')"
run "ALTER TABLE cmup RENAME COLUMN b TO c"
expect existing_table_mapping_enabled "SELECT a, c FROM cmup" $'a,c\n1,x'
expect_error mapping_to_id_refused "ALTER TABLE cmup SET TBLPROPERTIES ('delta.columnMapping.mode' = 'id')" "is not supported"

# --- deletion vectors -----------------------------------------------------------------------
"$DUCK" "COPY (SELECT i::INT AS i, (i % 3)::INT AS g FROM range(30000) t(i)) TO '$dir/r.parquet'" >/dev/null
run "CREATE TABLE dv (i INT, g INT) PARTITIONED BY (g) TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')"
run "INSERT INTO dv SELECT i, g FROM read_parquet('$dir/r.parquet')"
before=$(find "$wh/dv" -name '*.parquet' -not -path '*_delta_log*' | sort)
run "DELETE FROM dv WHERE i % 7 = 0"
run "DELETE FROM dv WHERE i % 11 = 0 OR i < 5"
after=$(find "$wh/dv" -name '*.parquet' -not -path '*_delta_log*' | sort)
if [ "$before" = "$after" ]; then ok dv_delete_rewrites_no_data_file; else bad dv_delete_rewrites_no_data_file; fi
if ls "$wh"/dv/deletion_vector_*.bin >/dev/null 2>&1; then ok dv_files_written; else bad dv_files_written; fi
T=$wh/dv json dv_protocol "proto()['minReaderVersion'] == 3 and 'deletionVectors' in proto()['readerFeatures'] and 'deletionVectors' in proto()['writerFeatures']"
T=$wh/dv json dv_descriptors_with_numrecords "all('deletionVector' in a and json.loads(a['stats'])['numRecords'] == 10000 and json.loads(a['stats'])['tightBounds'] is False for a in acts(3, 'add'))"
want=$("$DUCK" "SELECT count(*) AS n, sum(i) AS s FROM read_parquet('$dir/r.parquet') WHERE i % 7 <> 0 AND i % 11 <> 0 AND i >= 5" | tail -1)
expect dv_rows_gone "SELECT count(*) AS n, sum(i) AS s FROM dv" "n,s
$want"
run "CREATE TABLE cow (i INT) TBLPROPERTIES ('delta.enableDeletionVectors' = 'false')"
run "INSERT INTO cow VALUES (1), (2)"
run "DELETE FROM cow WHERE i = 1"
T=$wh/cow json copy_on_write_without_dvs "not any('deletionVector' in a for a in acts(2, 'add')) and len(acts(2, 'add')) == 1"
run "CREATE TABLE dvcdf (i INT) TBLPROPERTIES ('delta.enableDeletionVectors' = 'true', 'delta.enableChangeDataFeed' = 'true')"
run "INSERT INTO dvcdf VALUES (1), (2), (3)"
run "DELETE FROM dvcdf WHERE i = 2"
expect dv_delete_in_change_feed "SELECT i, _change_type FROM table_changes('dvcdf', 2)" $'i,_change_type\n2,delete'

# --- checkpoints ----------------------------------------------------------------------------
run "CREATE TABLE cp (x INT, s STRING, d DATE, p STRING) PARTITIONED BY (p) TBLPROPERTIES ('delta.checkpointInterval' = '3', 'delta.checkpoint.writeStatsAsStruct' = 'true')"
for i in 1 2 3 4 5 6 7; do run "INSERT INTO cp VALUES ($i, 's$i', DATE '2024-01-0$i', 'p$((i % 2))')"; done
if [ -f "$wh/cp/_delta_log/00000000000000000003.checkpoint.parquet" ] && [ -f "$wh/cp/_delta_log/00000000000000000006.checkpoint.parquet" ] && \
   [ ! -f "$wh/cp/_delta_log/00000000000000000005.checkpoint.parquet" ]; then ok checkpoint_interval_3; else bad checkpoint_interval_3 "$(ls "$wh/cp/_delta_log")"; fi
got=$("$DUCK" "SELECT string_agg(add.stats_parsed.minValues.x::VARCHAR || '/' || add.stats_parsed.maxValues.d::VARCHAR || '/' || add.partitionValues_parsed.p, ',' ORDER BY add.stats_parsed.minValues.x) AS r FROM read_parquet('$wh/cp/_delta_log/00000000000000000006.checkpoint.parquet') WHERE add IS NOT NULL" 2>&1)
if [ "$got" = $'r\n"1/2024-01-01/p1,2/2024-01-02/p0,3/2024-01-03/p1,4/2024-01-04/p0,5/2024-01-05/p1,6/2024-01-06/p0"' ]; then ok stats_parsed_typed; else bad stats_parsed_typed "$got"; fi
run "ALTER TABLE cp SET TBLPROPERTIES ('delta.checkpoint.writeStatsAsJson' = 'false', 'delta.checkpointInterval' = '2')"
run "INSERT INTO cp VALUES (9, 's9', DATE '2024-01-09', 'p1')"
T=$wh/cp json stats_config_writer3 "proto()['minWriterVersion'] >= 3"
got=$("$DUCK" "SELECT count(*) AS n FROM (DESCRIBE SELECT add.* FROM read_parquet('$wh/cp/_delta_log/00000000000000000008.checkpoint.parquet')) WHERE column_name = 'stats'" 2>&1)
if [ "$got" = $'n\n0' ]; then ok write_stats_as_json_false; else bad write_stats_as_json_false "$got"; fi
expect read_after_checkpoints "SELECT count(*), sum(x) FROM cp" $'count_star(),sum(x)\n8,37'

# --- tables other engines wrote: generated, identity, invariant columns ---------------------
mk_table() {   # mk_table DIR PROTOCOL-JSON FIELD-METADATA-JSON
    mkdir -p "$1/_delta_log"
    local schema="{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"integer\",\"nullable\":true,\"metadata\":$3},{\"name\":\"b\",\"type\":\"integer\",\"nullable\":true,\"metadata\":{}}]}"
    python3 -c 'import json,sys; print(json.dumps({"protocol": json.loads(sys.argv[1])})); print(json.dumps({"metaData": {"id": "x", "format": {"provider": "parquet", "options": {}}, "schemaString": sys.argv[2], "partitionColumns": [], "configuration": {}, "createdTime": 0}}))' "$2" "$schema" >"$1/_delta_log/00000000000000000000.json"
}
mk_table "$wh/gen" '{"minReaderVersion":1,"minWriterVersion":4}' '{"delta.generationExpression":"b * 2"}'
mk_table "$wh/ident" '{"minReaderVersion":1,"minWriterVersion":6}' '{"delta.identity.start":1,"delta.identity.step":1,"delta.identity.allowExplicitInsert":false}'
mk_table "$wh/inv" '{"minReaderVersion":1,"minWriterVersion":2}' '{"delta.invariants":"{\"expression\":{\"expression\":\"a > 3\"}}"}'
expect_error generated_column_refused "INSERT INTO gen VALUES (2, 1)" "column 'a' is a generated column (delta.generationExpression = 'b * 2')"
expect_error identity_column_refused "INSERT INTO ident VALUES (2, 1)" "column 'a' is an identity column"
expect_error invariant_enforced "INSERT INTO inv VALUES (2, 1)" "Invariant (a > 3) violated for column: a"
run "INSERT INTO inv VALUES (5, 1)"
expect invariant_valid_rows_written "SELECT a, b FROM inv" $'a,b\n5,1'

# --- NaN partitions, timestamp stats, DELETE predicate --------------------------------------
run "CREATE TABLE nanp (x INT, f DOUBLE) PARTITIONED BY (f)"
run "INSERT INTO nanp VALUES (1, 'nan'::DOUBLE), (2, 'inf'::DOUBLE), (3, 1.0)"
T=$wh/nanp json nan_partition_spelled_NaN "sorted(a['partitionValues']['f'] for a in acts(1, 'add')) == ['1.0', 'Infinity', 'NaN']"
if [ -d "$wh/nanp/f=NaN" ]; then ok nan_partition_directory; else bad nan_partition_directory "$(ls "$wh/nanp")"; fi
expect nan_partition_reads_back "SELECT x FROM nanp WHERE f > 2 ORDER BY x" $'x\n1\n2'
run "CREATE TABLE ts (t TIMESTAMPTZ)"
run "INSERT INTO ts VALUES (TIMESTAMPTZ '2024-01-01 10:00:00.123999+00'), (TIMESTAMPTZ '2024-01-01 09:00:00.000001+00')"
T=$wh/ts json timestamp_stats_truncated_to_ms "json.loads(acts(1, 'add')[0]['stats'])['maxValues']['t'] == '2024-01-01T10:00:00.123Z' and json.loads(acts(1, 'add')[0]['stats'])['minValues']['t'] == '2024-01-01T09:00:00.000Z'"
expect timestamp_skipping_correct "SELECT count(*) FROM ts WHERE t = TIMESTAMPTZ '2024-01-01 10:00:00.123999+00'" $'count_star()\n1'
expect timestamp_skipping_correct_gt "SELECT count(*) FROM ts WHERE t > TIMESTAMPTZ '2024-01-01 10:00:00.1235+00'" $'count_star()\n1'
run "CREATE TABLE dp (id INT, v STRING)"
run "INSERT INTO dp VALUES (1, 'a'), (2, 'b')"
run "DELETE FROM dp WHERE id = 1"
T=$wh/dp json delete_predicate_names_column "json.loads(acts(2, 'commitInfo')[0]['operationParameters']['predicate']) == ['id = 1']"

run "CREATE TABLE nic (a INT, b INT, c INT) TBLPROPERTIES ('delta.dataSkippingNumIndexedCols' = '2')"
run "INSERT INTO nic VALUES (1, 2, 3)"
T=$wh/nic json num_indexed_cols_honoured "sorted(json.loads(acts(1, 'add')[0]['stats'])['nullCount']) == ['a', 'b'] and sorted(json.loads(acts(1, 'add')[0]['stats'])['minValues']) == ['a', 'b']"
expect num_indexed_cols_skipping_still_correct "SELECT count(*) FROM nic WHERE c = 3" $'count_star()\n1'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
