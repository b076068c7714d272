#!/usr/bin/env node
// The Node.js cassandra-driver (npm, installed by `make deps` into tests/server/node/node_modules
// with `npm ci`) against a real `cassette serve`: connect and metadata, CQL types into the
// driver's types, errors mapped to its error classes, authentication on and off.
//
// Usage: node tests/server/node/test_node_driver.js BUILD_DIR
// Prints "server-node: N passed, M failed" last.
'use strict';

const assert = require('assert');
const childProcess = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const readline = require('readline');
const cassandra = require('cassandra-driver');

const { errors, types } = cassandra;
const buildDir = path.resolve(process.argv[2] || 'build');
const cassette = path.join(buildDir, 'cassette');
const KEYSPACE = "CREATE KEYSPACE ks WITH replication = " +
    "{'class': 'SimpleStrategy', 'replication_factor': 1}";

// Starts `cassette serve STORE --listen 127.0.0.1:0 ...options`; resolves to { port, stop },
// where stop() sends SIGTERM and resolves to the exit status.
function startServer(store, ...options) {
  const server = childProcess.spawn(cassette, ['serve', store, '--listen', '127.0.0.1:0', ...options],
                                    { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => server.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: server.stdout });
    lines.once('line', (line) => {
      const match = /^listening on 127\.0\.0\.1:(\d+)$/.exec(line);
      if (!match) return reject(new Error(`no 'listening on' line: ${line}`));
      resolve({
        port: Number(match[1]),
        stop: () => { server.kill('SIGTERM'); return exited; },
      });
    });
    server.on('error', reject);
  });
}

function client(server, options = {}) {
  return new cassandra.Client({
    contactPoints: ['127.0.0.1'], localDataCenter: 'datacenter1',
    protocolOptions: { port: server.port }, socketOptions: { connectTimeout: 10000 }, ...options,
  });
}

// Runs `body(server)` against a fresh server, then stops it and checks a clean exit.
async function withServer(options, body) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cassette-node-'));
  const server = await startServer(path.join(dir, 'store'), ...options);
  try {
    await body(server);
  } finally {
    const status = await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    assert.strictEqual(status, 0, `cassette serve exited with ${status}`);
  }
}

async function withClient(server, options, body) {
  const c = client(server, options);
  try {
    await c.connect();
    await body(c);
  } finally {
    await c.shutdown();
  }
}

const tests = {};

tests.connect_and_read_metadata = () => withServer([], (server) => withClient(server, {}, async (c) => {
  await c.execute(KEYSPACE);
  await c.execute('CREATE TABLE ks.users (id int, at timestamp, name text, ' +
                  'PRIMARY KEY (id, at)) WITH CLUSTERING ORDER BY (at DESC)');
  const local = await c.execute('SELECT release_version FROM system.local');
  assert.strictEqual(local.rowLength, 1);
  assert.ok(c.metadata.keyspaces.ks, 'no ks in the metadata');
  const table = await c.metadata.getTable('ks', 'users');
  assert.deepStrictEqual(table.partitionKeys.map((k) => k.name), ['id']);
  assert.deepStrictEqual(table.clusteringKeys.map((k) => k.name), ['at']);
  assert.deepStrictEqual(table.clusteringOrder, ['DESC']);
  assert.deepStrictEqual(table.columns.map((k) => k.name).sort(), ['at', 'id', 'name']);
}));

tests.cql_types_reach_the_drivers_types = () => withServer([], (server) => withClient(server, {}, async (c) => {
  await c.execute(KEYSPACE);
  await c.execute('CREATE TYPE ks.address (street text, zip int)');
  await c.execute(`CREATE TABLE ks.everything (k int PRIMARY KEY, a ascii, b bigint, bl blob,
    bo boolean, da date, de decimal, do double, f float, i inet, s smallint, t text, ti time,
    ts timestamp, tu timeuuid, ty tinyint, u uuid, v varint, l list<int>, se set<text>,
    m map<text, int>, tp tuple<int, text>, ad frozen<address>)`);
  await c.execute(`INSERT INTO ks.everything (k, a, b, bl, bo, da, de, do, f, i, s, t, ti, ts,
    tu, ty, u, v, l, se, m, tp, ad) VALUES (1, 'abc', -9000000000, 0xcafe, true, '2024-02-29',
    -12.345, 1.5, 2.5, '10.0.0.1', -300, 'héllo', '01:02:03.000000004',
    '2024-01-02 03:04:05.678+0000', 50554d6e-29bb-11e5-b345-feff819cdc9f, -7,
    123e4567-e89b-12d3-a456-426614174000, -123456789012345678901234567890, [3, 1, 3],
    {'b', 'a'}, {'x': 1, 'y': 2}, (7, 'seven'), {street: 'Main', zip: 12345})`);
  const row = (await c.execute('SELECT * FROM ks.everything WHERE k = 1')).first();
  assert.strictEqual(row.k, 1);
  assert.strictEqual(row.a, 'abc');
  assert.ok(row.b instanceof types.Long && row.b.toString() === '-9000000000', String(row.b));
  assert.ok(Buffer.isBuffer(row.bl) && row.bl.toString('hex') === 'cafe');
  assert.strictEqual(row.bo, true);
  assert.ok(row.da instanceof types.LocalDate && row.da.toString() === '2024-02-29');
  assert.ok(row.de instanceof types.BigDecimal && row.de.toString() === '-12.345', String(row.de));
  assert.strictEqual(row.do, 1.5);
  assert.strictEqual(row.f, 2.5);
  assert.ok(row.i instanceof types.InetAddress && row.i.toString() === '10.0.0.1');
  assert.strictEqual(row.s, -300);
  assert.strictEqual(row.t, 'héllo');
  assert.ok(row.ti instanceof types.LocalTime && row.ti.toString() === '01:02:03.000000004',
            String(row.ti));
  assert.ok(row.ts instanceof Date && row.ts.toISOString() === '2024-01-02T03:04:05.678Z');
  assert.ok(row.tu instanceof types.TimeUuid &&
            row.tu.toString() === '50554d6e-29bb-11e5-b345-feff819cdc9f');
  assert.strictEqual(row.ty, -7);
  assert.ok(row.u instanceof types.Uuid &&
            row.u.toString() === '123e4567-e89b-12d3-a456-426614174000');
  assert.ok(row.v instanceof types.Integer &&
            row.v.toString() === '-123456789012345678901234567890', String(row.v));
  assert.deepStrictEqual(row.l, [3, 1, 3]);
  assert.deepStrictEqual(row.se, ['a', 'b']);
  assert.deepStrictEqual(row.m, { x: 1, y: 2 });
  assert.ok(row.tp instanceof types.Tuple);
  assert.deepStrictEqual(row.tp.values(), [7, 'seven']);
  assert.deepStrictEqual(row.ad, { street: 'Main', zip: 12345 });
}));

async function expectError(promise, check) {
  try {
    await promise;
  } catch (e) {
    check(e);
    return;
  }
  assert.fail('no error');
}

tests.errors_map_to_the_drivers_error_classes = () => withServer([], (server) => withClient(server, {}, async (c) => {
  const codes = types.responseErrorCodes;
  await expectError(c.execute('SELEKT 1'), (e) => {
    assert.ok(e instanceof errors.ResponseError, String(e));
    assert.strictEqual(e.code, codes.syntaxError);
  });
  await expectError(c.execute('SELECT * FROM nowhere.t'), (e) => {
    assert.ok(e instanceof errors.ResponseError, String(e));
    assert.strictEqual(e.code, codes.invalid);
    assert.strictEqual(e.message, 'keyspace nowhere does not exist');
  });
  await c.execute(KEYSPACE);
  await expectError(c.execute(KEYSPACE), (e) => {
    assert.ok(e instanceof errors.ResponseError, String(e));
    assert.strictEqual(e.code, codes.alreadyExists);
    assert.strictEqual(e.keyspace, 'ks');
  });
}));

// traceQuery: the result names the trace, and metadata.getTrace reads it from system_traces.
tests.traced_queries_and_custom_payloads = () => withServer([], (server) => withClient(server, {}, async (c) => {
  await c.execute(KEYSPACE);
  await c.execute('CREATE TABLE ks.traced (k int PRIMARY KEY, v text)');
  const written = await c.execute('INSERT INTO ks.traced (k, v) VALUES (?, ?)', [1, 'one'],
                                  { prepare: true, traceQuery: true,
                                    customPayload: { tenant: Buffer.from('t1') } });
  const trace = await c.metadata.getTrace(written.info.traceId);
  assert.strictEqual(trace.requestType, 'Execute CQL3 prepared query');
  assert.strictEqual(trace.parameters.query, 'INSERT INTO ks.traced (k, v) VALUES (?, ?)');
  assert.deepStrictEqual(trace.events.map((e) => e.activity), [
    'Executing prepared statement INSERT INTO ks.traced (k, v) VALUES (?, ?)',
    'Request complete']);
  const read = await c.execute('SELECT v FROM ks.traced WHERE k = 1', [], { traceQuery: true });
  assert.strictEqual(read.first().v, 'one');
  const readTrace = await c.metadata.getTrace(read.info.traceId);
  assert.strictEqual(readTrace.requestType, 'Execute CQL3 query');
  assert.strictEqual(readTrace.events[0].activity, 'Parsing SELECT v FROM ks.traced WHERE k = 1');
  const untraced = await c.execute('SELECT v FROM ks.traced WHERE k = 1');
  assert.strictEqual(untraced.info.traceId, undefined);
}));

// Protocol v3 (maxVersion: 3), which Cassandra 5.0 still speaks: prepared statements, paging and
// batches. date, time, smallint and tinyint are v4 types: a v3 client gets them as custom types
// (as Cassandra sends them), which this driver hands over as their bytes.
tests.protocol_v3 = () => withServer([], (server) => withClient(server, {
  protocolOptions: { port: server.port, maxVersion: 3 },
}, async (c) => {
  assert.strictEqual(c.controlConnection.protocolVersion, 3);
  await c.execute(KEYSPACE);
  await c.execute('CREATE TABLE ks.v3 (k int, c int, v text, s smallint, PRIMARY KEY (k, c))');
  for (let i = 0; i < 5; i++) {
    await c.execute('INSERT INTO ks.v3 (k, c, v) VALUES (?, ?, ?)', [1, i, `v${i}`],
                    { prepare: true });
  }
  await c.batch([{ query: 'INSERT INTO ks.v3 (k, c) VALUES (?, ?)', params: [2, 0] },
                 { query: 'INSERT INTO ks.v3 (k, c, s) VALUES (2, 1, -300)' }], { prepare: true });
  const rows = [];
  for await (const row of c.stream('SELECT c, v FROM ks.v3 WHERE k = ?', [1],
                                   { prepare: true, fetchSize: 2 })) {
    rows.push(row);
  }
  assert.deepStrictEqual(rows.map((r) => [r.c, r.v]),
                         [[0, 'v0'], [1, 'v1'], [2, 'v2'], [3, 'v3'], [4, 'v4']]);
  const batched = await c.execute('SELECT c, s FROM ks.v3 WHERE k = 2');
  assert.deepStrictEqual(batched.columns.map((col) => [col.name, col.type.code, col.type.info ?? null]),
                         [['c', types.dataTypes.int, null],
                          ['s', types.dataTypes.custom, 'org.apache.cassandra.db.marshal.ShortType']]);
  assert.deepStrictEqual(batched.rows.map((r) => [r.c, r.s && r.s.toString('hex')]),
                         [[0, null], [1, 'fed4']]);
}));

// Cassandra 5.0's virtual keyspaces: the driver reads system_virtual_schema into `virtual`
// keyspaces and tables; system_views.clients lists its connections with its name and version.
tests.virtual_keyspaces = () => withServer([], (server) => withClient(server, {}, async (c) => {
  const keyspaces = c.metadata.keyspaces;
  assert.strictEqual(keyspaces.system_views.virtual, true);
  assert.strictEqual(keyspaces.system_virtual_schema.virtual, true);
  assert.strictEqual(keyspaces.system_schema.virtual, false);
  const clients = await c.metadata.getTable('system_views', 'clients');
  assert.strictEqual(clients.virtual, true);
  assert.deepStrictEqual(clients.partitionKeys.map((k) => k.name), ['address']);
  assert.deepStrictEqual(clients.clusteringKeys.map((k) => k.name), ['port']);
  assert.deepStrictEqual(clients.columns.map((k) => k.name).sort(),
                         ['address', 'authentication_metadata', 'authentication_mode',
                          'client_options', 'connection_stage', 'driver_name', 'driver_version',
                          'hostname', 'port', 'protocol_version', 'request_count',
                          'ssl_cipher_suite', 'ssl_enabled', 'ssl_protocol', 'username']);
  const rows = (await c.execute('SELECT driver_name, driver_version, connection_stage, username ' +
                                'FROM system_views.clients')).rows;
  assert.ok(rows.length >= 1);
  for (const row of rows) {
    assert.deepStrictEqual([row.driver_name, row.driver_version, row.connection_stage, row.username],
                           ['DataStax Node.js Driver for Apache Cassandra', require('cassandra-driver/package.json').version,
                            'ready', 'anonymous']);
  }
}));

function writeUsers(dir) {
  const users = path.join(dir, 'users.txt');
  const written = childProcess.spawnSync(cassette, ['passwd', users, 'alice'],
                                         { input: 'wonderland\n' });
  assert.strictEqual(written.status, 0, String(written.stderr));
  return users;
}

tests.authentication_on_and_off = async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cassette-node-users-'));
  try {
    const users = writeUsers(dir);
    await withServer(['--auth-file', users], async (server) => {
      const good = new cassandra.auth.PlainTextAuthProvider('alice', 'wonderland');
      await withClient(server, { authProvider: good }, async (c) => {
        assert.strictEqual((await c.execute('SELECT key FROM system.local')).first().key, 'local');
      });
      const bad = client(server, {
        authProvider: new cassandra.auth.PlainTextAuthProvider('alice', 'wrong'),
      });
      await expectError(bad.connect(), (e) => {
        assert.ok(e instanceof errors.NoHostAvailableError, String(e));
        const [inner] = Object.values(e.innerErrors);
        assert.ok(inner instanceof errors.AuthenticationError, String(inner));
        assert.strictEqual(inner.message,
                           'Provided username alice and/or password are incorrect');
      });
      await bad.shutdown();
    });
    // Without --auth-file the same client's credentials are not asked for.
    await withServer([], async (server) => {
      const good = new cassandra.auth.PlainTextAuthProvider('alice', 'wonderland');
      await withClient(server, { authProvider: good }, async (c) => {
        assert.strictEqual((await c.execute('SELECT key FROM system.local')).first().key, 'local');
      });
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
};

async function main() {
  let passed = 0;
  let failed = 0;
  for (const name of Object.keys(tests).sort()) {
    try {
      await tests[name]();
      console.log(`ok   ${name}`);
      passed += 1;
    } catch (e) {
      console.log(`FAIL ${name}`);
      console.log(e && e.stack ? e.stack : e);
      failed += 1;
    }
  }
  console.log(`server-node: ${passed} passed, ${failed} failed`);
  process.exitCode = failed === 0 ? 0 : 1;
}

main();
