#!/usr/bin/env node
// tests/interop/sql_differential.mjs: random SQL queries compared between tarn and DuckDB.
// Generates a few Parquet files with DuckDB (plus the shared flights-3m file), then N random
// queries per seed (filters, expressions, GROUP BY + aggregates, joins, ORDER BY + LIMIT with
// full tie-breaks, IN / EXISTS / scalar subqueries (also correlated), set operations, window
// functions), runs each on DuckDB and
// writes a sqllogictest file with DuckDB's answers (rowsort where the query has no ORDER BY)
// for tarn's runner. Queries DuckDB rejects are dropped.
// usage: node sql_differential.mjs OUTDIR SEED COUNT   -> OUTDIR/diff-SEED.test
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const [outDir, seedArg, countArg] = process.argv.slice(2);
const seed = Number(seedArg || 1) >>> 0;
const count = Number(countArg || 500);
const here = path.dirname(new URL(import.meta.url).pathname);
const oracleDir = path.resolve(here, '../oracle');  // tests/oracle (scripts/install-deps.sh)
const require = createRequire(path.join(oracleDir, 'package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');
const testdata = process.env.TARN_TESTDATA || path.resolve(here, '../data');
const flights = path.join(testdata, 'datasets/flights-3m.parquet');

// mulberry32
let st = seed || 1;
function rnd() { st |= 0; st = (st + 0x6D2B79F5) | 0; let t = Math.imul(st ^ (st >>> 15), 1 | st); t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296; }
const ri = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
const pick = (a) => a[Math.floor(rnd() * a.length)];
const chance = (p) => rnd() < p;

mkdirSync(outDir, { recursive: true });
const A = path.join(outDir, 'diff_a.parquet'), B = path.join(outDir, 'diff_b.parquet');
const inst = await DuckDBInstance.create(':memory:', { autoinstall_known_extensions: 'false' });
const conn = await inst.connect();
if (!existsSync(A)) {
  await conn.run(`COPY (SELECT i AS id,
      CASE WHEN i % 17 = 0 THEN NULL ELSE (i * 7919 % 23)::INTEGER END AS k1,
      (i * 104729 % 100003 - 50000)::BIGINT AS y,
      CASE WHEN i % 13 = 0 THEN NULL ELSE round(((i * 31337) % 10007) / 100.0 - 50, 2) END AS x,
      CASE WHEN i % 11 = 0 THEN NULL WHEN i % 29 = 0 THEN '' ELSE ['ant','bee','cat','dog','eel','fox','gnu','hen'][1 + (i * 7 % 8)] || CASE WHEN i % 3 = 0 THEN 'x' ELSE '' END END AS s,
      DATE '2023-01-01' + (i * 13 % 400)::INTEGER AS d,
      CASE WHEN i % 19 = 0 THEN NULL ELSE i % 4 = 1 END AS b,
      ((i * 4241 % 200000) / 100.0 - 1000)::DECIMAL(12,2) AS m
    FROM range(1, 20001) t(i)) TO '${A}' (FORMAT parquet, ROW_GROUP_SIZE 2048)`);
  await conn.run(`COPY (SELECT (i % 25)::INTEGER AS k1, 'name' || i AS name, (i * 37 % 101)::INTEGER AS w,
      CASE WHEN i % 5 = 0 THEN NULL ELSE ['ant','cat','eel','gnu','yak'][1 + i % 5] END AS s
    FROM range(0, 40) t(i)) TO '${B}' (FORMAT parquet)`);
}

const TA = `read_parquet('${A}')`, TB = `read_parquet('${B}')`, TF = `read_parquet('${flights}')`;
const aCols = { id: 'int', k1: 'int', y: 'int', x: 'dbl', s: 'str', d: 'date', b: 'bool', m: 'dec' };
const fCols = { delay: 'int', distance: 'int', origin: 'str', destination: 'str', date: 'ts' };
const strs = ['ant', 'bee', 'catx', 'dog', 'eelx', 'fox', 'gnu', 'hen', '', 'zzz', 'a'];
const airports = ['LAX', 'SFO', 'ORD', 'ATL', 'DFW', 'JFK', 'SEA', 'DEN', 'BOS', 'PHX'];

function constFor(t, col) {
  switch (t) {
    case 'int': return col === 'k1' ? String(ri(-1, 24)) : col === 'id' ? String(ri(0, 20000)) : col === 'delay' ? String(ri(-20, 120)) : col === 'distance' ? String(ri(100, 2500)) : String(ri(-50000, 50000));
    case 'dbl': return (ri(-5000, 5000) / 100).toFixed(2);
    case 'dec': return (ri(-100000, 100000) / 100).toFixed(2);
    case 'str': return col === 'origin' || col === 'destination' ? `'${pick(airports)}'` : `'${pick(strs)}'`;
    case 'date': return `DATE '2023-${String(ri(1, 12)).padStart(2, '0')}-${String(ri(1, 28)).padStart(2, '0')}'`;
    case 'ts': return `TIMESTAMP '2001-0${ri(1, 6)}-${String(ri(1, 28)).padStart(2, '0')} ${String(ri(0, 23)).padStart(2, '0')}:00:00'`;
    case 'bool': return pick(['true', 'false']);
  }
}

function pred(cols, q, depth = 0) {
  const names = Object.keys(cols);
  const c = pick(names), t = cols[c], ref = q ? `${q}.${c}` : c;
  const r = rnd();
  if (depth < 2 && r < 0.15) return `(${pred(cols, q, depth + 1)} ${pick(['AND', 'OR'])} ${pred(cols, q, depth + 1)})`;
  if (depth < 2 && r < 0.2) return `NOT (${pred(cols, q, depth + 1)})`;
  if (r < 0.28) return `${ref} IS ${pick(['', 'NOT '])}NULL`;
  if (t === 'bool') return pick([ref, `NOT ${ref}`, `${ref} = ${constFor(t)}`]);
  if (r < 0.38) return `${ref} ${pick(['', 'NOT '])}BETWEEN ${[constFor(t, c), constFor(t, c)].sort().join(' AND ')}`;
  if (r < 0.48) return `${ref} ${pick(['', 'NOT '])}IN (${[1, 2, 3].slice(0, ri(1, 3)).map(() => constFor(t, c)).join(', ')})`;
  if (t === 'str' && r < 0.58) return `${ref} ${pick(['LIKE', 'NOT LIKE'])} '${pick(['a', 'b', 'c', 'e', 'g', '%', ''])}${pick(['%', '_%', '%x', ''])}'`;
  return `${ref} ${pick(['=', '<>', '<', '<=', '>', '>='])} ${constFor(t, c)}`;
}

function numExpr(cols, q) {
  const nums = Object.keys(cols).filter((c) => ['int', 'dbl', 'dec'].includes(cols[c]));
  const c = pick(nums), ref = q ? `${q}.${c}` : c, t = cols[c];
  switch (ri(0, 7)) {
    case 0: return ref;
    case 1: return `${ref} + ${ri(1, 100)}`;
    case 2: return `${ref} * ${ri(2, 5)}`;
    case 3: return `abs(${ref})`;
    case 4: return t === 'int' ? `${ref} % ${ri(2, 9)}` : `round(${ref}, 1)`;
    case 5: return `coalesce(${ref}, ${ri(0, 9)})`;
    case 6: return `CASE WHEN ${pred(cols, q)} THEN ${ref} ELSE ${ri(0, 9)} END`;
    default: return `${ref} - ${ri(1, 50)}`;
  }
}

function anyExpr(cols, q) {
  const c = pick(Object.keys(cols)), t = cols[c], ref = q ? `${q}.${c}` : c;
  if (t === 'str' && chance(0.3)) return pick([`upper(${ref})`, `length(${ref})`, `${ref} || '-'`, `substr(${ref}, 2, 2)`, `coalesce(${ref}, 'none')`]);
  if (t === 'date' && chance(0.3)) return pick([`year(${ref})`, `month(${ref})`, `${ref} + 7`]);
  if (['int', 'dbl', 'dec'].includes(t) && chance(0.5)) return numExpr(cols, q);
  if (chance(0.15)) return `(${pred(cols, q)})`;
  return ref;
}

function agg(cols, q) {
  const names = Object.keys(cols);
  const nums = names.filter((c) => ['int', 'dbl', 'dec'].includes(cols[c]));
  const c = pick(names), n = pick(nums), r = (x) => (q ? `${q}.${x}` : x);
  return pick([`count(*)`, `count(${r(c)})`, `sum(${r(n)})`, `avg(${r(n)})`, `min(${r(c)})`, `max(${r(c)})`,
    `count(DISTINCT ${r(c)})`, `sum(${r(n)}) FILTER (WHERE ${pred(cols, q)})`, `min(${numExpr(cols, q)})`,
    `max(${r(n)}) - min(${r(n)})`, `count(*) FILTER (WHERE ${pred(cols, q)})`]);
}

function orderAll(n, desc) {
  const parts = [];
  for (let i = 1; i <= n; i++) parts.push(`${i}${desc && i === 1 ? ' DESC' : chance(0.3) ? ' DESC' : ''}${chance(0.2) ? ' NULLS FIRST' : ''}`);
  return parts.join(', ');
}

// window functions: unique tie-breaks (id) wherever the result depends on the row order
function winExpr() {
  const p = pick(['', '', 'PARTITION BY k1 ', 'PARTITION BY s ', 'PARTITION BY b ', 'PARTITION BY k1 % 3 ']);
  const o = pick(['x', 'y', 'd', 'm', 'k1', 'x DESC', 'y DESC NULLS FIRST', 's']);
  const n = pick(['x', 'y', 'm', 'k1']), c = pick(['x', 'y', 's', 'd', 'm', 'b']);
  const frame = pick(['ROWS BETWEEN 2 PRECEDING AND CURRENT ROW', 'ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW',
    'ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING', 'ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING',
    'ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING', 'ROWS BETWEEN 3 FOLLOWING AND 5 FOLLOWING']);
  switch (ri(0, 9)) {
    case 0: return `row_number() OVER (${p}ORDER BY ${o}, id)`;
    case 1: return `${pick(['rank', 'dense_rank'])}() OVER (${p}ORDER BY ${o})`;
    case 2: return `${pick(['sum', 'count', 'min', 'max', 'avg'])}(${n}) OVER (${p.trim()})`;
    case 3: return `${pick(['sum', 'count', 'min', 'max'])}(${n}) OVER (${p}ORDER BY ${o})`;
    case 4: return `${pick(['sum', 'count', 'min', 'max', 'avg'])}(${n}) OVER (${p}ORDER BY ${o}, id ${frame})`;
    case 5: return `${pick(['lag', 'lead'])}(${c}${chance(0.5) ? `, ${ri(1, 3)}` : ''}) OVER (${p}ORDER BY ${o}, id)`;
    case 6: return `${pick(['first_value', 'last_value'])}(${c}) OVER (${p}ORDER BY ${o}, id${chance(0.5) ? ' ' + frame : ''})`;
    case 7: return `ntile(${ri(1, 7)}) OVER (${p}ORDER BY ${o}, id)`;
    case 8: return `count(*) OVER (${p}ORDER BY ${o})`;
    default: return `cume_dist() OVER (${p}ORDER BY ${o})`;
  }
}

const bCols = { k1: 'int', name: 'str', w: 'int', s: 'str' };
function corrScalar() {
  const a = pick(['count(*)', 'max(b.w)', 'min(b.name)', 'sum(b.w)', 'avg(b.w)', 'count(b.s)', 'count(*) + 1', 'max(b.w) - min(b.w)']);
  const extra = chance(0.4) ? ` AND ${pred(bCols, 'b')}` : '';
  const key = chance(0.8) ? 'b.k1 = a.k1' : 'a.s = b.s';
  return `(SELECT ${a} FROM ${TB} b WHERE ${key}${extra})`;
}

function genQuery() {
  const kind = ri(0, 15);
  if (kind === 13) { // window functions
    const ws = [1, 2, 3].slice(0, ri(1, 3)).map(() => winExpr());
    if (chance(0.2)) {
      return { sql: `SELECT k1, sum(y), rank() OVER (ORDER BY sum(y) DESC), count(*) * 100 / sum(count(*)) OVER () FROM ${TA} WHERE ${pred(aCols)} GROUP BY k1`, sorted: false };
    }
    const w = chance(0.6) ? ` WHERE id < ${ri(30, 3000)} AND ${pred(aCols)}` : '';
    return { sql: `SELECT id, ${ws.join(', ')} FROM ${TA}${w} ORDER BY id LIMIT ${ri(5, 60)}${chance(0.2) ? ` OFFSET ${ri(1, 500)}` : ''}`, sorted: true };
  }
  if (kind === 14 || kind === 15) { // correlated scalar subqueries
    const r = ri(0, 2);
    if (r === 0) return { sql: `SELECT a.id, ${corrScalar()} FROM ${TA} a WHERE ${pred(aCols, 'a')} ORDER BY a.id LIMIT ${ri(5, 40)}`, sorted: true };
    if (r === 1) return { sql: `SELECT count(*), sum(a.y) FROM ${TA} a WHERE a.k1 ${pick(['<', '>', '<>', '='])} ${corrScalar().replace(/SELECT (.*?) FROM/, 'SELECT count(*) FROM')}`, sorted: false };
    return { sql: `SELECT a.k1, count(*), ${corrScalar().replace('a.s = b.s', 'b.k1 = a.k1')} FROM ${TA} a GROUP BY a.k1`, sorted: false };
  }
  const useF = kind === 12 || (kind === 3 && chance(0.2));
  const cols = useF ? fCols : aCols, T = useF ? TF : TA;
  switch (kind) {
    case 0: case 1: { // filter + project, ordered with LIMIT
      const ex = [1, 2, 3].slice(0, ri(1, 3)).map(() => anyExpr(cols));
      return { sql: `SELECT ${ex.join(', ')} FROM ${T} WHERE ${pred(cols)} ORDER BY ${orderAll(ex.length)} LIMIT ${ri(1, 30)}`, sorted: true };
    }
    case 2: { // filter + project unordered (small results)
      const ex = [1, 2].slice(0, ri(1, 2)).map(() => anyExpr(cols));
      return { sql: `SELECT ${ex.join(', ')} FROM ${T} WHERE id < ${ri(10, 300)} AND ${pred(cols)}`, sorted: false };
    }
    case 3: case 4: case 5: { // group by
      const g = [1, 2].slice(0, ri(1, 2)).map(() => pick(Object.keys(cols).filter((c) => !['x', 'y', 'id', 'delay', 'distance', 'date', 'm'].includes(c) || chance(0.1))));
      const gexpr = g.map((c) => (cols[c] === 'int' && chance(0.4) ? `${c} % ${ri(2, 7)}` : c));
      const aggs = [1, 2, 3].slice(0, ri(1, 3)).map(() => agg(cols));
      let sql = `SELECT ${gexpr.join(', ')}, ${aggs.join(', ')} FROM ${T}${chance(0.6) ? ` WHERE ${pred(cols)}` : ''} GROUP BY ${gexpr.map((_, i) => i + 1).join(', ')}`;
      if (chance(0.25)) sql += ` HAVING count(*) > ${ri(1, 50)}`;
      if (chance(0.4)) return { sql: `${sql} ORDER BY ${orderAll(gexpr.length + aggs.length)} LIMIT ${ri(1, 20)}`, sorted: true };
      return { sql, sorted: false };
    }
    case 6: { // global aggregates
      const aggs = [1, 2, 3, 4].slice(0, ri(1, 4)).map(() => agg(cols));
      return { sql: `SELECT ${aggs.join(', ')} FROM ${T}${chance(0.7) ? ` WHERE ${pred(cols)}` : ''}`, sorted: false };
    }
    case 7: case 8: { // joins
      const jt = pick(['JOIN', 'JOIN', 'LEFT JOIN', 'RIGHT JOIN', 'FULL JOIN']);
      const on = chance(0.8) ? `a.k1 = b.k1` : `a.s = b.s`;
      const extra = chance(0.2) ? ` AND b.w > ${ri(0, 100)}` : '';
      const sel = pick([`a.id, a.k1, b.name`, `a.k1, b.w, a.s`, `b.name, a.x`, `a.id, b.s, b.w`]);
      const w = chance(0.7) ? ` WHERE ${pred(aCols, 'a')}` : '';
      if (chance(0.5)) {
        return { sql: `SELECT b.name, count(*), sum(a.y) FROM ${TA} a ${jt} ${TB} b ON ${on}${extra}${w} GROUP BY b.name`, sorted: false };
      }
      const n = sel.split(',').length;
      return { sql: `SELECT ${sel} FROM ${TA} a ${jt} ${TB} b ON ${on}${extra}${w} ORDER BY ${orderAll(n)} LIMIT ${ri(5, 40)}`, sorted: true };
    }
    case 9: { // subqueries
      const r = ri(0, 4);
      if (r === 0) return { sql: `SELECT count(*) FROM ${TA} WHERE k1 ${pick(['IN', 'NOT IN'])} (SELECT k1 FROM ${TB} WHERE w > ${ri(0, 100)})`, sorted: false };
      if (r === 1) return { sql: `SELECT count(*), sum(y) FROM ${TA} a WHERE ${pick(['', 'NOT '])}EXISTS (SELECT 1 FROM ${TB} b WHERE b.k1 = a.k1 AND b.w > ${ri(0, 100)})`, sorted: false };
      if (r === 2) return { sql: `SELECT count(*) FROM ${TA} WHERE y > (SELECT avg(y) FROM ${TA} WHERE ${pred(aCols)})`, sorted: false };
      if (r === 3) return { sql: `SELECT s, c FROM (SELECT s, count(*) AS c FROM ${TA} WHERE ${pred(aCols)} GROUP BY s) t WHERE c > ${ri(1, 500)}`, sorted: false };
      return { sql: `WITH t AS (SELECT k1, max(x) AS mx FROM ${TA} GROUP BY k1) SELECT t.k1, t.mx, b.name FROM t JOIN ${TB} b ON t.k1 = b.k1 ORDER BY 1, 2, 3`, sorted: true };
    }
    case 10: { // set operations
      const op = pick(['UNION', 'UNION ALL', 'INTERSECT', 'EXCEPT']);
      const c = pick(['k1', 's', 'b', 'd']);
      return { sql: `SELECT ${c} FROM ${TA} WHERE ${pred(aCols)} ${op} SELECT ${c} FROM ${TA} WHERE ${pred(aCols)}`, sorted: false, big: op === 'UNION ALL' };
    }
    case 11: { // top-N over the wide table
      const c = pick(['x', 'y', 'm', 'd', 's', 'k1']);
      return { sql: `SELECT id, ${c} FROM ${TA} WHERE ${pred(aCols)} ORDER BY ${c}${chance(0.5) ? ' DESC' : ''}${chance(0.3) ? ' NULLS FIRST' : ''}, id LIMIT ${ri(1, 25)}${chance(0.2) ? ` OFFSET ${ri(1, 10)}` : ''}`, sorted: true };
    }
    default: { // flights
      const g = pick(['origin', 'destination']);
      const aggs = [1, 2].slice(0, ri(1, 2)).map(() => pick(['count(*)', 'avg(delay)', 'max(distance)', 'min(delay)', 'sum(distance)', 'count(DISTINCT destination)']));
      return { sql: `SELECT ${g}, ${aggs.join(', ')} FROM ${TF} WHERE ${pred(fCols)} GROUP BY ${g} ORDER BY ${orderAll(1 + aggs.length)} LIMIT ${ri(3, 15)}`, sorted: true };
    }
  }
}

const cell = (v) => (v === null || v === undefined ? 'NULL' : String(v) === '' ? '(empty)' : String(v).replace(/[\t\n]/g, ' '));
const out = [`# generated by sql_differential.mjs seed ${seed}`, ''];
let kept = 0, rejected = 0, tries = 0;
while (kept < count && tries < count * 4) {
  tries++;
  const q = genQuery();
  let res;
  try {
    const typed = await conn.runAndReadAll(`SELECT * FROM (${q.sql}) LIMIT 0`);
    const types = typed.columnTypes().map((t) => (['DOUBLE', 'FLOAT'].includes(String(t)) ? 'R' : 'T')).join('');
    res = await conn.runAndReadAll(`SELECT COLUMNS(*)::VARCHAR FROM (${q.sql})`);
    const rows = res.getRows();
    if (rows.length > 3000) { rejected++; continue; }
    out.push(`query ${types} ${q.sorted ? 'nosort' : 'rowsort'}`, q.sql, '----', ...rows.map((r) => r.map(cell).join('\t')), '');
    kept++;
  } catch (e) {
    rejected++;
  }
}
const file = path.join(outDir, `diff-${seed}.test`);
writeFileSync(file, out.join('\n'));
console.error(`seed ${seed}: ${kept} queries written to ${file} (${rejected} rejected by DuckDB)`);
conn.closeSync();
