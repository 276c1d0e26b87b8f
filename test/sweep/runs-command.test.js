'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { clusterLostBefore } = require('../../lib/sweep/runs-command')
const { tempDir } = require('../helpers/temp-files')

const HOST_DOWN = { at_s: 34.312, kind: 'host_down', host: 'http://db1:4200' }

function resultFile (t, result) {
  const file = path.join(tempDir(t), 'run.json')
  fs.writeFileSync(file, JSON.stringify(result))
  return file
}

test('the run before one that could not reach the cluster: what it lost, with the cluster\'s own last answers',
  (t) => {
  // Over HTTP: OutOfMemoryError with its status; the lost connections are no answer of the cluster's.
  const http = resultFile(t, { workload: 'ingest', events: [HOST_DOWN], errors: [
    { code: 'ENOHOST', status: null, in_doubt: false, message: 'no host answers: all # host', count: 320_000 },
    { code: 'ECLOSED', status: null, in_doubt: true, message: 'connection closed', count: 250_000 },
    { code: 5000, status: 500, in_doubt: false, message: 'OutOfMemoryError[Java heap space]',
      sample: 'OutOfMemoryError[Java heap space]', count: 20_000 }] })
  assert.equal(clusterLostBefore(http, 'batch_size 10000'), '; the run before it (batch_size 10000) lost ' +
    'http://db1:4200 at 34.31 s, the cluster answering OutOfMemoryError[Java heap space] (20,000 rows) before')
  // Over pg: the same error has CrateDB's code and no status; another SQLSTATE stays as it came; EPIPE is no SQLSTATE.
  const pg = resultFile(t, { workload: 'analytical', events: [HOST_DOWN], errors: [
    { code: 'EPIPE', status: null, in_doubt: true, message: 'connection closed', count: 90 },
    { code: 5000, status: null, in_doubt: false, message: 'OutOfMemoryError[Java heap space] (SQLSTATE #)',
      sample: 'OutOfMemoryError[Java heap space] (SQLSTATE XX000)', count: 12 },
    { code: '53100', status: null, in_doubt: false, message: 'disk full on #', sample: 'disk full on node1',
      count: 3 }] })
  assert.equal(clusterLostBefore(pg, '--rate 20'), '; the run before it (--rate 20) lost http://db1:4200 at 34.31 s, ' +
    'the cluster answering OutOfMemoryError[Java heap space] (SQLSTATE XX000) (12 queries), disk full on node1 ' +
    '(3 queries) before')
  // Lost without an answer of its own: the loss alone; kept its cluster, or no result: nothing.
  assert.equal(clusterLostBefore(resultFile(t, { events: [HOST_DOWN], errors: [] }), 'x'),
    '; the run before it (x) lost http://db1:4200 at 34.31 s')
  assert.equal(clusterLostBefore(resultFile(t, { events: [], errors: [] }), 'x'), '')
  assert.equal(clusterLostBefore(path.join(tempDir(t), 'none.json'), 'x'), '')
})
