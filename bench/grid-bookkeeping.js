'use strict'

// What a grid does after each run (every cell's figures and the verdicts rebuilt, grid.json written whole) must grow
// with the grid's cells, no faster (issue 57: a 10,000-cell grid spent 40 s between runs, its signals unheard). The
// time of that bookkeeping for the largest grid a study may plan against a tenth of it: linear is ×10.

const { performance } = require('node:perf_hooks')
const { gridOf } = require('../lib/sweep/grid/model')
const { gridJson } = require('../lib/sweep/grid/report')
const { runFigures } = require('../lib/sweep/grid/analysis')
const { scriptedResult } = require('../test/helpers/grid-model')
const { TARGET_GRID_BOOKKEEPING_GROWTH } = require('./targets')

const BATCHES = [100, 500, 2000, 5000]
const FLIGHTS = [1, 4, 16, 64]

/** A grid of side × side cells, one run each: the model's figures under values of its own. */
function gridState (side) {
  const values = (base) => Array.from({ length: side }, (_, i) => base[i % 4] + Math.floor(i / 4) * 100_000)
  const vary = [{ name: 'batch_size', values: values(BATCHES) },
    { name: 'concurrent_requests', values: values(FLIGHTS) }]
  const runs = new Map()
  for (const batch of vary[0].values) {
    for (const flight of vary[1].values) {
      const result = scriptedResult({ batch_size: batch % 100_000, concurrent_requests: flight % 100_000 })
      runs.set(`batch_size-${batch}_concurrent_requests-${flight}`, [runFigures({ result, exitCode: 0, round: 1,
        resultFile: 'runs/x.json', wallS: 10 })])
    }
  }
  const header = { kind: 'grid', workload: 'ingest', vary, repeat: 1, fixed_text: '', slo_p99_ms: 200,
    plateau_pct: 5, cluster: { nodes: 3 } }
  return { header, runsOf: (id) => runs.get(id) || [] }
}

/** The median time of one run's bookkeeping, in ms. */
function bookkeepingMs (side, times = 3) {
  const { header, runsOf } = gridState(side)
  const samples = []
  for (let i = 0; i < times; i++) {
    const started = performance.now()
    JSON.stringify(gridJson(gridOf(header, runsOf)), null, 1)
    samples.push(performance.now() - started)
  }
  return samples.sort((a, b) => a - b)[Math.floor(times / 2)]
}

function measureGridBookkeeping () {
  const small = bookkeepingMs(32)
  const large = bookkeepingMs(100)
  const growth = large / small
  return { cells_small: 32 * 32, cells_large: 100 * 100, small_ms: Math.round(small), large_ms: Math.round(large),
    growth: Math.round(growth * 10) / 10, target: TARGET_GRID_BOOKKEEPING_GROWTH,
    met: growth <= TARGET_GRID_BOOKKEEPING_GROWTH }
}

module.exports = { measureGridBookkeeping, gridState }
