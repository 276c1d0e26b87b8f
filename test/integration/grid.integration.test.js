'use strict'

// A sizing grid against a real CrateDB (CRATE_TEST_URL): interrupted with Ctrl-C in its third cell, resumed by the
// same command, which runs the stopped cell and the ones never started, and nothing twice; every run of a cell on a
// table of its own making, empty at its start. Then crate-bench sizing reads the folder.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { SKIP, clusterEnv, clusterClient, scratchTable } = require('../helpers/real-cluster')
const { runTool } = require('../helpers/run-tool')
const { tempDir } = require('../helpers/temp-files')
const { figureCellOf } = require('../../lib/reports/sizing/evidence')

if (SKIP) console.log(`# ${SKIP}`)

test('a grid on a real CrateDB interrupted in its third cell and resumed: every cell once, sizing from its folder',
  { skip: SKIP, timeout: 300_000 }, async (t) => {
    const out = tempDir(t)
    const table = scratchTable('bench_it_grid')
    const args = ['--vary', 'batch_size=200,1000', '--vary', 'concurrent_requests=1,4', '--out', out, '--',
      '--processes', '1', '--max_rows', '20000', '--table', table, '--monitor_interval', '0']
    const client = clusterClient()
    try {
      const stopped = await runTool('scripts/find-grid.sh', args, {
        env: clusterEnv(), detached: true, waitFor: /\[cell 3 of 4\]/,
        whileRunning: (child) => setTimeout(() => process.kill(-child.pid, 'SIGINT'), 500),
        timeoutMs: 120_000
      })
      assert.equal(stopped.code, 4, stopped.stderr)
      assert.match(stopped.stderr, /interrupted: batch_size 1000, concurrent_requests 1 ended early/)
      const resumed = await runTool('scripts/find-grid.sh', args, { env: clusterEnv(), timeoutMs: 180_000 })
      assert.equal(resumed.code, 0, resumed.stderr)
      assert.match(resumed.stderr, /resuming: 2 of 4 cells done \(2 of 4 runs\); 2 left/)
      const grid = JSON.parse(fs.readFileSync(path.join(out, 'grid.json'), 'utf8'))
      assert.equal(grid.complete, true)
      assert.equal(grid.cells.length, 4)
      for (const cell of grid.cells) {
        assert.equal(cell.runs.length, 1, cell.id)
        assert.equal(cell.runs[0].exit_code, 0, cell.id)
        assert.equal(cell.failed, 0, cell.id)
        assert.equal(cell.table_at_start[0].docs, 0, `${cell.id} started on an empty table`)
      }
      assert.deepEqual(grid.cluster.protocol, 'http')
      assert.equal(grid.cluster.nodes, 1)
      assert.equal(fs.existsSync(path.join(out, 'grid.lock')), false, 'the lock released')
      const sizing = await runTool('bin/crate-bench.js', ['sizing', out, '--json'])
      assert.equal(sizing.code, 0, sizing.stderr)
      assert.equal(sizing.json.groups[0].shapes[0].nodes, 1)
      // The sizing's figure stands on the cell the grid's figure to plan with stands on (its recommended cell where
      // it has one), not always its fastest: which one depends on this run's figures.
      const figure = figureCellOf(grid)
      assert.ok(figure, 'the grid has a cell to plan with')
      assert.equal(sizing.json.groups[0].shapes[0].best.per_sec, figure.cell.rows_per_sec, figure.which)
    } finally {
      await client.sql(`DROP TABLE IF EXISTS ${table}`).catch(() => {})
      client.close()
    }
  })
