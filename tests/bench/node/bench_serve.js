#!/usr/bin/env node
// `cassette serve` through the Node.js cassandra-driver against a PostgreSQL 15 table through
// node-postgres (`pg`): the same workload at the same concurrency in one run. Started by
// tests/bench/bench_serve.sh, which provides the PostgreSQL server (PGHOST, PGPORT, PGUSER) and
// a store of STORE_ROWS rows for the start-up time.
//
// Usage: node bench_serve.js BUILD_DIR WORK_DIR FULL_STORE STORE_ROWS
//   BENCH_SERVE_ROWS         N single-row prepared INSERTs, then N point SELECTs (default 200000)
//   BENCH_SERVE_SLICES       M 50-row slices (default 20000)
//   BENCH_SERVE_IN_FLIGHT    requests in flight on each side (default 128)
//   BENCH_SERVE_CONNECTIONS  the cassandra-driver's connections to the server (default: the
//                            driver's own default, one per host for protocol v4)
//
// The table on both sides: (p int, c int, v text, PRIMARY KEY (p, c)); row i is in partition
// i / 100 at clustering c = i % 100. Every read checks what it gets back, so a side that returns
// errors or wrong rows fails the benchmark instead of scoring well.
//
// Prints each side's time and p50/p99 latency, then `RESULT serve-insert pg-native <ratio>`,
// `serve-point`, `serve-slice` (ratio = PostgreSQL's time / the server's: > 1, ours faster) and
// `RESULT serve-start-empty ms <n>`, `RESULT serve-start-1m ms <n>` (spawn to `listening on`).
'use strict';

const assert = require('assert');
const childProcess = require('child_process');
const path = require('path');
const readline = require('readline');
const cassandra = require('cassandra-driver');
const pg = require('pg');

const [buildDirArg, workDir, fullStore, storeRowsArg] = process.argv.slice(2);
const cassette = path.join(path.resolve(buildDirArg), 'cassette');
const rows = Number(process.env.BENCH_SERVE_ROWS || 200000);
const slices = Number(process.env.BENCH_SERVE_SLICES || 20000);
const inFlight = Number(process.env.BENCH_SERVE_IN_FLIGHT || 128);
const connections = Number(process.env.BENCH_SERVE_CONNECTIONS || 0);  // 0: the driver's default
const ROWS_PER_PARTITION = 100;
const SLICE_ROWS = 50;
const partitions = Math.floor(rows / ROWS_PER_PARTITION);
const START_RUNS = 3;

const value = (i) => `value-${i}-abcdefghijklmnopqrstuvwxyz`;
const partitionOf = (i) => Math.floor(i / ROWS_PER_PARTITION);
const clusteringOf = (i) => i % ROWS_PER_PARTITION;
// Every row once (7919 is prime) unless rows is a multiple of 7919.
const pointKey = (i) => (i * 7919 + 13) % rows;
const slicePartition = (i) => (i * 31) % partitions;
const lastInSlice = (p) => value(p * ROWS_PER_PARTITION + SLICE_ROWS - 1);

// Spawns `cassette serve STORE --listen 127.0.0.1:0`; resolves to { port, ms, stop } once it
// prints its `listening on` line, ms being the time from spawn to that line.
function startServer(store) {
  const started = process.hrtime.bigint();
  const server = childProcess.spawn(cassette, ['serve', store, '--listen', '127.0.0.1:0'],
                                    { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => server.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: server.stdout });
    lines.once('line', (line) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const match = /^listening on 127\.0\.0\.1:(\d+)$/.exec(line);
      if (!match) return reject(new Error(`no 'listening on' line: ${line}`));
      resolve({
        port: Number(match[1]), ms,
        stop: async () => {
          server.kill('SIGTERM');
          const code = await exited;
          assert.strictEqual(code, 0, `cassette serve exited with ${code}`);
        },
      });
    });
    server.on('error', reject);
  });
}

// Runs op(i) for i in [0, total) with `inFlight` of them under way at any time; resolves to the
// wall time and the latencies' p50 and p99 in milliseconds.
async function runConcurrently(total, op) {
  const latencies = new Float64Array(total);
  let next = 0;
  async function worker() {
    for (let i = next++; i < total; i = next++) {
      const start = process.hrtime.bigint();
      await op(i);
      latencies[i] = Number(process.hrtime.bigint() - start) / 1e6;
    }
  }
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: Math.min(inFlight, total) }, worker));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  latencies.sort();
  const at = (q) => latencies[Math.min(total - 1, Math.floor(q * total))];
  return { seconds, p50: at(0.5), p99: at(0.99) };
}

// The workloads, one object per side: insert(i), point(i) and slice(i) check what they get.
function cassandraSide(client) {
  const options = { prepare: true };
  return {
    name: 'cassette serve',
    insert: (i) => client.execute('INSERT INTO bench.kv (p, c, v) VALUES (?, ?, ?)',
                                  [partitionOf(i), clusteringOf(i), value(i)], options),
    point: async (i) => {
      const k = pointKey(i);
      const result = await client.execute('SELECT v FROM bench.kv WHERE p = ? AND c = ?',
                                          [partitionOf(k), clusteringOf(k)], options);
      assert.strictEqual(result.rows.length, 1);
      assert.strictEqual(result.rows[0].v, value(k));
    },
    slice: async (i) => {
      const p = slicePartition(i);
      const result = await client.execute('SELECT c, v FROM bench.kv WHERE p = ? LIMIT 50',
                                          [p], options);
      assert.strictEqual(result.rows.length, SLICE_ROWS);
      assert.strictEqual(result.rows[SLICE_ROWS - 1].v, lastInSlice(p));
    },
  };
}

function postgresSide(pool) {
  return {
    name: 'PostgreSQL',
    insert: (i) => pool.query({
      name: 'insert', text: 'INSERT INTO kv (p, c, v) VALUES ($1, $2, $3)',
      values: [partitionOf(i), clusteringOf(i), value(i)] }),
    point: async (i) => {
      const k = pointKey(i);
      const result = await pool.query({
        name: 'point', text: 'SELECT v FROM kv WHERE p = $1 AND c = $2',
        values: [partitionOf(k), clusteringOf(k)] });
      assert.strictEqual(result.rows.length, 1);
      assert.strictEqual(result.rows[0].v, value(k));
    },
    slice: async (i) => {
      const p = slicePartition(i);
      const result = await pool.query({
        name: 'slice', text: 'SELECT c, v FROM kv WHERE p = $1 ORDER BY c LIMIT 50', values: [p] });
      assert.strictEqual(result.rows.length, SLICE_ROWS);
      assert.strictEqual(result.rows[SLICE_ROWS - 1].v, lastInSlice(p));
    },
  };
}

async function connectCassandra(port) {
  const pooling = connections
    ? { coreConnectionsPerHost: { [cassandra.types.distance.local]: connections } } : undefined;
  const client = new cassandra.Client({
    contactPoints: ['127.0.0.1'], localDataCenter: 'datacenter1', protocolOptions: { port },
    socketOptions: { connectTimeout: 10000, readTimeout: 60000 }, pooling,
  });
  await client.connect();
  await client.execute("CREATE KEYSPACE bench WITH replication = " +
                       "{'class': 'SimpleStrategy', 'replication_factor': 1}");
  await client.execute('CREATE TABLE bench.kv (p int, c int, v text, PRIMARY KEY (p, c))');
  return client;
}

// A pool of inFlight connections, all open before anything is timed (node-postgres sends one
// query at a time on a connection: 128 in flight takes 128 connections, i.e. 128 backends).
async function connectPostgres() {
  const pool = new pg.Pool({ max: inFlight });
  await pool.query('CREATE TABLE kv (p int, c int, v text, PRIMARY KEY (p, c))');
  const clients = await Promise.all(Array.from({ length: inFlight }, () => pool.connect()));
  clients.forEach((c) => c.release());
  return pool;
}

const fmt = (x, digits = 3) => x.toFixed(digits);

function report(workload, count, ours, theirs) {
  for (const [name, r] of [['cassette serve', ours], ['PostgreSQL', theirs]]) {
    const rate = Math.round(count / r.seconds);
    console.log(`${workload}: ${name.padEnd(14)} ${fmt(r.seconds)} s (${rate}/s), ` +
                `p50 ${fmt(r.p50)} ms, p99 ${fmt(r.p99)} ms`);
  }
  console.log(`RESULT serve-${workload} pg-native ${fmt(theirs.seconds / ours.seconds, 2)}`);
}

// The best of START_RUNS starts on a fresh (empty) store, and the starts on fullStore: the first
// opens it as the loading process left it, the next ones as the server itself left it.
async function measureStarts() {
  const empty = [];
  for (let run = 0; run < START_RUNS; run++) {
    const server = await startServer(path.join(workDir, `empty-${run}`));
    empty.push(server.ms);
    await server.stop();
  }
  const full = [];
  for (let run = 0; run < START_RUNS; run++) {
    const server = await startServer(fullStore);
    full.push(server.ms);
    await server.stop();
  }
  const list = (times) => times.map((t) => fmt(t, 1)).join(', ');
  console.log(`start, empty store: ${list(empty)} ms`);
  console.log(`start, ${storeRowsArg}-row store: ${list(full)} ms ` +
              '(the first as the loader left it)');
  console.log(`RESULT serve-start-empty ms ${fmt(Math.min(...empty), 1)}`);
  console.log(`RESULT serve-start-1m ms ${fmt(full[0], 1)}`);
}

async function main() {
  assert.ok(partitions > 0, 'BENCH_SERVE_ROWS must be at least 100');
  const server = await startServer(path.join(workDir, 'serve-store'));
  const client = await connectCassandra(server.port);
  const pool = await connectPostgres();
  const ours = cassandraSide(client);
  const theirs = postgresSide(pool);
  // Prepare the INSERT on both sides before anything is timed (a row outside the workload's).
  for (const side of [ours, theirs]) {
    await side.insert(-1);
  }
  const open = client.getState().getConnectedHosts()
    .reduce((n, host) => n + client.getState().getOpenConnections(host), 0);
  console.log(`bench_serve: ${rows} inserts, ${rows} point reads, ${slices} slices of ` +
              `${SLICE_ROWS}, ${inFlight} in flight; cassandra-driver connections: ${open}, ` +
              `node-postgres connections: ${pool.totalCount}`);
  const workloads = [['insert', rows], ['point', rows], ['slice', slices]];
  for (const [workload, count] of workloads) {
    const oursResult = await runConcurrently(count, ours[workload]);
    const theirsResult = await runConcurrently(count, theirs[workload]);
    report(workload, count, oursResult, theirsResult);
  }
  await client.shutdown();
  await pool.end();
  await server.stop();
  await measureStarts();
}

main().catch((error) => {
  console.error('bench_serve:', error);
  process.exit(1);
});
