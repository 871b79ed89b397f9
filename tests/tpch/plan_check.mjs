// tests/tpch/plan_check.mjs PLAN.csv [big-table...]: checks properties of a tarn EXPLAIN (as
// `tarn -csv` prints it: one quoted line per plan node, children indented by two spaces), not
// its exact text. Exits 0 when they hold, else 1 naming the first that does not:
//  - no join is a cross product (every TPC-H query connects its tables by predicates);
//  - no hash join builds on the whole of a big table (lineitem, orders...: a scan under
//    projections only, no filter): the big tables stream through probes.
//  - with PLAN_PROBE=table: no hash join builds on a subtree that reads that table at all
//    (filtered or not: the estimates must see it is the larger side).
// Build side: a HASH_JOIN builds on its right (second) child unless it says "(build: left)".
import { readFileSync } from 'node:fs';

const [file, ...big] = process.argv.slice(2);
const lines = readFileSync(file, 'utf8').split('\n').slice(1).filter((l) => l !== '')
    .map((l) => (l.startsWith('"') ? l.slice(1, -1).replaceAll('""', '"') : l));
const root = { text: 'root', kids: [], depth: -1 };
const stack = [root];
for (const l of lines) {
    const depth = l.length - l.trimStart().length;
    const node = { text: l.trim(), kids: [], depth };
    while (stack[stack.length - 1].depth >= depth) stack.pop();
    stack[stack.length - 1].kids.push(node);
    stack.push(node);
}

// The table a node reads when it is a scan under projections only.
function rawScan(n) {
    while (/^PROJECT\b/.test(n.text) && n.kids.length === 1) n = n.kids[0];
    const m = /^PARQUET_SCAN (\S+)/.exec(n.text);
    return m ? m[1].replace(/^.*\//, '').replace(/\.parquet$/, '') : null;
}

const probe = process.env.PLAN_PROBE || '';
function reads(n, t) {
    const m = /^PARQUET_SCAN (\S+)/.exec(n.text);
    if (m && m[1].replace(/^.*\//, '').replace(/\.parquet$/, '') === t) return true;
    return n.kids.some((k) => reads(k, t));
}

const problems = [];
(function walk(n) {
    if (/^HASH_JOIN/.test(n.text)) {
        if (n.text.includes('cross product')) problems.push(`cross product: ${n.text}`);
        const build = n.kids[n.text.includes('(build: left)') ? 0 : 1];
        const t = build && rawScan(build);
        if (t && big.includes(t)) problems.push(`${t} builds the hash table of: ${n.text}`);
        if (probe && build && reads(build, probe)) problems.push(`${probe} (filtered) builds the hash table of: ${n.text}`);
    }
    n.kids.forEach(walk);
})(root);
if (problems.length) {
    console.log(problems[0]);
    process.exit(1);
}
