'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { SKIP, clusterEnv, clusterClient, scratchTable } = require('../helpers/real-cluster')
const { runTool, ROOT } = require('../helpers/run-tool')
const { tempFile } = require('../helpers/temp-files')

test('every shipped query runs without error against the table the ingest creates', { skip: SKIP }, async (t) => {
  const table = scratchTable('bench_it_queries')
  const client = clusterClient()
  try {
    const ingest = await runTool('appClusterIngest.js', ['--table', table, '--shards', '2', '--processes', '1',
      '--max_rows', '20000', '--batch_size', '5000', '--scale', '100'], { env: clusterEnv() })
    assert.equal(ingest.code, 0, ingest.stderr)
    for (const set of ['cpu-dashboard.yml', 'tsbs-cpu.yml', 'select1.yml']) {
      // The shipped sets name doc.cpu; point them at the scratch table instead.
      const text = fs.readFileSync(path.join(ROOT, 'queries', set), 'utf8').replaceAll('doc.cpu', table)
      const file = tempFile(t, set, text)
      const run = await runTool('appClusterAnalytical.js', ['--queries_config', file, '--table', table, '--scale',
        '100', '--max_queries', '50', '--json'], { env: clusterEnv() })
      assert.equal(run.code, 0, `${set}: ${run.stderr}`)
      assert.equal(run.json.queries_failed, 0, set)
    }
  } finally {
    await client.sql(`DROP TABLE IF EXISTS ${table}`).catch(() => {})
    client.close()
  }
})
