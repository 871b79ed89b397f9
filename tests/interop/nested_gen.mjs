// tests/interop/nested_gen.mjs: random nested columns for nested_write_duckdb.sh. Prints one
// SQL query (DuckDB's and tarn's common dialect) whose result is an `id` column plus random
// LIST / STRUCT / MAP columns nested up to 4 levels, with NULLs at every level, empty lists and
// maps, and (for some seeds) one list long enough to span several pages:
//   node nested_gen.mjs SEED [ROWS]
// Every cell is CAST(<literal> AS <type>) so both engines see exactly the same types. Also
// prints the column types on stderr (for the DDL tests): "c0 INTEGER[]" lines.
const seed = Number(process.argv[2] || 1);
const nrows = Number(process.argv[3] || 40);
let state = (seed * 2654435761) >>> 0 || 1;
function rnd() {            // xorshift32, deterministic per seed
    state ^= state << 13; state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5; state >>>= 0;
    return state / 4294967296;
}
const pick = (a) => a[Math.floor(rnd() * a.length)];
const LEAVES = ['INTEGER', 'BIGINT', 'VARCHAR', 'DOUBLE', 'BOOLEAN', 'DATE', 'DECIMAL(18,3)', 'SMALLINT'];
const WORDS = ['a', 'b c', 'x,y', '', 'it\'s', 'null', ' lead', 'trail ', '[br]', '{k=v}', 'ünï', 'q"q'];

function genType(depth) {
    if (depth === 0 || rnd() < 0.25) return { kind: 'leaf', name: pick(LEAVES) };
    const r = rnd();
    if (r < 0.4) return { kind: 'list', elem: genType(depth - 1) };
    if (r < 0.7) {
        const n = 1 + Math.floor(rnd() * 3);
        const fields = [];
        for (let i = 0; i < n; i++) fields.push({ name: 'f' + i, type: genType(depth - 1) });
        return { kind: 'struct', fields };
    }
    return { kind: 'map', key: { kind: 'leaf', name: pick(['INTEGER', 'VARCHAR']) }, value: genType(depth - 1) };
}

function typeText(t) {
    switch (t.kind) {
    case 'leaf': return t.name;
    case 'list': return typeText(t.elem) + '[]';
    case 'struct': return 'STRUCT(' + t.fields.map((f) => f.name + ' ' + typeText(f.type)).join(', ') + ')';
    case 'map': return 'MAP(' + typeText(t.key) + ', ' + typeText(t.value) + ')';
    }
}

function leafValue(name, i) {
    switch (name) {
    case 'INTEGER': return String(Math.floor(rnd() * 2000) - 1000);
    case 'SMALLINT': return String(Math.floor(rnd() * 200) - 100);
    case 'BIGINT': return String(Math.floor(rnd() * 1e12) - 5e11);
    case 'VARCHAR': return "'" + pick(WORDS).replace(/'/g, "''") + (i === undefined ? '' : String(i)) + "'";
    case 'DOUBLE': return String((Math.floor(rnd() * 4000) - 2000) / 4);
    case 'BOOLEAN': return rnd() < 0.5 ? 'true' : 'false';
    case 'DATE': {
        const d = new Date(Date.UTC(1990, 0, 1) + Math.floor(rnd() * 20000) * 86400000);
        return "DATE '" + d.toISOString().slice(0, 10) + "'";
    }
    case 'DECIMAL(18,3)': return ((Math.floor(rnd() * 2e6) - 1e6) / 1000).toFixed(3);
    }
    throw new Error('leaf ' + name);
}

function value(t, nullable = true, big = false) {
    if (nullable && rnd() < 0.15) return 'NULL';
    switch (t.kind) {
    case 'leaf': return leafValue(t.name);
    case 'list': {
        const n = rnd() < 0.2 ? 0 : 1 + Math.floor(rnd() * 4);
        if (big) {      // a literal list holds at most 64 elements in tarn: split a string
            const m = 3000 + Math.floor(rnd() * 2000), parts = [];
            for (let i = 0; i < m; i++) parts.push(t.elem.name === 'VARCHAR' ? 'w' + Math.floor(rnd() * 50000) : leafValue(t.elem.name));
            return "string_split('" + parts.join(',') + "', ',')";
        }
        const a = [];
        for (let i = 0; i < n; i++) a.push(value(t.elem));
        return '[' + a.join(', ') + ']';
    }
    case 'struct':
        return '{' + t.fields.map((f) => "'" + f.name + "': " + value(f.type)).join(', ') + '}';
    case 'map': {
        const n = rnd() < 0.2 ? 0 : 1 + Math.floor(rnd() * 3);
        const keys = new Set();
        const a = [];
        for (let i = 0; i < n; i++) {
            const k = t.key.name === 'INTEGER' ? String(i * 7 + Math.floor(rnd() * 5)) : leafValue('VARCHAR', i);
            if (keys.has(k)) continue;
            keys.add(k);
            a.push(k + ': ' + value(t.value));
        }
        return 'MAP {' + a.join(', ') + '}';
    }
    }
}

const ncols = 2 + Math.floor(rnd() * 3);
const types = [];
for (let c = 0; c < ncols; c++) {
    let t = genType(4);
    if (t.kind === 'leaf') t = { kind: 'list', elem: t };
    types.push(t);
}
// one seed in three: a long list of leaves (spans pages) in an extra column, in a few rows
const bigCol = seed % 3 === 0;
if (bigCol) types.push({ kind: 'list', elem: { kind: 'leaf', name: pick(['INTEGER', 'VARCHAR', 'DOUBLE']) } });
const rows = [];
for (let r = 0; r < nrows; r++) {
    const cells = [String(r)];
    types.forEach((t, c) => {
        const big = bigCol && c === types.length - 1 && r % 10 === 3;
        cells.push('CAST(' + value(t, true, big) + ' AS ' + typeText(t) + ')');
    });
    rows.push('(' + cells.join(', ') + ')');
}
const names = ['id'].concat(types.map((_, c) => 'c' + c));
process.stdout.write('SELECT * FROM (VALUES ' + rows.join(',\n') + ') t(' + names.join(', ') + ')\n');
process.stderr.write(types.map((t, c) => 'c' + c + ' ' + typeText(t)).join('\n') + '\n');
