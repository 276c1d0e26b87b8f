'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const { startedByRun, startedByStudy } = require('../../lib/run/started-cluster')

const state = {
  name: 'crate-bench-1', version: '6.4.3', build_hash: 'abc', distribution: { sha256: 'f00', source: { tarball: 't' } },
  nodes: [{ name: 'n1', pid: 41, http_port: 4200, pg_port: 5432 }], heap: '512m', heap_bytes: 512 * 1024 * 1024,
  settings: {}, processors: null, java: { major: 25, bundled: false }, ready_s: 8.4
}

test('a cluster the run started: its record, its pids, and its lost nodes as the target tells them', () => {
  const lost = [{ node: 'n1', pid: 41, cause: 'OutOfMemoryError', last_lines: ['…'] }]
  const started = startedByRun({ state, lostNodes: () => lost })
  assert.equal(started.by, null)
  assert.deepEqual(started.pids, [41])
  assert.deepEqual([started.record.version, started.record.nodes, started.record.ports[0].pid], ['6.4.3', 1, 41])
  assert.deepEqual(started.lostNodes(), lost)
})

test('a cluster its study started: the same form from the record, a node whose pid is gone named lost', () => {
  const gone = spawnSync(process.execPath, ['-e', '0']).pid
  const record = { nodes: 2, by: 'the study', ports: [{ node: 'n1', pid: process.pid }, { node: 'n2', pid: gone }] }
  const started = startedByStudy(record)
  assert.equal(started.by, 'the study')
  assert.deepEqual(started.pids, [process.pid, gone])
  assert.deepEqual(started.lostNodes(), [{ node: 'n2', pid: gone, cause: null, last_lines: [],
    logs_with: 'the study' }])
  assert.equal(startedByStudy({ nodes: 1, ports: [{ node: 'n1' }] }).pids, null, 'no pid recorded: none assumed')
})
