// tests/server/node_client.js: node-pg against `tarn serve`: parameterized queries (the
// extended protocol: Parse/Bind/Describe/Execute/Sync), named prepared statements reused, types
// of results, errors with SQLSTATE (err.code) and position, and many concurrent clients mixing
// reads and appends. Prints one "ok NAME" or "FAIL NAME: why" line per check.
const { Client, Pool } = require('pg');
const port = Number(process.argv[2]);
const cfg = { host: '127.0.0.1', port, user: 'tester', database: 'tarn', application_name: 'node-test' };

function check(name, expected, actual) {
    const e = JSON.stringify(expected), a = JSON.stringify(actual);
    console.log(e === a ? `ok ${name}` : `FAIL ${name}: expected ${e}, got ${a}`);
}

async function main() {
    const c = new Client(cfg);
    await c.connect();
    let r = await c.query('select $1::int + 1 as x, $2::varchar as s', [41, 'hi']);
    check('parameters', [{ x: 42, s: 'hi' }], r.rows);
    await c.query('create table nd (id bigint, v double, name varchar, ok boolean, day date)');
    r = await c.query('insert into nd values ($1, $2, $3, $4, $5)', [1, 0.5, 'one', true, '2024-01-02']);
    check('insert rowCount', 1, r.rowCount);
    check('insert command', 'INSERT', r.command);
    for (let i = 2; i <= 5; i++)
        await c.query({ name: 'ins', text: 'insert into nd values ($1, $2, $3, $4, $5)', values: [i, i / 4, `n${i}`, i % 2 === 0, null] });
    r = await c.query({ name: 'sel', text: 'select id, v, name, ok from nd where id >= $1 order by id', values: [4] });
    check('named statement', [{ id: '4', v: 1, name: 'n4', ok: true }, { id: '5', v: 1.25, name: 'n5', ok: false }], r.rows);
    r = await c.query({ name: 'sel', text: 'select id, v, name, ok from nd where id >= $1 order by id', values: [5] });
    check('named statement reused', 1, r.rows.length);
    check('field types', [20, 701, 25, 16], r.fields.map(f => f.dataTypeID));
    r = await c.query({ text: 'select id, name from nd where id = $1', values: [1], rowMode: 'array' });
    check('row mode array', [['1', 'one']], r.rows);
    r = await c.query('select count(*) as n, sum(v) as s from nd');
    check('aggregate', [{ n: '5', s: 4 }], r.rows);
    r = await c.query('select day from nd where id = 1');
    check('date parsed', '2024-01-02', r.rows[0].day.getFullYear() + '-0' + (r.rows[0].day.getMonth() + 1) + '-0' + r.rows[0].day.getDate());
    r = await c.query('select $1::varchar is null as isnull', [null]);
    check('null parameter', [{ isnull: true }], r.rows);
    try {
        await c.query('select * from nd where nope = $1', [1]);
        check('undefined column raises', true, false);
    } catch (e) {
        check('undefined column code', '42703', e.code);
        check('error position', '24', e.position);
    }
    try {
        await c.query('select $1::int', ['x1']);
        check('bad parameter raises', true, false);
    } catch (e) {
        check('bad int parameter 22P02', '22P02', e.code);
    }
    r = await c.query('select 1 as one');
    check('session goes on after errors', [{ one: 1 }], r.rows);
    await c.end();

    // 32 concurrent clients: reads and appends mixed; every append must be there at the end.
    const pool = new Pool({ ...cfg, max: 32 });
    const jobs = [];
    for (let k = 0; k < 32; k++) {
        jobs.push((async () => {
            const cl = await pool.connect();
            try {
                let errs = [];
                for (let j = 0; j < 4; j++) {
                    if (k % 2 === 0) {
                        try { await cl.query('insert into nd values ($1, $2, $3, $4, $5)', [100 + k * 10 + j, 0, 'c', true, null]); }
                        catch (e) { errs.push(e.code); }
                    } else {
                        const x = await cl.query('select count(*) as n from nd');
                        if (!(Number(x.rows[0].n) >= 5)) errs.push('count ' + x.rows[0].n);
                    }
                }
                return errs;
            } finally { cl.release(); }
        })());
    }
    const errs = (await Promise.all(jobs)).flat();
    check('concurrent clients: no errors other than 40001', [], errs.filter(e => e !== '40001'));
    const conflicts = errs.filter(e => e === '40001').length;
    r = await pool.query('select count(*) as n from nd where id >= 100');
    check('concurrent appends all committed', 64 - conflicts, Number(r.rows[0].n));
    await pool.end();
}
main().catch(e => { console.log('FAIL node client: ' + (e.stack || e)); process.exit(1); });
