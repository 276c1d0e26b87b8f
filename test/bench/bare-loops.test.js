'use strict'

// The bench's bare reference loops store and count every row against its stand-in: a reference that lost rows would
// make the tool's ratio to it mean nothing.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { spawn } = require('node:child_process')

const BENCH = path.join(__dirname, '..', '..', 'bench')

function standIn (flags) {
  const child = spawn(process.execPath, [path.join(BENCH, 'stand-in-server.js'), '0', ...flags],
    { stdio: ['ignore', 'pipe', 'inherit'] })
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (data) => {
      const [port, pgPort] = String(data).trim().split(' ').map(Number)
      resolve({ port, pgPort, stop: () => child.kill() })
    })
    child.once('error', reject)
  })
}

function runJson (script, args) {
  const child = spawn(process.execPath, [path.join(BENCH, script), ...args.map(String)],
    { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.on('data', (c) => { out += c })
  child.stderr.on('data', (c) => { err += c })
  return new Promise((resolve, reject) => child.on('exit', (code) =>
    code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${script} exited ${code}: ${err}`))))
}

for (const flags of [['--pg-rows-flushed'], ['--pg-rows-flushed', '--pg-whole-when-done'], []]) {
  test(`bench/bare-pg.js reads every row's answer of a stand-in started with [${flags.join(' ')}]`, { timeout: 60_000 },
    async () => {
    const server = await standIn(flags)
    try {
      const counts = await runJson('bare-pg.js', [server.pgPort, 12_000, 5_000, 2])
      assert.equal(counts.rows, 12_000)
      assert.equal(counts.rows_ok, 12_000)
      assert.ok(counts.send_cpu_s >= 0)
    } finally {
      server.stop()
    }
  })
}

test('bench/bare-pg.js --as-it-comes walks each answer to its ReadyForQuery, as a real node\'s must be read',
  { timeout: 60_000 }, async () => {
  const server = await standIn(['--pg-rows-flushed'])
  try {
    const counts = await runJson('bare-pg.js', [server.pgPort, 12_000, 5_000, 2, '--as-it-comes', '127.0.0.1',
      'doc.cpu'])
    assert.deepEqual([counts.rows, counts.rows_ok], [12_000, 12_000])
  } finally {
    server.stop()
  }
})

test('bench/run.js names an unknown part, and the real-node part the variables it needs, in one line', async () => {
  for (const [part, expected] of [['nonsense', /unknown part "nonsense": one of watching, pg, dashboard, grid, real/],
    ['real', /needs CRATE_BENCH_URL .* and CRATE_BENCH_PG_URL/]]) {
    const child = spawn(process.execPath, [path.join(BENCH, 'run.js'), part],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH } })
    let err = ''
    child.stderr.on('data', (c) => { err += c })
    const code = await new Promise((resolve) => child.on('exit', resolve))
    assert.equal(code, 1)
    assert.match(err, expected)
    assert.equal(err.trim().split('\n').length, 1, err)
  }
})

test('bench/bare-ingest.js stores and counts every row over HTTP', { timeout: 60_000 }, async () => {
  const server = await standIn([])
  try {
    const counts = await runJson('bare-ingest.js', [server.port, 12_000, 5_000, 2])
    assert.deepEqual([counts.rows, counts.rows_ok], [12_000, 12_000])
  } finally {
    server.stop()
  }
})
