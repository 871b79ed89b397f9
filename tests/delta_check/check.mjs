#!/usr/bin/env node
// tests/delta_check/check.mjs: an independent Delta-protocol checker (PROTOCOL.md of delta-io/delta),
// written from the spec without tarn's code: JSON commits parsed here, checkpoint and data-file
// Parquet read through the DuckDB oracle. Every table found under the given directories (a
// directory holding _delta_log/, symlinks followed once) is checked for:
//   - log files: contiguous versions, one JSON action per line, known action keys, the required
//     fields of each action with their types (protocol, metaData, add, remove, cdc, txn,
//     commitInfo, domainMetadata), version 0 holding protocol and metaData;
//   - protocol versions against the features in use (appendOnly, invariants, CHECK constraints,
//     change data feed, generated and identity columns, column mapping, deletion vectors,
//     timestampNtz, checkpoint stats settings), feature lists legal for the versions;
//   - append-only tables never losing data; cdc files only on CDF tables, with _change_type;
//   - data files present with the logged size; under column mapping, physical names and field
//     ids in the Parquet schema; deletion-vector files (version byte, size, magic, CRC-32,
//     cardinality of the portable 64-bit RoaringBitmap);
//   - checkpoints: the V1 schema (action columns, stats / stats_parsed / partitionValues_parsed
//     as delta.checkpoint.writeStatsAsJson / AsStruct say, readerFeatures/writerFeatures
//     non-null as the protocol says), one action per row, contents equal to the replay of the
//     JSON commits; checkpoints at every multiple of delta.checkpointInterval (tables tarn wrote);
//   - _last_checkpoint: version, size (= actions), sizeInBytes, numOfAddFiles.
// usage: node check.mjs [--record FILE] [--crashed] DIR...   Prints one line per table ("ok T" / "FAIL T: ...");
// with --record also appends "PASS T" / "FAIL T: ..." lines to FILE. Exit 1 when a table fails.
import { createRequire } from 'node:module';
import { readFileSync, readdirSync, statSync, lstatSync, existsSync, appendFileSync, realpathSync } from 'node:fs';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '../oracle/package.json'));

// ---------------------------------------------------------------------------------------------
// Finding tables.
function findTables(root, out, seen) {
  let st;
  try { st = statSync(root); } catch { return; }
  if (!st.isDirectory()) return;
  let real;
  try { real = realpathSync(root); } catch { return; }
  if (seen.has(real)) return;
  seen.add(real);
  if (existsSync(join(root, '_delta_log')) && statSync(join(root, '_delta_log')).isDirectory()) out.push(root);
  let names = [];
  try { names = readdirSync(root); } catch { return; }
  for (const n of names) {
    if (n === '_delta_log' || n === '_change_data' || n === 'node_modules') continue;
    const p = join(root, n);
    let l;
    try { l = lstatSync(p); } catch { continue; }
    if (l.isDirectory() || l.isSymbolicLink()) findTables(p, out, seen);
  }
}

// ---------------------------------------------------------------------------------------------
// Small type checks.
const isInt = (v) => typeof v === 'number' && Number.isInteger(v);
const isStr = (v) => typeof v === 'string';
const isBool = (v) => typeof v === 'boolean';
const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isStrMap = (v, nullable) => isObj(v) && Object.values(v).every((x) => isStr(x) || (nullable && x === null));

class Problems {
  constructor() { this.list = []; }
  add(msg) { if (this.list.length < 20) this.list.push(msg); }
  need(cond, msg) { if (!cond) this.add(msg); return cond; }
}

const KNOWN_FEATURES = {
  appendOnly: 'w', invariants: 'w', checkConstraints: 'w', changeDataFeed: 'w', generatedColumns: 'w',
  columnMapping: 'rw', identityColumns: 'w', deletionVectors: 'rw', timestampNtz: 'rw', domainMetadata: 'w',
  v2Checkpoint: 'rw', vacuumProtocolCheck: 'rw', rowTracking: 'w', inCommitTimestamp: 'w', clustering: 'w',
  typeWidening: 'rw', 'typeWidening-preview': 'rw', icebergCompatV1: 'w', icebergCompatV2: 'w',
  allowColumnDefaults: 'w', catalogManaged: 'rw', variantType: 'rw', 'variantType-preview': 'rw',
};
// legacy versions implying a feature (PROTOCOL.md "Writer Version Requirements")
const LEGACY_WRITER = { appendOnly: 2, invariants: 2, checkConstraints: 3, changeDataFeed: 4, generatedColumns: 4,
                        columnMapping: 5, identityColumns: 6 };

function supports(proto, feature) {
  if (feature === 'columnMapping' && proto.minReaderVersion < 3 && proto.minReaderVersion < 2) return false;
  if (proto.minWriterVersion === 7) {
    const w = proto.writerFeatures || [];
    if (!w.includes(feature)) return false;
    if (KNOWN_FEATURES[feature] === 'rw') {
      if (proto.minReaderVersion === 3) return (proto.readerFeatures || []).includes(feature);
      return feature === 'columnMapping' && proto.minReaderVersion >= 2;
    }
    return true;
  }
  const lw = LEGACY_WRITER[feature];
  return lw !== undefined && proto.minWriterVersion >= lw;
}

function checkProtocol(p, P, where) {
  if (!P.need(isObj(p), `${where}: protocol is not an object`)) return;
  P.need(isInt(p.minReaderVersion) && p.minReaderVersion >= 1 && p.minReaderVersion <= 3,
         `${where}: protocol.minReaderVersion ${JSON.stringify(p.minReaderVersion)} is not 1..3`);
  P.need(isInt(p.minWriterVersion) && p.minWriterVersion >= 1 && p.minWriterVersion <= 7,
         `${where}: protocol.minWriterVersion ${JSON.stringify(p.minWriterVersion)} is not 1..7`);
  if (p.minReaderVersion === 3) {
    P.need(p.minWriterVersion === 7, `${where}: reader version 3 needs writer version 7`);
    P.need(Array.isArray(p.readerFeatures) && p.readerFeatures.every(isStr), `${where}: reader version 3 without readerFeatures`);
  } else {
    P.need(p.readerFeatures === undefined || p.readerFeatures === null, `${where}: readerFeatures below reader version 3`);
  }
  if (p.minWriterVersion === 7) {
    P.need(Array.isArray(p.writerFeatures) && p.writerFeatures.every(isStr), `${where}: writer version 7 without writerFeatures`);
  } else {
    P.need(p.writerFeatures === undefined || p.writerFeatures === null, `${where}: writerFeatures below writer version 7`);
  }
  for (const f of p.readerFeatures || []) {
    P.need(KNOWN_FEATURES[f] === 'rw', `${where}: '${f}' is not a reader feature`);
    P.need((p.writerFeatures || []).includes(f), `${where}: reader feature '${f}' missing from writerFeatures`);
  }
  for (const f of p.writerFeatures || []) P.need(f in KNOWN_FEATURES, `${where}: unknown writer feature '${f}'`);
}

// ---------------------------------------------------------------------------------------------
// Schema.
function parseSchema(md, P, where) {
  let s;
  try { s = JSON.parse(md.schemaString); } catch (e) { P.add(`${where}: schemaString is not JSON: ${e.message}`); return null; }
  if (!P.need(isObj(s) && s.type === 'struct' && Array.isArray(s.fields), `${where}: schemaString is not a struct`)) return null;
  const names = new Set();
  for (const f of s.fields) {
    P.need(isObj(f) && isStr(f.name) && f.type !== undefined && isBool(f.nullable) && isObj(f.metadata),
           `${where}: schema field ${JSON.stringify(f && f.name)} lacks name/type/nullable/metadata`);
    if (!isObj(f) || !isStr(f.name)) continue;
    P.need(!names.has(f.name.toLowerCase()), `${where}: duplicate column '${f.name}'`);
    names.add(f.name.toLowerCase());
  }
  return s.fields;
}

function typeHas(t, name) {
  if (isStr(t)) return t === name;
  if (!isObj(t)) return false;
  if (t.type === 'struct') return (t.fields || []).some((f) => typeHas(f.type, name));
  if (t.type === 'array') return typeHas(t.elementType, name);
  if (t.type === 'map') return typeHas(t.keyType, name) || typeHas(t.valueType, name);
  return false;
}

function checkMetadata(md, P, where) {
  if (!P.need(isObj(md), `${where}: metaData is not an object`)) return null;
  P.need(isStr(md.id) && md.id.length > 0, `${where}: metaData.id missing`);
  P.need(isObj(md.format) && isStr(md.format.provider), `${where}: metaData.format.provider missing`);
  if (isObj(md.format) && md.format.options !== undefined) P.need(isStrMap(md.format.options), `${where}: metaData.format.options is not a string map`);
  P.need(isStr(md.schemaString), `${where}: metaData.schemaString missing`);
  P.need(Array.isArray(md.partitionColumns) && md.partitionColumns.every(isStr), `${where}: metaData.partitionColumns is not a string array`);
  P.need(isStrMap(md.configuration || {}), `${where}: metaData.configuration is not a string map`);
  if (md.createdTime !== undefined && md.createdTime !== null) P.need(isInt(md.createdTime), `${where}: metaData.createdTime is not a long`);
  if (!isStr(md.schemaString)) return null;
  const fields = parseSchema(md, P, where);
  if (!fields) return null;
  for (const pc of md.partitionColumns || []) P.need(fields.some((f) => f.name === pc), `${where}: partition column '${pc}' not in the schema`);
  return fields;
}

// What a metaData uses, and whether the protocol supports it.
function checkFeatures(proto, md, fields, P, where) {
  const conf = md.configuration || {};
  const truthy = (k) => (conf[k] || '').toLowerCase() === 'true';
  const need = (feature, why) => P.need(supports(proto, feature),
    `${where}: ${why} needs table feature '${feature}' but the protocol is ${JSON.stringify(proto)}`);
  if (truthy('delta.appendOnly')) need('appendOnly', 'delta.appendOnly = true');
  for (const k of Object.keys(conf)) if (k.startsWith('delta.constraints.')) { need('checkConstraints', k); break; }
  if (truthy('delta.enableChangeDataFeed')) need('changeDataFeed', 'delta.enableChangeDataFeed = true');
  if (truthy('delta.enableDeletionVectors')) need('deletionVectors', 'delta.enableDeletionVectors = true');
  if ((conf['delta.checkpoint.writeStatsAsJson'] || 'true').toLowerCase() === 'false' || truthy('delta.checkpoint.writeStatsAsStruct'))
    P.need(proto.minWriterVersion >= 3, `${where}: delta.checkpoint.writeStatsAs* needs writer version 3+`);
  const mode = conf['delta.columnMapping.mode'] || 'none';
  P.need(['none', 'name', 'id'].includes(mode), `${where}: delta.columnMapping.mode '${mode}'`);
  for (const [k, v] of Object.entries(conf)) {
    if (['delta.appendOnly', 'delta.enableChangeDataFeed', 'delta.enableDeletionVectors',
         'delta.checkpoint.writeStatsAsJson', 'delta.checkpoint.writeStatsAsStruct'].includes(k))
      P.need(v === 'true' || v === 'false', `${where}: ${k} = '${v}' is not true/false`);
    if (k === 'delta.checkpointInterval') P.need(/^[1-9][0-9]*$/.test(v), `${where}: ${k} = '${v}' is not a positive integer`);
    if (k.startsWith('delta.constraints.')) P.need(k === k.toLowerCase() && v.length > 0, `${where}: constraint key ${k} must be lower-case with an expression`);
  }
  if (mode !== 'none') {
    need('columnMapping', `delta.columnMapping.mode = ${mode}`);
    const ids = new Set(), phys = new Set();
    let maxId = 0;
    for (const f of fields) {
      const m = f.metadata || {};
      const id = m['delta.columnMapping.id'], pn = m['delta.columnMapping.physicalName'];
      if (!P.need(isInt(id) && isStr(pn) && pn.length > 0, `${where}: column '${f.name}' lacks delta.columnMapping.id/physicalName`)) continue;
      P.need(!ids.has(id), `${where}: column mapping id ${id} used twice`);
      P.need(!phys.has(pn), `${where}: physical name ${pn} used twice`);
      ids.add(id); phys.add(pn); maxId = Math.max(maxId, id);
    }
    const mx = conf['delta.columnMapping.maxColumnId'];
    P.need(mx !== undefined && Number(mx) >= maxId, `${where}: delta.columnMapping.maxColumnId (${mx}) below the largest id ${maxId}`);
  }
  for (const f of fields) {
    const m = f.metadata || {};
    if ('delta.invariants' in m) need('invariants', `column '${f.name}' invariant`);
    if ('delta.generationExpression' in m) need('generatedColumns', `generated column '${f.name}'`);
    if (Object.keys(m).some((k) => k.startsWith('delta.identity.'))) need('identityColumns', `identity column '${f.name}'`);
    if (typeHas(f.type, 'timestamp_ntz')) need('timestampNtz', `timestamp_ntz column '${f.name}'`);
  }
}

function physicalName(f, mode) {
  return mode === 'none' ? f.name : (f.metadata || {})['delta.columnMapping.physicalName'] || f.name;
}

// ---------------------------------------------------------------------------------------------
// Deletion vectors (PROTOCOL.md "Deletion Vector Format").
const Z85 = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#';
function z85decode(s) {
  const out = Buffer.alloc((s.length / 5) * 4);
  for (let i = 0; i < s.length; i += 5) {
    let v = 0;
    for (let k = 0; k < 5; k++) { const d = Z85.indexOf(s[i + k]); if (d < 0) throw new Error('bad z85'); v = v * 85 + d; }
    out.writeUInt32BE(v >>> 0, (i / 5) * 4);
  }
  return out;
}
function uuidFromZ85(s) {
  const b = z85decode(s).toString('hex');
  return `${b.slice(0, 8)}-${b.slice(8, 12)}-${b.slice(12, 16)}-${b.slice(16, 20)}-${b.slice(20)}`;
}
// Cardinality of a portable 32-bit RoaringBitmap at buf[pos..]; returns [card, bytes used].
function roaring32(buf, pos) {
  const start = pos;
  const cookie = buf.readUInt32LE(pos);
  let n, runs = null;
  if ((cookie & 0xffff) === 12347) {
    n = (cookie >>> 16) + 1; pos += 4;
    runs = buf.subarray(pos, pos + Math.ceil(n / 8)); pos += Math.ceil(n / 8);
  } else if (cookie === 12346) { n = buf.readUInt32LE(pos + 4); pos += 8; }
  else throw new Error(`bad roaring cookie ${cookie}`);
  const cards = [];
  for (let i = 0; i < n; i++) { cards.push(buf.readUInt16LE(pos + 2) + 1); pos += 4; }
  if (!runs || n >= 4) pos += 4 * n;   // offsets
  let card = 0;
  for (let i = 0; i < n; i++) {
    const isRun = runs && (runs[i >> 3] >> (i & 7)) & 1;
    if (isRun) {
      const nr = buf.readUInt16LE(pos); pos += 2;
      let c = 0;
      for (let r = 0; r < nr; r++) { c += buf.readUInt16LE(pos + 2) + 1; pos += 4; }
      card += c;
    } else if (cards[i] > 4096) { card += cards[i]; pos += 8192; }
    else { card += cards[i]; pos += 2 * cards[i]; }
  }
  return [card, pos - start];
}
function dvCardinality(bitmap) {
  if (bitmap.readUInt32LE(0) !== 1681511377) throw new Error(`magic ${bitmap.readUInt32LE(0)} is not 1681511377`);
  const buckets = Number(bitmap.readBigUInt64LE(4));
  let pos = 12, card = 0, last = -1;
  for (let b = 0; b < buckets; b++) {
    const key = bitmap.readUInt32LE(pos); pos += 4;
    if (key & 0x80000000 || key <= last) throw new Error(`bucket key ${key} out of order or negative`);
    last = key;
    const [c, used] = roaring32(bitmap, pos);
    card += c; pos += used;
  }
  if (pos !== bitmap.length) throw new Error(`${bitmap.length - pos} trailing bytes`);
  return card;
}
function checkDv(table, dv, P, where) {
  if (!P.need(isObj(dv) && ['u', 'i', 'p'].includes(dv.storageType) && isStr(dv.pathOrInlineDv) &&
              isInt(dv.sizeInBytes) && isInt(dv.cardinality), `${where}: malformed deletionVector ${JSON.stringify(dv)}`)) return;
  try {
    let bitmap;
    if (dv.storageType === 'i') {
      P.need(dv.offset === undefined || dv.offset === null, `${where}: inline DV with an offset`);
      bitmap = z85decode(dv.pathOrInlineDv).subarray(0, dv.sizeInBytes);
    } else {
      let file;
      if (dv.storageType === 'u') {
        const s = dv.pathOrInlineDv, prefix = s.slice(0, s.length - 20);
        file = join(table, prefix, `deletion_vector_${uuidFromZ85(s.slice(-20))}.bin`);
      } else {
        file = dv.pathOrInlineDv.startsWith('file:') ? fileURLToPath(dv.pathOrInlineDv) : dv.pathOrInlineDv;
      }
      if (!P.need(existsSync(file), `${where}: deletion vector file ${file} missing`)) return;
      const buf = readFileSync(file);
      const off = dv.offset ?? 0;
      P.need(buf[0] === 1, `${where}: DV file version byte ${buf[0]}`);
      const size = buf.readUInt32BE(off);
      P.need(size === dv.sizeInBytes, `${where}: DV dataSize ${size} != sizeInBytes ${dv.sizeInBytes}`);
      bitmap = buf.subarray(off + 4, off + 4 + size);
      const crc = buf.readUInt32BE(off + 4 + size);
      P.need(crc === crc32(bitmap) >>> 0, `${where}: DV CRC-32 mismatch`);
    }
    const card = dvCardinality(bitmap);
    P.need(card === dv.cardinality, `${where}: DV holds ${card} rows, cardinality says ${dv.cardinality}`);
  } catch (e) { P.add(`${where}: deletion vector unreadable: ${e.message}`); }
}

// ---------------------------------------------------------------------------------------------
// Actions.
function checkFileAction(kind, a, P, where) {
  if (!P.need(isObj(a) && isStr(a.path) && a.path.length > 0, `${where}: ${kind}.path missing`)) return false;
  P.need(isBool(a.dataChange), `${where}: ${kind}.dataChange missing or not boolean`);
  if (kind === 'add' || kind === 'cdc') {
    P.need(isStrMap(a.partitionValues, true), `${where}: ${kind}.partitionValues missing or not a string map`);
    P.need(isInt(a.size) && a.size >= 0, `${where}: ${kind}.size missing`);
  }
  if (kind === 'add') {
    P.need(isInt(a.modificationTime), `${where}: add.modificationTime missing`);
    if (a.stats !== undefined && a.stats !== null) {
      let st = null;
      try { st = JSON.parse(a.stats); } catch { P.add(`${where}: add.stats is not JSON`); }
      if (st) {
        P.need(isInt(st.numRecords) && st.numRecords >= 0, `${where}: add.stats.numRecords missing`);
        for (const k of ['minValues', 'maxValues', 'nullCount']) if (k in st) P.need(isObj(st[k]), `${where}: stats.${k} is not an object`);
      }
    }
    if (a.tags !== undefined && a.tags !== null) P.need(isStrMap(a.tags, true), `${where}: add.tags not a string map`);
  }
  if (kind === 'remove' && a.deletionTimestamp !== undefined && a.deletionTimestamp !== null)
    P.need(isInt(a.deletionTimestamp), `${where}: remove.deletionTimestamp not a long`);
  if (kind === 'cdc') P.need(a.dataChange === false, `${where}: cdc.dataChange must be false`);
  let decoded;
  try { decoded = decodeURIComponent(a.path); } catch { P.add(`${where}: ${kind}.path '${a.path}' is not URI-encoded`); return false; }
  P.need(!decoded.startsWith('/') || a.path.includes(':'), `${where}: ${kind}.path '${a.path}' is absolute without a scheme`);
  return true;
}

const ACTIONS = ['commitInfo', 'protocol', 'metaData', 'add', 'remove', 'txn', 'cdc', 'domainMetadata'];

// ---------------------------------------------------------------------------------------------
// One table.
async function checkTable(table, duck) {
  const P = new Problems();
  const log = join(table, '_delta_log');
  const names = readdirSync(log);
  const commits = [], ckpts = [];
  for (const n of names) {
    let m;
    if ((m = /^(\d{20})\.json$/.exec(n))) commits.push(Number(m[1]));
    else if ((m = /^(\d{20})\.checkpoint\.parquet$/.exec(n))) ckpts.push(Number(m[1]));
    else if (/^(\d{20})\.checkpoint\..*$/.test(n) || /^(\d{20})\.crc$/.test(n) || n === '_last_checkpoint' || n === '_sidecars' ||
             /\.compacted\.json$/.test(n)) continue;
    else if (n.startsWith('.')) continue;       // temp files of writers (.tarn-*.tmp, .N.json.crc)
    else P.add(`_delta_log/${n}: unexpected file in the log`);
  }
  commits.sort((a, b) => a - b); ckpts.sort((a, b) => a - b);
  if (!P.need(commits.length > 0, 'no commit files')) return P;
  for (let i = 1; i < commits.length; i++) P.need(commits[i] === commits[i - 1] + 1, `versions are not contiguous: ${commits[i - 1]} then ${commits[i]}`);
  const first = commits[0];
  P.need(first === 0 || ckpts.some((c) => c >= first - 1 && c < first + 1) || ckpts.includes(first - 1) || ckpts.length,
         `log starts at ${first} with no checkpoint`);

  // replay
  let proto = null, md = null, fields = null;
  const files = new Map(), tombstones = new Map(), txns = new Map();
  const snapshots = new Map();     // version -> {proto, md, files, txns, tombstones} at checkpoint versions
  const added = new Map();         // logical file -> the add that made it live (checked at the end)
  let allTarn = first === 0;
  const intervalAt = new Map();
  for (const v of commits) {
    const where = `_delta_log/${String(v).padStart(20, '0')}.json`;
    const text = readFileSync(join(log, `${String(v).padStart(20, '0')}.json`), 'utf8');
    if (!P.need(text.length > 0, `${where}: empty commit`)) continue;
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    let sawCommitInfo = false, sawProto = false, sawMd = false, hasCdc = false, removesData = false;
    const actions = [];
    lines.forEach((line, i) => {
      const w = `${where}: line ${i + 1}`;
      let o;
      try { o = JSON.parse(line); } catch (e) { P.add(`${w}: not JSON: ${e.message}`); return; }
      const keys = isObj(o) ? Object.keys(o) : [];
      if (!P.need(keys.length === 1, `${w}: a line must hold exactly one action (${keys.join(',')})`)) return;
      const k = keys[0];
      if (!P.need(ACTIONS.includes(k), `${w}: unknown or misplaced action '${k}'`)) return;
      actions.push([k, o[k], w]);
    });
    for (const [k, a, w] of actions) {
      if (k === 'commitInfo') {
        P.need(!sawCommitInfo, `${w}: two commitInfo actions`);
        sawCommitInfo = true;
        P.need(isObj(a), `${w}: commitInfo not an object`);
        if (isObj(a)) {
          if ('timestamp' in a) P.need(isInt(a.timestamp), `${w}: commitInfo.timestamp not a long`);
          if ('operationParameters' in a) P.need(isStrMap(a.operationParameters, true), `${w}: commitInfo.operationParameters values must be strings`);
          if (!(isStr(a.engineInfo) && a.engineInfo.startsWith('tarn/'))) allTarn = false;
          if (a.operation === 'DELETE' && isObj(a.operationParameters) && 'predicate' in a.operationParameters) {
            let pr = null;
            try { pr = JSON.parse(a.operationParameters.predicate); } catch { /* free text is allowed */ }
            P.need(Array.isArray(pr) && pr.every(isStr), `${w}: DELETE predicate should be a JSON array of SQL texts (as Spark writes)`);
          }
        }
      } else if (k === 'protocol') {
        P.need(!sawProto, `${w}: two protocol actions`); sawProto = true;
        checkProtocol(a, P, w);
        if (proto && isObj(a)) {
          P.need(a.minReaderVersion >= proto.minReaderVersion && a.minWriterVersion >= proto.minWriterVersion,
                 `${w}: protocol downgraded from ${JSON.stringify(proto)}`);
          for (const f of proto.writerFeatures || []) P.need((a.writerFeatures || []).includes(f) || a.minWriterVersion < 7, `${w}: writer feature '${f}' removed`);
        }
        proto = a;
      } else if (k === 'metaData') {
        P.need(!sawMd, `${w}: two metaData actions`); sawMd = true;
        const f = checkMetadata(a, P, w);
        if (f) { md = a; fields = f; }
      }
    }
    if (v === first && first === 0) {
      P.need(sawProto, `${where}: version 0 has no protocol`);
      P.need(sawMd, `${where}: version 0 has no metaData`);
    }
    if (!proto || !md || !fields) continue;
    const mode = (md.configuration || {})['delta.columnMapping.mode'] || 'none';
    const partPhys = (md.partitionColumns || []).map((pc) => physicalName(fields.find((f) => f.name === pc) || { name: pc }, mode));
    if (sawProto || sawMd) checkFeatures(proto, md, fields, P, where);
    const conf = md.configuration || {};
    const appendOnly = (conf['delta.appendOnly'] || '').toLowerCase() === 'true';
    const cdf = (conf['delta.enableChangeDataFeed'] || '').toLowerCase() === 'true';
    intervalAt.set(v, Number(conf['delta.checkpointInterval'] || 10));
    for (const [k, a, w] of actions) {
      if (k === 'add' || k === 'remove' || k === 'cdc') {
        if (!checkFileAction(k, a, P, w)) continue;
        const key = a.path + '|' + (isObj(a.deletionVector) ? `${a.deletionVector.storageType}${a.deletionVector.pathOrInlineDv}${a.deletionVector.offset != null ? '@' + a.deletionVector.offset : ''}` : '');
        if (k !== 'remove' && isStrMap(a.partitionValues, true)) {
          const got = Object.keys(a.partitionValues).sort().join(','), want = [...partPhys].sort().join(',');
          P.need(got === want, `${w}: ${k}.partitionValues keys [${got}] != partition columns [${want}]`);
        }
        if (isObj(a.deletionVector)) {
          P.need(supports(proto, 'deletionVectors'), `${w}: a deletion vector on a table without the deletionVectors feature`);
          if (k === 'add') {
            checkDv(table, a.deletionVector, P, w);
            let st = null;
            try { st = JSON.parse(a.stats); } catch { /* reported above */ }
            P.need(st && isInt(st.numRecords), `${w}: an add with a deletion vector needs stats.numRecords`);
          }
        }
        if (k === 'add') {
          files.set(key, a); tombstones.delete(a.path);
          added.set(key, { a, w, fields, md, mode });
        } else if (k === 'remove') {
          if (!files.has(key)) {
            // removing a logical file that is not live is legal only for a path that was live
            const anyLive = [...files.keys()].some((fk) => fk.startsWith(a.path + '|'));
            P.need(anyLive || tombstones.has(a.path) || v !== first, `${w}: remove of ${a.path}, which is not in the table`);
          }
          files.delete(key); tombstones.set(a.path, a);
          if (a.dataChange) removesData = true;
        } else {
          hasCdc = true;
          P.need(decodeURIComponent(a.path).startsWith('_change_data/'), `${w}: cdc file ${a.path} outside _change_data/`);
          const full = join(table, decodeURIComponent(a.path));
          if (existsSync(full) || v === commits[commits.length - 1]) {
            if (!P.need(existsSync(full), `${w}: cdc file ${a.path} missing`)) continue;
            P.need(statSync(full).size === a.size, `${w}: cdc ${a.path} size mismatch`);
            if (duck) await checkCdcFile(duck, full, fields, P, w);
          }
        }
      } else if (k === 'txn') {
        P.need(isObj(a) && isStr(a.appId) && isInt(a.version), `${w}: txn needs appId and version`);
        if (isObj(a)) txns.set(a.appId, a.version);
      } else if (k === 'domainMetadata') {
        P.need(isObj(a) && isStr(a.domain) && isStr(a.configuration) && isBool(a.removed), `${w}: domainMetadata fields`);
        P.need(supports(proto, 'domainMetadata'), `${w}: domainMetadata without the domainMetadata feature`);
      }
    }
    if (hasCdc) P.need(cdf && supports(proto, 'changeDataFeed'), `${where}: cdc actions on a table without change data feed`);
    if (appendOnly && v > first && !sawMd) P.need(!removesData, `${where}: append-only table lost data (remove with dataChange=true)`);
    if (ckpts.includes(v)) snapshots.set(v, { proto, md, fields, files: new Map(files), txns: new Map(txns), tombstones: new Map(tombstones) });
  }

  // the files of the latest snapshot exist with their logged size (removed ones may be vacuumed)
  for (const [key, { a, w, fields: f, md: m, mode }] of added) {
    if (!files.has(key)) continue;
    const full = a.path.includes(':') ? fileURLToPath(a.path) : join(table, decodeURIComponent(a.path));
    if (!P.need(existsSync(full), `${w}: data file ${a.path} missing`)) continue;
    P.need(statSync(full).size === a.size, `${w}: ${a.path} is ${statSync(full).size} bytes, add.size says ${a.size}`);
    if (duck) await checkDataFile(duck, full, f, m, mode, P, w);
  }
  // checkpoints
  for (const c of ckpts) {
    const snap = snapshots.get(c);
    const w = `_delta_log/${String(c).padStart(20, '0')}.checkpoint.parquet`;
    if (!snap) { if (c >= first) P.add(`${w}: checkpoint of a version without a commit`); continue; }
    if (duck) await checkCheckpoint(duck, join(log, `${String(c).padStart(20, '0')}.checkpoint.parquet`), snap, P, w);
  }
  if (allTarn && !crashed) {
    for (const v of commits) {
      const iv = intervalAt.get(v) || 10;
      if (v > 0 && v % iv === 0) P.need(ckpts.includes(v), `no checkpoint at version ${v} (delta.checkpointInterval = ${iv})`);
    }
  }
  // _last_checkpoint
  const lc = join(log, '_last_checkpoint');
  if (existsSync(lc)) {
    let o = null;
    try { o = JSON.parse(readFileSync(lc, 'utf8')); } catch (e) { P.add(`_last_checkpoint: not JSON: ${e.message}`); }
    if (o) {
      P.need(isInt(o.version) && isInt(o.size), '_last_checkpoint: version and size are required longs');
      P.need(ckpts.includes(o.version), `_last_checkpoint: no checkpoint at version ${o.version}`);
      if (allTarn && !crashed) P.need(o.version === ckpts[ckpts.length - 1], `_last_checkpoint: version ${o.version} is not the newest checkpoint ${ckpts[ckpts.length - 1]}`);
      const cf = join(log, `${String(o.version).padStart(20, '0')}.checkpoint.parquet`);
      if (duck && existsSync(cf)) {
        const rows = await duck.all(`SELECT count(*)::BIGINT AS n, count(add)::BIGINT AS a FROM read_parquet('${cf}')`);
        P.need(Number(rows[0].n) === o.size, `_last_checkpoint: size ${o.size} but the checkpoint holds ${rows[0].n} actions`);
        if ('numOfAddFiles' in o) P.need(Number(rows[0].a) === o.numOfAddFiles, `_last_checkpoint: numOfAddFiles ${o.numOfAddFiles} != ${rows[0].a}`);
        if ('sizeInBytes' in o) P.need(statSync(cf).size === o.sizeInBytes, `_last_checkpoint: sizeInBytes ${o.sizeInBytes} != ${statSync(cf).size}`);
      }
    }
  } else if (ckpts.length && allTarn && !crashed) {
    // a writer killed between a checkpoint and its hint leaves exactly this (the hint is optional)
    P.add('checkpoints without _last_checkpoint');
  }
  return P;
}

// ---------------------------------------------------------------------------------------------
// Parquet, through DuckDB.
const sq = (s) => `'${s.replace(/'/g, "''")}'`;

// parquet_schema rows -> tree {name, children, field_id, type}
async function parquetTree(duck, file) {
  const rows = await duck.all(`SELECT name, type, num_children, field_id, logical_type, converted_type FROM parquet_schema(${sq(file)})`);
  let i = 0;
  const build = () => {
    const r = rows[i++];
    const node = { name: r.name, type: r.type, field_id: r.field_id === null ? null : Number(r.field_id), logical: r.logical_type, converted: r.converted_type, children: [] };
    for (let k = 0; k < Number(r.num_children || 0); k++) node.children.push(build());
    return node;
  };
  return build();
}

async function checkDataFile(duck, file, fields, md, mode, P, w) {
  let tree;
  try { tree = await parquetTree(duck, file); } catch (e) { P.add(`${w}: data file unreadable: ${e.message}`); return; }
  const top = new Map(tree.children.map((c) => [c.name, c]));
  const parts = new Set(md.partitionColumns || []);
  for (const f of fields) {
    const pn = physicalName(f, mode);
    if (parts.has(f.name)) { P.need(!top.has(pn), `${w}: partition column ${f.name} stored in the data file`); continue; }
    const col = top.get(pn);
    if (!col) continue;      // added later: read as NULL
    if (mode === 'id') P.need(col.field_id === f.metadata['delta.columnMapping.id'], `${w}: column ${pn} field_id ${col.field_id} != ${f.metadata['delta.columnMapping.id']}`);
    if (mode !== 'none') P.need(col.field_id === null || col.field_id === f.metadata['delta.columnMapping.id'], `${w}: column ${pn} field_id ${col.field_id}`);
  }
  if (mode !== 'none')
    for (const c of tree.children) P.need(fields.some((f) => physicalName(f, mode) === c.name) || c.name === '_change_type',
      `${w}: file column '${c.name}' is not a physical name of the schema`);
}

async function checkCdcFile(duck, file, fields, P, w) {
  try {
    const rows = await duck.all(`SELECT DISTINCT _change_type::VARCHAR AS t FROM read_parquet(${sq(file)})`);
    for (const r of rows) P.need(['insert', 'delete', 'update_preimage', 'update_postimage'].includes(r.t), `${w}: _change_type '${r.t}'`);
  } catch (e) { P.add(`${w}: cdc file has no readable _change_type column: ${e.message}`); }
}

const PRIMITIVE_PARQUET = {   // Delta primitive -> accepted parquet physical types for stats_parsed
  string: ['BYTE_ARRAY'], long: ['INT64'], integer: ['INT32'], short: ['INT32'], byte: ['INT32'], float: ['FLOAT'],
  double: ['DOUBLE'], boolean: ['BOOLEAN'], binary: ['BYTE_ARRAY'], date: ['INT32'], timestamp: ['INT64', 'INT96'],
  timestamp_ntz: ['INT64'],
};
function decimalOk(node, t) { return /^decimal/.test(t) && ['INT32', 'INT64', 'FIXED_LEN_BYTE_ARRAY', 'BYTE_ARRAY'].includes(node.type); }

async function checkCheckpoint(duck, file, snap, P, w) {
  let tree;
  try { tree = await parquetTree(duck, file); } catch (e) { P.add(`${w}: unreadable: ${e.message}`); return; }
  const top = new Map(tree.children.map((c) => [c.name, c]));
  for (const k of ['add', 'remove', 'metaData', 'protocol', 'txn']) P.need(top.has(k), `${w}: no '${k}' column`);
  for (const k of top.keys()) P.need(['add', 'remove', 'metaData', 'protocol', 'txn', 'domainMetadata', 'checkpointMetadata', 'sidecar'].includes(k),
                                     `${w}: column '${k}' does not belong in a checkpoint (no commitInfo or cdc)`);
  const conf = snap.md.configuration || {};
  const asJson = (conf['delta.checkpoint.writeStatsAsJson'] || 'true').toLowerCase() !== 'false';
  const asStruct = (conf['delta.checkpoint.writeStatsAsStruct'] || 'false').toLowerCase() === 'true';
  const mode = conf['delta.columnMapping.mode'] || 'none';
  const add = top.get('add');
  if (add) {
    const ac = new Map(add.children.map((c) => [c.name, c]));
    for (const k of ['path', 'partitionValues', 'size', 'modificationTime', 'dataChange']) P.need(ac.has(k), `${w}: add.${k} missing from the schema`);
    if (ac.has('partitionValues')) P.need(ac.get('partitionValues').converted === 'MAP' || /Map/i.test(String(ac.get('partitionValues').logical)), `${w}: add.partitionValues is not a MAP`);
    if (ac.has('size')) P.need(ac.get('size').type === 'INT64', `${w}: add.size is not INT64`);
    P.need(asJson === ac.has('stats'), `${w}: add.stats ${ac.has('stats') ? 'present' : 'absent'} but writeStatsAsJson = ${asJson}`);
    P.need(asStruct === ac.has('stats_parsed'), `${w}: add.stats_parsed ${ac.has('stats_parsed') ? 'present' : 'absent'} but writeStatsAsStruct = ${asStruct}`);
    const parts = snap.md.partitionColumns || [];
    P.need((asStruct && parts.length > 0) === ac.has('partitionValues_parsed'),
           `${w}: add.partitionValues_parsed ${ac.has('partitionValues_parsed') ? 'present' : 'absent'} (writeStatsAsStruct = ${asStruct}, ${parts.length} partition columns)`);
    const typeOf = (f) => (isStr(f.type) ? f.type : null);
    const checkLeaf = (node, f, what) => {
      const t = typeOf(f);
      if (!t) return;
      P.need((PRIMITIVE_PARQUET[t] || []).includes(node.type) || decimalOk(node, t), `${w}: ${what} has parquet type ${node.type} for ${t}`);
    };
    if (ac.has('partitionValues_parsed')) {
      const pv = new Map(ac.get('partitionValues_parsed').children.map((c) => [c.name, c]));
      for (const pc of parts) {
        const f = snap.fields.find((x) => x.name === pc);
        const pn = physicalName(f, mode);
        if (P.need(pv.has(pn), `${w}: partitionValues_parsed lacks ${pn}`)) checkLeaf(pv.get(pn), f, `partitionValues_parsed.${pn}`);
      }
    }
    if (ac.has('stats_parsed')) {
      const sp = new Map(ac.get('stats_parsed').children.map((c) => [c.name, c]));
      P.need(sp.has('numRecords') && sp.get('numRecords').type === 'INT64', `${w}: stats_parsed.numRecords missing or not INT64`);
      for (const k of ['minValues', 'maxValues', 'nullCount']) {
        if (!sp.has(k)) continue;
        for (const c of sp.get(k).children) {
          const f = snap.fields.find((x) => physicalName(x, mode) === c.name);
          if (!P.need(f, `${w}: stats_parsed.${k}.${c.name} is not a column`)) continue;
          if (k === 'nullCount') P.need(c.type === 'INT64', `${w}: stats_parsed.nullCount.${c.name} is not INT64`);
          else checkLeaf(c, f, `stats_parsed.${k}.${c.name}`);
        }
      }
    }
  }
  // rows
  let rows;
  try {
    rows = await duck.all(`SELECT to_json(t)::VARCHAR AS j FROM read_parquet(${sq(file)}) t`);
  } catch (e) { P.add(`${w}: rows unreadable: ${e.message}`); return; }
  const live = new Map();
  let nproto = 0, nmd = 0;
  const txns = new Map();
  rows.forEach((r, i) => {
    const o = JSON.parse(r.j);
    const set = Object.entries(o).filter(([, v]) => v !== null);
    if (!P.need(set.length === 1, `${w}: row ${i}: ${set.length} non-null action columns`)) return;
    const [k, a] = set[0];
    if (k === 'add') {
      const dv = a.deletionVector;
      live.set(a.path + '|' + (dv ? `${dv.storageType}${dv.pathOrInlineDv}${dv.offset != null ? '@' + dv.offset : ''}` : ''), a);
      if (a.stats_parsed && a.stats) P.need(Number(a.stats_parsed.numRecords) === JSON.parse(a.stats).numRecords, `${w}: row ${i}: stats_parsed.numRecords != stats`);
    } else if (k === 'protocol') {
      nproto++;
      const p = snap.proto;
      P.need(a.minReaderVersion === p.minReaderVersion && a.minWriterVersion === p.minWriterVersion, `${w}: protocol differs from the log's`);
      if (p.minReaderVersion === 3) P.need(Array.isArray(a.readerFeatures), `${w}: readerFeatures null on a reader-3 table`);
      else P.need(a.readerFeatures == null, `${w}: readerFeatures not null below reader 3`);
      if (p.minWriterVersion === 7) P.need(Array.isArray(a.writerFeatures) && [...a.writerFeatures].sort().join() === [...p.writerFeatures].sort().join(), `${w}: writerFeatures differ`);
      else P.need(a.writerFeatures == null, `${w}: writerFeatures not null below writer 7`);
    } else if (k === 'metaData') {
      nmd++;
      P.need(a.id === snap.md.id && a.schemaString === snap.md.schemaString, `${w}: metaData differs from the log's`);
      const c1 = JSON.stringify(Object.entries(a.configuration || {}).sort()), c2 = JSON.stringify(Object.entries(snap.md.configuration || {}).sort());
      P.need(c1 === c2, `${w}: metaData.configuration differs from the log's`);
    } else if (k === 'txn') {
      txns.set(a.appId, Number(a.version));
    } else if (k === 'remove') {
      P.need(!('stats' in a) || a.stats === null, `${w}: remove in a checkpoint keeps stats`);
    }
  });
  P.need(nproto === 1 && nmd === 1, `${w}: ${nproto} protocol and ${nmd} metaData rows`);
  const want = [...snap.files.keys()].sort(), got = [...live.keys()].sort();
  P.need(JSON.stringify(want) === JSON.stringify(got), `${w}: ${got.length} live files, the log replay gives ${want.length}`);
  for (const [app, v] of snap.txns) P.need(txns.get(app) === v, `${w}: txn ${app} = ${txns.get(app)}, the log says ${v}`);
}

// ---------------------------------------------------------------------------------------------
async function openDuck() {
  let api;
  try { api = require('@duckdb/node-api'); } catch { return null; }
  const inst = await api.DuckDBInstance.create(':memory:', { threads: '1' });
  const con = await inst.connect();
  return {
    async all(sql) { const r = await con.runAndReadAll(sql); return r.getRowObjects(); },
  };
}

const args = process.argv.slice(2);
let record = null, crashed = false;
const dirs = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--record') record = args[++i];
  else if (args[i] === '--crashed') crashed = true;   // writers were killed: checkpoints may be missing
  else dirs.push(args[i]);
}
const tables = [];
const seen = new Set();
for (const d of dirs) findTables(resolve(d), tables, seen);
const duck = tables.length ? await openDuck() : null;
let failed = 0;
const out = [];
if (tables.length && !duck) {
  // without the oracle the Parquet half cannot be checked: counted as skipped, not passed
  for (const t of tables) { console.log(`delta-check: skipped ${t} (DuckDB oracle not installed)`); out.push(`SKIP ${t}`); }
  if (record) appendFileSync(record, out.join('\n') + '\n');
  process.exit(0);
}
for (const t of tables) {
  let P;
  try { P = await checkTable(t, duck); } catch (e) { P = new Problems(); P.add(`checker error: ${e.stack || e}`); }
  if (P.list.length) {
    failed++;
    const line = `FAIL ${t}: ${P.list.join(' | ')}`;
    console.log(`delta-check: ${line}`);
    out.push(line);
  } else {
    console.log(`delta-check: ok ${t}`);
    out.push(`PASS ${t}`);
  }
}
if (record && out.length) appendFileSync(record, out.join('\n') + '\n');
process.exit(failed ? 1 : 0);
