// tests/tpch/compare.mjs EXPECTED.csv ACTUAL.csv: compares two query results printed as CSV
// (header + rows, in order) and exits 0 when they agree, else 1 with the first difference.
// Values compare as text, except that two values which both parse as numbers compare as
// numbers with a relative tolerance of 1e-9 (DuckDB's oracle prints doubles through
// JavaScript, so 0.0 arrives as "0", and the order of floating-point sums may differ).
import { readFileSync } from 'node:fs';

function parseCsv(text) {
    const rows = [];
    let row = [], field = '', quoted = false, i = 0;
    while (i < text.length) {
        const c = text[i];
        if (quoted) {
            if (c === '"' && text[i + 1] === '"') { field += '"'; i += 2; continue; }
            if (c === '"') { quoted = false; i++; continue; }
            field += c; i++; continue;
        }
        if (c === '"') { quoted = true; i++; continue; }
        if (c === ',') { row.push(field); field = ''; i++; continue; }
        if (c === '\n' || c === '\r') {
            row.push(field); rows.push(row); row = []; field = '';
            i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
            continue;
        }
        field += c; i++;
    }
    if (field !== '' || row.length) { row.push(field); rows.push(row); }
    return rows;
}

const numeric = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
function same(a, b) {
    if (a === b) return true;
    if (!numeric.test(a) || !numeric.test(b)) return false;
    const x = Number(a), y = Number(b);
    return Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x), Math.abs(y));
}

const [expectedFile, actualFile] = process.argv.slice(2);
const expected = parseCsv(readFileSync(expectedFile, 'utf8'));
const actual = parseCsv(readFileSync(actualFile, 'utf8'));
if (expected.length !== actual.length) {
    console.log(`rows: expected ${expected.length - 1}, got ${actual.length - 1}`);
    process.exit(1);
}
for (let r = 0; r < expected.length; r++) {
    const e = expected[r], a = actual[r];
    const what = r === 0 ? 'header' : `row ${r}`;
    if (e.length !== a.length) { console.log(`${what}: ${e.length} columns expected, got ${a.length}`); process.exit(1); }
    for (let c = 0; c < e.length; c++) {
        const ok = r === 0 ? e[c] === a[c] : same(e[c], a[c]);
        if (!ok) { console.log(`${what}, column ${c + 1}: expected '${e[c]}', got '${a[c]}'`); process.exit(1); }
    }
}
