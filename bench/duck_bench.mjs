#!/usr/bin/env node
// bench/duck_bench.mjs: the SQL benchmark's DuckDB side, driven by bench/sql_bench.sh; the
// counterpart of bench/sql_bench.c. Uses the pinned DuckDB of tests/oracle (installed by
// scripts/install-deps.sh).
//   node duck_bench.mjs QUERIES THREADS REPS OUTDIR
// QUERIES holds one "name<TAB>sql" per line; a line named @setup runs once, untimed. For each query, in one DuckDB instance with
// `threads` set: one warm-up run, then REPS timed runs of conn.runAndReadAll(sql) (the same
// call the oracle's --time measures). Prints "name median_ms min_ms" per query and writes the
// result rows of `SELECT COLUMNS(*)::VARCHAR FROM (sql)` ('|'-separated, NULL as empty) to
// OUTDIR/name.txt for the result check (not timed).
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';

const [qfile, threads, repsArg, outdir] = process.argv.slice(2);
if (!outdir) {
  console.error('usage: duck_bench.mjs QUERIES THREADS REPS OUTDIR');
  process.exit(2);
}
const reps = Number(repsArg);
const dir = new URL('../tests/oracle/', import.meta.url).pathname;  // the pinned DuckDB
const require = createRequire(dir + '/');
const { DuckDBInstance } = require('@duckdb/node-api');

const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const instance = await DuckDBInstance.create(':memory:', {
  threads: String(threads),
  autoinstall_known_extensions: 'false',
});
const conn = await instance.connect();
for (const line of readFileSync(qfile, 'utf8').split('\n')) {
  const tab = line.indexOf('\t');
  if (tab < 0 || line.startsWith('#')) continue;
  const name = line.slice(0, tab), sql = line.slice(tab + 1);
  if (name === '@setup') { await conn.run(sql); continue; }
  try {
    await conn.runAndReadAll(sql);                       // warm-up
    const times = [];
    for (let i = 0; i < reps; i++) {
      const t0 = process.hrtime.bigint();
      await conn.runAndReadAll(sql);
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    const check = await conn.runAndReadAll(`SELECT COLUMNS(*)::VARCHAR FROM (${sql})`);
    const rows = check.getRows().map((r) => r.map((v) => (v === null ? '' : String(v))).join('|'));
    writeFileSync(`${outdir}/${name}.txt`, rows.length ? rows.join('\n') + '\n' : '');
    console.log(`${name} ${median(times).toFixed(1)} ${Math.min(...times).toFixed(1)}`);
  } catch (e) {
    console.error(`duck_bench: ${name}: ${e && e.message ? e.message : e}`);
    console.log(`${name} nan nan`);
  }
}
conn.closeSync();
