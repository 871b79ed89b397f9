#!/usr/bin/env node
// tests/interop/parquet_describe.mjs: `tarn parquet schema` and `tarn parquet meta` against
// DuckDB's parquet_schema() and parquet_metadata(), field by field, for the files named on the
// command line (flat and nested). Run by tests/interop/parquet_cli.sh.
//
// usage: node parquet_describe.mjs TARN FILE...
// Per file, the schema tree: every element's name, nesting (num_children), repetition,
// physical type and length, converted type (with DECIMAL precision/scale), logical type,
// field_id, and the max definition/repetition levels (computed here from DuckDB's
// repetition_type and the tree) and leaf column numbers. Per row group and leaf column chunk:
// path_in_schema, physical type, codec, encodings, num_values, sizes, file/data/dictionary/
// index page offsets, the statistics fields (min_value/max_value with their exactness, the
// deprecated min/max, null_count, distinct_count), bloom filter offset/length and the chunk's
// key-value metadata; per row group rows, columns, bytes and compressed bytes.
// Prints "pass <file>: ..." or "FAIL <file>: <field>: tarn X, duckdb Y" per file and ends
// with "N passed, N failed"; exit 1 when any failed.
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const require = createRequire(path.join(here, '../oracle/package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

const [tarn, ...files] = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:', {
  autoinstall_known_extensions: 'false',
  extension_directory: path.join(here, '../oracle/duckdb_extensions'),
});
const conn = await inst.connect();

async function rows(sql) {
  const r = await conn.runAndReadAll(sql);
  const names = r.columnNames();
  return r.getRows().map((row) => Object.fromEntries(row.map((v, i) =>
    [names[i], v === null || v === undefined ? null : String(v)])));
}
const q = (s) => "'" + s.replace(/'/g, "''") + "'";

// DuckDB prints the Thrift LogicalType struct; tarn prints DECIMAL(10,2), TIMESTAMP(MICROS,
// utc=false), INTEGER(8, signed), STRING...
function logicalFromDuck(s) {
  if (s === null || s === '') return null;
  let m;
  if ((m = /^DecimalType\(scale=(-?\d+), precision=(\d+)\)$/.exec(s))) return `DECIMAL(${m[2]},${m[1]})`;
  if ((m = /^(Timestamp|Time)Type\(isAdjustedToUTC=(\d), unit=TimeUnit\((.*)\)\)$/.exec(s))) {
    const unit = /MILLIS=MilliSeconds/.test(m[3]) ? 'MILLIS' : /MICROS=MicroSeconds/.test(m[3]) ? 'MICROS'
               : /NANOS=NanoSeconds/.test(m[3]) ? 'NANOS' : '?';
    return `${m[1].toUpperCase()}(${unit}, utc=${m[2] === '1' ? 'true' : 'false'})`;
  }
  // DuckDB prints bitWidth (an i8) as a character: "bitWidth=\b" is 8
  if ((m = /^IntType\(bitWidth=(\d+|.), isSigned=(\d)\)$/s.exec(s))) {
    const bits = /^\d+$/.test(m[1]) && m[1].length > 1 ? m[1] : String(m[1].charCodeAt(0));
    return `INTEGER(${bits}, ${m[2] === '1' ? 'signed' : 'unsigned'})`;
  }
  const simple = { StringType: 'STRING', MapType: 'MAP', ListType: 'LIST', EnumType: 'ENUM', DateType: 'DATE',
                   NullType: 'UNKNOWN', JsonType: 'JSON', BsonType: 'BSON', UUIDType: 'UUID', Float16Type: 'FLOAT16' };
  if ((m = /^(\w+)\(\)$/.exec(s)) && simple[m[1]]) return simple[m[1]];
  return `(duckdb: ${s})`;
}

// tarn schema lines: "<indent>name  KIND  REPETITION rest, def D, rep R[, column N]"
function parseTarnSchema(text) {
  const out = [];
  for (const line of text.split('\n')) {
    const m = /^( *)(\S(?:.*?\S)?)  +(\S+)  +(REQUIRED|OPTIONAL|REPEATED|\(no repetition\)) (.*)$/.exec(line);
    if (!m) continue;
    const e = { depth: m[1].length / 2 + 1, name: m[2], kind: m[3], repetition: m[4], fields: {} };
    const parts = m[5].split(', ');
    const first = parts.shift();
    if (first === 'group') {
      const c = /^(\d+) child/.exec(parts.shift() || '');
      e.physical = null;
      e.num_children = c ? c[1] : '?';
    } else {
      const p = /^(\w+)(?:\((\d+)\))?$/.exec(first);
      e.physical = p ? p[1] : first;
      e.type_length = p && p[2] !== undefined ? p[2] : null;
      e.num_children = null;
    }
    // the rest: "converted X", "logical Y" (may hold ", "), "field_id N", "def D", "rep R", "column N"
    let rest = parts.join(', ');
    for (const key of ['column', 'rep', 'def', 'field_id']) {
      const r = new RegExp(`(?:, |^)${key} (-?\\d+)$`).exec(rest);
      if (r) { e.fields[key] = r[1]; rest = rest.slice(0, r.index); }
    }
    const lg = /(?:, |^)logical (.*)$/.exec(rest);
    if (lg) { e.fields.logical = lg[1]; rest = rest.slice(0, lg.index); }
    const cv = /(?:^|, )converted (\w+)(?:\((\d+),(\d+)\))?$/.exec(rest);
    if (cv) { e.fields.converted = cv[1]; e.fields.precision = cv[2] || null; e.fields.scale = cv[3] || null; rest = rest.slice(0, cv.index); }
    if (rest !== '') e.fields.unparsed = rest;
    out.push(e);
  }
  return out;
}

// tarn meta: "row group R: rows N, first row F, columns C, bytes B[, compressed X]" and chunk blocks.
function parseTarnMeta(text) {
  const groups = [];
  let chunk = null;
  for (const line of text.split('\n')) {
    let m;
    if ((m = /^row group (\d+): rows (\d+), first row \d+, columns (\d+), bytes (-?\d+)(?:, compressed (-?\d+))?/.exec(line))) {
      groups.push({ rows: m[2], ncols: m[3], bytes: m[4], compressed: m[5] || null, chunks: [] });
    } else if ((m = /^  column (\d+) '(.*)': (\S+) \((\w+)\), def (\d+), rep (\d+)(?:, path_in_schema '(.*)')?$/.exec(line))) {
      chunk = { id: m[1], name: m[2], ttype: m[3], physical: m[4], path: m[7] !== undefined ? m[7] : m[2], kv: {} };
      groups[groups.length - 1].chunks.push(chunk);
    } else if (chunk && (m = /^    codec (\S+), encodings (.*)$/.exec(line))) {
      chunk.codec = m[1]; chunk.encodings = m[2];
    } else if (chunk && (m = /^    values (-?\d+), compressed (-?\d+) bytes, uncompressed (-?\d+) bytes$/.exec(line))) {
      chunk.num_values = m[1]; chunk.compressed = m[2]; chunk.uncompressed = m[3];
    } else if (chunk && (m = /^    file_offset (-?\d+), data_page_offset (-?\d+)(?:, dictionary_page_offset (-?\d+))?(?:, index_page_offset (-?\d+))?$/.exec(line))) {
      chunk.file_offset = m[1]; chunk.data_page_offset = m[2]; chunk.dictionary_page_offset = m[3] || null;
      chunk.index_page_offset = m[4] || null;
    } else if (chunk && line === '    stats: none') {
      chunk.stats = null;
    } else if (chunk && (m = /^    stats: min (.*?)( \(bound\))?, max (.*?)( \(bound\))?, null_count (\w+)(?:, distinct_count (\d+))?(?:, nan_count (\d+))?$/.exec(line))) {
      chunk.stats = { min: m[1], max: m[3], min_bound: !!m[2], max_bound: !!m[4], null_count: m[5] === 'unknown' ? null : m[5],
                      distinct_count: m[6] || null };
    } else if (chunk && (m = /^    stats fields: (min_value\/max_value|deprecated min\/max): min (.*), max (.*)$/.exec(line))) {
      const key = m[1].startsWith('min_value') ? 'value' : 'deprecated';
      chunk[key] = { min: m[2] === '-' ? null : m[2], max: m[3] === '-' ? null : m[3] };
    } else if (chunk && (m = /^    column_index (yes|no), offset_index (yes|no), bloom_filter (?:no|at (-?\d+)(?: \((-?\d+) bytes\))?)$/.exec(line))) {
      chunk.bloom_offset = m[3] || null; chunk.bloom_length = m[4] || null;
    } else if (chunk && (m = /^    kv (.*?) = (.*)$/.exec(line))) {
      chunk.kv[m[1]] = m[2];
    }
  }
  return groups;
}

let pass = 0, fail = 0;
for (const file of files) {
  const problems = [];
  const show = (v) => JSON.stringify(v ?? null).slice(0, 160);
  const diff = (what, t, d) => { if ((t ?? null) !== (d ?? null)) problems.push(`${what}: tarn ${show(t)}, duckdb ${show(d)}`); };
  let ds, dm;
  try {
    ds = await rows(`SELECT COLUMNS(*)::VARCHAR FROM parquet_schema(${q(file)})`);
    dm = await rows(`SELECT COLUMNS(*)::VARCHAR FROM parquet_metadata(${q(file)}) ORDER BY row_group_id::BIGINT, column_id::BIGINT`);
  } catch (e) {
    console.log(`FAIL ${file}: DuckDB cannot describe it: ${String(e.message || e).split('\n')[0]}`);
    fail++;
    continue;
  }
  const ts = spawnSync(tarn, ['parquet', 'schema', file], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const tm = spawnSync(tarn, ['parquet', 'meta', file], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (ts.status !== 0 || tm.status !== 0) {
    console.log(`FAIL ${file}: tarn exit ${ts.status}/${tm.status}: ${(ts.stderr || tm.stderr).split('\n')[0]}`);
    fail++;
    continue;
  }
  // --- schema: DuckDB row 0 is the root; levels computed from the tree.
  const te = parseTarnSchema(ts.stdout);
  diff('schema elements', String(te.length), String(ds.length - 1));
  const stack = [{ left: Number(ds[0].num_children), def: 0, rep: 0 }];
  let leaf = 0, nested = false;
  for (let i = 1; i < ds.length && i - 1 < te.length; i++) {
    const d = ds[i], t = te[i - 1], at = `element ${i} '${d.name}'`;
    while (stack.length > 1 && stack[stack.length - 1].left === 0) stack.pop();
    const parent = stack[stack.length - 1];
    parent.left--;
    const def = parent.def + (d.repetition_type !== 'REQUIRED' ? 1 : 0);
    const rep = parent.rep + (d.repetition_type === 'REPEATED' ? 1 : 0);
    const group = d.num_children !== null && Number(d.num_children) > 0;
    if (group || d.repetition_type === 'REPEATED') nested = true;
    diff(`${at} name`, t.name, d.name);
    diff(`${at} depth`, t.depth, stack.length);
    diff(`${at} repetition`, t.repetition, d.repetition_type ?? '(no repetition)');
    diff(`${at} num_children`, t.num_children, group ? d.num_children : null);
    diff(`${at} type`, t.physical, d.type);
    diff(`${at} type_length`, t.type_length ?? null, d.type === 'FIXED_LEN_BYTE_ARRAY' ? d.type_length : null);
    diff(`${at} converted_type`, t.fields.converted, d.converted_type);
    if (d.converted_type === 'DECIMAL') {
      diff(`${at} precision`, t.fields.precision, d.precision);
      diff(`${at} scale`, t.fields.scale, d.scale);
    }
    // a LogicalType member DuckDB does not know either: DuckDB shows none
    const tl = t.fields.logical === '(unknown to tarn)' && d.logical_type === null ? null : t.fields.logical;
    diff(`${at} logical_type`, tl, logicalFromDuck(d.logical_type));
    diff(`${at} field_id`, t.fields.field_id, d.field_id);
    diff(`${at} def`, t.fields.def, String(def));
    diff(`${at} rep`, t.fields.rep, String(rep));
    diff(`${at} column`, t.fields.column, group ? null : String(leaf));
    if (t.fields.unparsed) problems.push(`${at}: unparsed '${t.fields.unparsed}'`);
    if (group) stack.push({ left: Number(d.num_children), def, rep });
    else leaf++;
  }
  // --- metadata
  const tg = parseTarnMeta(tm.stdout);
  let nchunks = 0;
  for (const d of dm) {
    const g = tg[Number(d.row_group_id)], c = g && g.chunks[Number(d.column_id)];
    const at = `row group ${d.row_group_id} column ${d.column_id}`;
    if (!c) { problems.push(`${at}: missing in tarn meta`); continue; }
    nchunks++;
    diff(`${at} row_group_num_rows`, g.rows, d.row_group_num_rows);
    diff(`${at} row_group_num_columns`, g.ncols, d.row_group_num_columns);
    diff(`${at} row_group_bytes`, g.bytes, d.row_group_bytes);
    diff(`${at} row_group_compressed_bytes`, g.compressed, d.row_group_compressed_bytes);
    if (d.file_offset !== null) diff(`${at} file_offset`, c.file_offset, d.file_offset);   // DuckDB shows it only when the row group has one
    diff(`${at} path_in_schema`, c.path, d.path_in_schema.split(', ').join('.'));
    diff(`${at} type`, c.physical, d.type);
    diff(`${at} compression`, c.codec, d.compression);
    diff(`${at} encodings`, c.encodings, d.encodings.split(', ').join(','));
    diff(`${at} num_values`, c.num_values, d.num_values);
    diff(`${at} total_compressed_size`, c.compressed, d.total_compressed_size);
    diff(`${at} total_uncompressed_size`, c.uncompressed, d.total_uncompressed_size);
    diff(`${at} data_page_offset`, c.data_page_offset, d.data_page_offset);
    diff(`${at} dictionary_page_offset`, c.dictionary_page_offset, d.dictionary_page_offset);
    diff(`${at} index_page_offset`, c.index_page_offset, d.index_page_offset);
    diff(`${at} bloom_filter_offset`, c.bloom_offset, d.bloom_filter_offset);
    diff(`${at} bloom_filter_length`, c.bloom_length, d.bloom_filter_length);
    const none = ['stats_min', 'stats_max', 'stats_null_count', 'stats_distinct_count', 'stats_min_value',
                  'stats_max_value'].every((k) => d[k] === null);
    if (c.stats === null || c.stats === undefined) {
      if (!none) problems.push(`${at}: tarn has no statistics, DuckDB has some`);
    } else {
      diff(`${at} stats_null_count`, c.stats.null_count, d.stats_null_count);
      diff(`${at} stats_distinct_count`, c.stats.distinct_count, d.stats_distinct_count);
      // DuckDB shows a NaN statistic as NULL, and TIMESTAMPTZ values with or without "+00"
      // (by how the file annotates them); tarn escapes control characters of strings
      const tz = (v) => c.ttype === 'TIMESTAMPTZ' && v ? v.replace(/\+00$/, '') : v;
      const val = (v) => v === 'nan' ? null : tz(c.ttype === 'VARCHAR' && v ? v.replace(/\\(\\|n|r|t|x[0-9a-f]{2})/g,
        (_, e) => e === 'n' ? '\n' : e === 'r' ? '\r' : e === 't' ? '\t' : e === '\\' ? '\\' : String.fromCharCode(parseInt(e.slice(1), 16))) : v);
      diff(`${at} stats_min`, val(c.deprecated?.min), tz(d.stats_min));
      diff(`${at} stats_max`, val(c.deprecated?.max), tz(d.stats_max));
      diff(`${at} stats_min_value`, val(c.value?.min), tz(d.stats_min_value));
      diff(`${at} stats_max_value`, val(c.value?.max), tz(d.stats_max_value));
      // tarn marks a min/max it prunes by "(bound)" unless the file says it is exact
      if (c.stats.min !== '-') diff(`${at} min_is_exact`, !c.stats.min_bound, d.min_is_exact === 'true');
      if (c.stats.max !== '-') diff(`${at} max_is_exact`, !c.stats.max_bound, d.max_is_exact === 'true');
    }
    const kv = d.key_value_metadata;   // DuckDB: {k=v, ...}
    // a key without a value: tarn "(null)", DuckDB ''
    const tkv = Object.entries(c.kv).map(([k, v]) => `${k}=${v === '(null)' ? "''" : v}`).join(', ');
    if (kv !== null && kv !== '{}') diff(`${at} key_value_metadata`, `{${tkv}}`, kv);
    else diff(`${at} key_value_metadata`, tkv, '');
  }
  const tchunks = tg.reduce((n, g) => n + g.chunks.length, 0);
  diff('column chunks', tchunks, dm.length);
  if (problems.length) {
    console.log(`FAIL ${file}: ${problems.length} differences`);
    for (const p of problems.slice(0, 8)) console.log(`    ${p}`);
    fail++;
  } else {
    console.log(`pass ${path.basename(file)}: ${ds.length - 1} schema elements${nested ? ' (nested)' : ''}, ` +
                `${tg.length} row groups, ${nchunks} column chunks equal to DuckDB's`);
    pass++;
  }
}
conn.closeSync();
console.log(`${pass} passed, ${fail} failed`);
process.exit(fail ? 1 : 0);
