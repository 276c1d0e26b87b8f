'use strict'

// The report page's drawing code, run outside a browser: a stand-in for ECharts keeps every chart's options, so
// that what the pictures show (which seconds, which lines, which labels) is checked without a screenshot.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const vm = require('node:vm')
const { chartsOf } = require('../../../lib/reports/html')

const PAGE = fs.readFileSync(path.join(__dirname, '../../../lib/reports/html/page.js'), 'utf8')

/** Runs page.js over a result; returns the options each chart was given, by chart id. */
function drawPage (result, { redraws = 0, zoomTo = null } = {}) {
  const charts = chartsOf(result)
  // Like a DOM element, whose height follows its style once set.
  const element = (title) => ({
    dataset: { title },
    clientWidth: 560,
    style: {},
    get clientHeight () { return this.style.height ? parseInt(this.style.height, 10) : 320 }
  })
  const elements = new Map(charts.map(([id, title]) => [`chart-${id}`, element(title)]))
  const runData = {
    textContent: JSON.stringify({ result, curve: [{ percentile: 50, ms: 1 }], charts: charts.map(([id]) => id) })
  }
  const body = { dataset: { charts: '0' } }
  const drawn = {}
  const document = { body, getElementById: (id) => (id === 'run-data' ? runData : elements.get(id)) }
  const instances = new Map()
  const echarts = {
    getInstanceByDom: (element) => instances.get(element),
    init: (element) => {
      const chart = {
        // Through JSON: the options leave the page's realm as plain values of this one.
        setOption: (option) => {
          drawn[[...elements].find(([, e]) => e === element)[0].slice(6)] = JSON.parse(JSON.stringify(option))
          chart.option = JSON.parse(JSON.stringify(option))
        },
        getOption: () => chart.option,
        resize: () => {}
      }
      instances.set(element, chart)
      return chart
    },
    connect: (group) => { connected.add(group) }
  }
  const connected = new Set()
  const window = {}
  vm.runInNewContext(PAGE, { window, document, echarts, JSON, Math, Number, String, Object, Array })
  for (const chart of instances.values()) {
    if (zoomTo && chart.option.dataZoom) Object.assign(chart.option.dataZoom[0], zoomTo)
  }
  if (redraws > 0) for (let i = 0; i < redraws; i++) window.drawRun(JSON.parse(runData.textContent))
  assert.equal(Number(body.dataset.charts), charts.length, 'every chart drawn')
  return { drawn, elements, connected, instances }
}

const group = (ok, extra = {}) => ({
  ok,
  failed: 0,
  in_doubt: 0,
  per_sec: ok,
  p50_ms: 1,
  p90_ms: 2,
  p99_ms: 3,
  max_ms: 4,
  labels: {},
  ...extra
})
const QUERY_NAMES = ['a_query_with_a_rather_long_descriptive_name', 'second_query_with_a_long_name',
  'third_query_long_name_xyz', 'fourth_query', 'fifth']

function mixedRun () {
  const labels = Object.fromEntries(QUERY_NAMES.map((n) => [n, group(10)]))
  return {
    workload: 'analytical',
    seconds: 3.002,
    queries: QUERY_NAMES.map((name) => ({ name })),
    timeline: {
      interval_s: 1,
      series: [0, 1, 2].map((t) => ({ t_s: t, analytical: group(50, { labels }), ingest: group(2000) }))
        .concat([{
          t_s: 3,
          partial_s: 0.002,
          analytical: group(1, { per_sec: null, labels }),
          ingest: group(0, { per_sec: null })
        }]),
      nodes: [-0.1, 0.4, 1.4, 2.4].map((t) => ({ t_s: t, name: 'node-1', process_cpu_pct: 10, heap_used_pct: 20,
        write_queue: 0, write_rejected: 0 })),
      events: []
    }
  }
}

test('every chart over time spans the same seconds, from the start of the load; node baselines are not drawn', () => {
  const { drawn } = drawPage(mixedRun())
  const overTime = Object.entries(drawn).filter(([id]) => id !== 'distribution')
  assert.equal(overTime.length, 8)
  for (const [id, option] of overTime) {
    assert.deepEqual([option.xAxis.min, option.xAxis.max, option.xAxis.name], [0, 3.1, 'time (s)'], id)
    for (const series of option.series) assert.ok(series.data.every(([t]) => t >= 0), `${id}: ${series.name} from 0 s`)
  }
  assert.deepEqual(drawn.node_cpu.series[0].data.map(([t]) => t), [0.4, 1.4, 2.4])
})

test('the partial tail is a count, never a group or a rate', () => {
  const { drawn } = drawPage(mixedRun())
  assert.deepEqual(drawn.throughput.series.map((s) => s.name), ['analytical queries/s', 'ingest rows/s'])
  assert.equal(drawn.throughput.series[0].data[3][1], null)
})

test('a mixed run draws the ingest latency beside the queries\' latency', () => {
  const { drawn } = drawPage(mixedRun())
  const names = drawn.latency.series.map((s) => s.name)
  assert.deepEqual(names, ['analytical p50', 'analytical p90', 'analytical p99', 'analytical max', 'ingest p50',
    'ingest p99'])
  assert.deepEqual(drawn.latency.series.filter((s) => s.lineStyle).map((s) => s.name), ['ingest p50', 'ingest p99'])
})

test('legends show every name (no pages) and the chart grows by the lines they wrap to; axis names stay off the title',
  () => {
  const { drawn, elements } = drawPage(mixedRun())
  for (const [id, option] of Object.entries(drawn)) {
    if (option.legend) assert.equal(option.legend.type, 'plain', id)
    for (const axis of [].concat(option.yAxis)) assert.equal(axis.nameLocation, 'middle', `${id}: ${axis.name}`)
  }
  assert.deepEqual(drawn.query_latency.series.map((s) => s.name), QUERY_NAMES)
  assert.ok(drawn.query_latency.grid.bottom > drawn.throughput.grid.bottom, 'room for a second line of legend')
  assert.equal(elements.get('chart-query_latency').style.height, `${320 + 20}px`)
  assert.equal(elements.get('chart-throughput').style.height, undefined)
  assert.equal(drawn.failures.yAxis.length, 2, 'rows and queries on axes of their own')
})

test('with --warmup every chart spans the warm-up and the measured part, the warm-up drawn and shaded', () => {
  // 10 s of warm-up, then 60 s measured: the timeline has 70 intervals, the result's seconds are the 60.
  const result = {
    workload: 'analytical',
    seconds: 60,
    warmup: { seconds: 10, requests: 1000 },
    queries: [{ name: 'q' }],
    timeline: {
      interval_s: 1,
      warmup_s: 10,
      series: Array.from({ length: 70 }, (_, t) => ({ t_s: t, analytical: group(100, { labels: { q: group(100) } }) })),
      nodes: [],
      events: []
    }
  }
  const { drawn } = drawPage(result)
  const overTime = Object.entries(drawn).filter(([id]) => id !== 'distribution')
  for (const [id, option] of overTime) {
    assert.equal(option.xAxis.max, 70, `${id}: the last 10 s are drawn`)
    const shaded = option.series[0] && option.series[0].markArea
    if (option.series.length > 0) {
      assert.deepEqual(shaded.data,
        [[{ name: 'warm-up', xAxis: 0, itemStyle: { color: 'rgba(128, 128, 128, 0.12)' } }, { xAxis: 10 }]], id)
    }
  }
  const throughput = drawn.throughput.series[0].data
  assert.deepEqual(throughput.slice(0, 2), [[0, 100], [1, 100]], 'the warm-up\'s answers are drawn, not 0')
})

test('stages are shaded and named on every chart over time, rate changes drawn as the host events are', () => {
  const stages = [
    { stage: 1, start_s: 0, end_s: 2, planned: '2s:50' },
    { stage: 2, start_s: 2, end_s: 4, planned: '2s:100..200' }
  ]
  const result = {
    workload: 'analytical',
    seconds: 4,
    queries: [{ name: 'q' }],
    stages,
    timeline: {
      interval_s: 1,
      series: [0, 1, 2, 3].map((t) => ({ t_s: t, analytical: group(100, { labels: { q: group(100) } }) })),
      nodes: [],
      events: [{ at_s: 2.5, kind: 'rate_change', what: 'stages', from: 150, to: 300, host: null }]
    }
  }
  const { drawn } = drawPage(result)
  for (const [id, option] of Object.entries(drawn).filter(([id]) => id !== 'distribution')) {
    if (option.series.length === 0) continue
    const areas = option.series[0].markArea.data
    assert.deepEqual(areas.map(([from, to]) => [from.name, from.xAxis, to.xAxis]), [['50/s', 0, 2], ['100..200/s', 2,
      4]], id)
    assert.deepEqual(option.series[0].markLine.data, [{ name: 'stages 150\u2192300', xAxis: 2.5 }], id)
  }
})

test('drawn again every second (the live page), a chart keeps its height and is counted once', () => {
  const labels = Object.fromEntries(QUERY_NAMES.map((n) => [n, group(10)]))
  const result = {
    workload: 'analytical',
    seconds: 2,
    queries: QUERY_NAMES.map((name) => ({ name })),
    timeline: { interval_s: 1, series: [0, 1].map((t) => ({ t_s: t, analytical: group(50, { labels }) })), nodes: [],
      events: [] }
  }
  const { elements } = drawPage(result, { redraws: 3 })
  assert.equal(elements.get('chart-query_latency').style.height, `${320 + 20}px`)
})

test('the drift\'s windows are shaded; every chart over time zooms together and keeps its zoom when drawn again',
  () => {
  const result = {
    workload: 'ingest',
    seconds: 100,
    drift: { first_window_s: [0, 10], last_window_s: [90, 100] },
    timeline: { interval_s: 1, series: Array.from({ length: 100 }, (_, t) => ({ t_s: t, ingest: group(100) })),
      nodes: [], events: [] }
  }
  const { drawn, connected } = drawPage(result, { redraws: 1, zoomTo: { start: 40, end: 60 } })
  const throughput = drawn.throughput
  assert.deepEqual(throughput.series[0].markArea.data.map(([from, to]) => [from.name, from.xAxis, to.xAxis]),
    [['first 10%', 0, 10], ['last 10%', 90, 100]])
  assert.deepEqual([throughput.dataZoom[0].type, throughput.dataZoom[0].start, throughput.dataZoom[0].end],
    ['inside', 40, 60], 'the part the user zoomed into stays')
  assert.deepEqual([...connected], ['over-time'])
})

test('the master\'s minutes get a chart of their own: memory on one axis, CPU and event-loop delay on the other',
  () => {
  const result = {
    workload: 'ingest',
    seconds: 130,
    timeline: { interval_s: 1, series: [{ t_s: 0, ingest: group(100) }], nodes: [], events: [],
      client: [{ t_s: -0.2, rss_mb: 57, heap_mb: 6.7, external_mb: 2.3, cpu_pct: 3, loop_delay_p99_ms: 40 },
        { t_s: 59.8, rss_mb: 71, heap_mb: 12, external_mb: 6.7, cpu_pct: 2.4, loop_delay_p99_ms: 24 }] }
  }
  const { drawn } = drawPage(result)
  const chart = drawn.load_generator
  assert.deepEqual(chart.series.map((s) => [s.name, s.yAxisIndex, s.data]), [
    ['RSS (MB)', 0, [[59.8, 71]]],
    ['heap (MB)', 0, [[59.8, 12]]],
    ['outside the heap (MB)', 0, [[59.8, 6.7]]],
    ['CPU (% of a core)', 1, [[59.8, 2.4]]],
    ['event-loop delay p99 (ms)', 1, [[59.8, 24]]]
  ], 'the minute before the load is the start-up: not drawn')
  assert.equal(drawPage({ ...result, timeline: { ...result.timeline, client: [] } }).drawn.load_generator, undefined)
})

test('the drain after the last request is shaded: the answers still in flight are no load offered', () => {
  const result = {
    workload: 'ingest',
    seconds: 15.5,
    sending_seconds: 15,
    drain_seconds: 0.5,
    timeline: { interval_s: 1, warmup_s: 2, nodes: [], events: [],
      series: Array.from({ length: 18 }, (_, t) => ({ t_s: t, ingest: group(100) })) }
  }
  const { drawn } = drawPage(result)
  const areas = drawn.throughput.series[0].markArea.data.map(([from, to]) => [from.name, from.xAxis, to.xAxis])
  assert.deepEqual(areas, [['warm-up', 0, 2], ['drain', 17, 17.5]])
})
