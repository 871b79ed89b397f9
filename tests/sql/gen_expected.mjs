#!/usr/bin/env node
// tests/sql/gen_expected.mjs: fills in the expected rows of `query` records in sqllogictest
// files from DuckDB (the oracle), so that tarn's expectations come from another system.
// usage: node tests/sql/gen_expected.mjs FILE.test...   (rewrites the files in place)
// A record preceded by a line "# tarn-only" keeps its hand-written expectation. Values are
// DuckDB's ::VARCHAR text, NULL as NULL, the empty string as (empty), tab separated.
// `statement ok` records run in DuckDB first where it accepts them (setup such as temp views).
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const oracleDir = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../oracle');  // tests/oracle
const require = createRequire(path.join(oracleDir, 'package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

const files = process.argv.slice(2);
const instance = await DuckDBInstance.create(':memory:', { autoinstall_known_extensions: 'false' });
const conn = await instance.connect();

function cell(v) {
  if (v === null || v === undefined) return 'NULL';
  const s = String(v);
  return s === '' ? '(empty)' : s.replace(/[\t\n]/g, ' ');
}

for (const file of files) {
  const dataDir = path.resolve(path.dirname(file), 'data');
  const testdata = process.env.TARN_TESTDATA || path.resolve(path.dirname(file), '../data');
  const lines = readFileSync(file, 'utf8').split('\n');
  const out = [];
  let i = 0, changed = 0, failed = 0;
  while (i < lines.length) {
    const ln = lines[i];
    if (ln.startsWith('statement ok')) {
      // Setup statements (CREATE TEMP VIEW ...) run in DuckDB too when it accepts them;
      // tarn-only DDL is reported and skipped.
      out.push(ln);
      i++;
      const st = [];
      while (i < lines.length && lines[i] !== '') { st.push(lines[i]); out.push(lines[i]); i++; }
      const q = st.join('\n').replaceAll('${DATA}', dataDir).replaceAll('${TESTDATA}', testdata);
      try { await conn.run(q); } catch (e) { console.error(`${file}: statement skipped by DuckDB: ${e.message.split('\n')[0]}`); }
      continue;
    }
    if (!ln.startsWith('query')) { out.push(ln); i++; continue; }
    const tarnOnly = out.length > 0 && out[out.length - 1].trim() === '# tarn-only';
    out.push(ln);
    i++;
    const sql = [];
    while (i < lines.length && lines[i] !== '' && lines[i] !== '----') { sql.push(lines[i]); out.push(lines[i]); i++; }
    if (i >= lines.length || lines[i] !== '----') continue;
    out.push('----');
    i++;
    const old = [];
    while (i < lines.length && lines[i] !== '') old.push(lines[i++]);
    if (tarnOnly) { out.push(...old); continue; }
    const q = sql.join('\n').replaceAll('${DATA}', dataDir).replaceAll('${TESTDATA}', testdata).replace(/;\s*$/, '');
    try {
      const r = await conn.runAndReadAll(`SELECT COLUMNS(*)::VARCHAR FROM (${q})`);
      const rows = r.getRows().map((row) => row.map(cell).join('\t'));
      out.push(...rows);
      changed++;
    } catch (e) {
      console.error(`${file}: DuckDB failed on:\n${q}\n${e.message}`);
      out.push(...old);
      failed++;
    }
  }
  writeFileSync(file, out.join('\n'));
  console.error(`${file}: ${changed} queries filled, ${failed} failed`);
}
conn.closeSync();
