'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { XMLValidator } = require('fast-xml-parser')
const { heatmapOption, heatmapSvg, short, whyShort } = require('../../../lib/sweep/grid/heatmap')
const { gridOf } = require('../../../lib/sweep/grid/model')
const { gridText } = require('../../../lib/sweep/grid/report')
const { runFigures } = require('../../../lib/sweep/grid/analysis')
const { scriptedResult } = require('../../helpers/grid-model')

const VARY = [{ name: 'batch_size', values: [500, 2000] }, { name: 'concurrent_requests', values: [4, 16] },
  { name: 'processes', values: [1, 2] }]

/** A grid of three dimensions, the scripted cluster's throughput doubled with two processes. */
function threeDimensions () {
  const header = { workload: 'ingest', vary: VARY, repeat: 1, slo_p99_ms: null, plateau_pct: 5, fixed_text: '' }
  return gridOf(header, (id) => {
    const [, batch, flight,
      processes] = /batch_size-(\d+)_concurrent_requests-(\d+)_processes-(\d+)/.exec(id).map(Number)
    const result = scriptedResult({ batch_size: batch, concurrent_requests: flight }, 2, { scale: processes })
    return [runFigures({ result, exitCode: 0, round: 1, resultFile: `runs/${id}-r1.json` })]
  })
}

test('three dimensions: a heatmap panel for each value of the third, every cell labelled once, the best marked', () => {
  const grid = threeDimensions()
  const { option } = heatmapOption(grid)
  assert.equal(option.series.length, 2)
  assert.match(option.yAxis[1].name, /processes 2/)
  assert.deepEqual(option.series.map((s) => s.data.length), [4, 4])
  const labels = option.series.flatMap((s) => s.data.map((d) => d.label.formatter))
  // Each cell its p99 under its throughput (one run a cell: no spread to show); the best is the rule's pick too,
  // untested with one run a cell, and marked as both, as the legend says.
  assert.deepEqual(labels, ['210k\np99 15 ms', '240k\np99 60 ms', '273k\np99 45 ms', '312k\np99 180 ms',
    '420k\np99 15 ms', '480k\np99 60 ms', '546k\np99 45 ms', '624k best, rec. (untested)\np99 180 ms'])
  const best = option.series[1].data[3].itemStyle
  assert.deepEqual([best.borderColor, best.borderType], ['#1a7f37', [8, 4]])
  assert.match(option.title.subtext, /dashed green: the best is recommended too/)
  assert.equal(XMLValidator.validate(heatmapSvg(grid)), true)
  const text = gridText(grid)
  assert.match(text, /rows\/s \(median run\) and its p99, batch_size down, concurrent_requests across; processes 1/)
  assert.match(text, /rows\/s \(median run\) and its p99, batch_size down, concurrent_requests across; processes 2/)
  assert.match(text, /best: batch_size 2000, concurrent_requests 16, processes 2: 624,000 rows\/s/)
})

test('a cell whose runs found busy nodes is marked busy on the heatmap and on grid.html', () => {
  const header = { workload: 'ingest', vary: VARY.slice(0, 2), repeat: 1, slo_p99_ms: null, plateau_pct: 5,
    fixed_text: '' }
  const grid = gridOf(header, (id) => {
    const [, batch, flight] = /batch_size-(\d+)_concurrent_requests-(\d+)/.exec(id).map(Number)
    const result = scriptedResult({ batch_size: batch, concurrent_requests: flight }, 2)
    const run = runFigures({ result, exitCode: 0, round: 1, resultFile: `runs/${id}-r1.json` })
    return [batch === 500 && flight === 4 ? { ...run, busy_machine: 'the nodes were busy before this run began' } : run]
  })
  const { option } = heatmapOption(grid)
  const busy = option.series[0].data[0]
  assert.equal(busy.label.formatter, '210k busy\np99 15 ms')
  assert.equal(busy.itemStyle.borderType, 'dotted')
  const html = require('../../../lib/sweep/grid/page').gridHtml(grid)
  assert.match(html, /<td>batch_size 500, concurrent_requests 4<\/td>(<td>[^<]*<\/td>){12}<td>busy<\/td>/)
  assert.match(html, /each run; bars: the 95% interval/)
})

test('labels fit a cell', () => {
  assert.deepEqual([short(999), short(12_345), short(1_234_567), short(null)], ['999', '12.3k', '1.23M', '-'])
})

test('a ruled-out cell is on the heat map as the legend promises: its figure, the ✗ and why, grey beside the scale',
  () => {
    const header = { workload: 'ingest', vary: VARY.slice(0, 2), repeat: 1, slo_p99_ms: null, plateau_pct: 5,
      fixed_text: '' }
    const grid = gridOf(header, (id) => {
      const [, batch, flight] = /batch_size-(\d+)_concurrent_requests-(\d+)/.exec(id).map(Number)
      const result = scriptedResult({ batch_size: batch, concurrent_requests: flight }, 2,
        { failsAt: (b, f) => b === 2000 && f === 16 })
      return [runFigures({ result, exitCode: result.rows_failed ? 1 : 0, round: 1, resultFile: `runs/${id}-r1.json` })]
    })
    const ruledOut = grid.cells.find((c) => c.excluded !== null)
    assert.ok(ruledOut, 'the failing cell is ruled out')
    const { option } = heatmapOption(grid)
    assert.equal(option.series.length, 2, 'the panel\'s series, and the ruled-out cells\' beside it')
    assert.deepEqual(option.visualMap.map((v) => v.seriesIndex), [[0], [1]],
      'the colour scale is the measured cells\' alone; the ruled-out ones grey')
    const [cell] = option.series[1].data
    assert.match(cell.label.formatter, /^✗ \d+k\n\S/)
    assert.equal(cell.label.formatter.split('\n')[1], whyShort(ruledOut.excluded))
    assert.notEqual(cell.value[2], '-', 'a value ECharts draws: a blank cell was what it drew for "-"')
    assert.equal(option.series[0].data.length, 3)
    assert.ok(heatmapSvg(grid).includes('✗'))
    assert.equal(whyShort('4 rows failed (at most 0)'), '4 rows failed')
    assert.equal(whyShort('the load generator was saturated: add --processes'), 'the load generator was sa…')
  })
