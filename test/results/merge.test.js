'use strict'

// mergeResults on results made by hand: what a merged report adds up, orders and names, without any process.

const test = require('node:test')
const assert = require('node:assert/strict')
const { mergeResults } = require('../../lib/results/merge')
const { newHistogram, recordMicros, encodeHistogram } = require('../../lib/results/stats')
const { joined, assertSomeMatch } = require('../helpers/patterns')

const encoded = (ms) => {
  const h = newHistogram()
  for (const v of ms) recordMicros(h, v * 1000)
  return encodeHistogram(h)
}

/** Generator `index` of `count` on `machine`, with `ms` answers (client latency) and `serverMs` (server). */
function generatorResult ({ index, count = 2, machine = 'vm', cpus = 2, ms, serverMs, warmupOk = 0 }) {
  return {
    workload: 'ingest',
    options: { processes: 1, generator: { index, count } },
    started_at: new Date(1_000_000 + index * 10).toISOString(),
    seconds: 1,
    sending_seconds: 0.9,
    rows_sent: ms.length * 10,
    rows_ok: ms.length * 10,
    rows_failed: 0,
    rows_in_doubt: 0,
    rows_per_sec: ms.length * 10,
    requests: ms.length,
    requests_failed: 0,
    warmup: { seconds: 2, rows_ok: warmupOk, rows_failed: 0, rows_in_doubt: 0, requests: warmupOk / 10 },
    latency_ms: { max: Math.max(...ms) },
    server_ms: { max: Math.max(...serverMs) },
    errors: [],
    workers: [{ worker: 0, rows_ok: ms.length * 10, rows_failed: 0, requests: ms.length, seconds: 1, rows_per_sec: 1,
      stop_reason: 'duration', stop_detail: null }],
    cluster: index === 0 ? null : { interval_ms: 1000, samples: [], nodes: [{ name: 'n1' }], write_rejected: 0,
      search_rejected: 0 },
    environment: { tool_version: '0.2.0', node_version: 'v20', load_generator: machine, cpus, cpu_model: 'x' },
    histograms: { latency: encoded(ms), server: encoded(serverMs), labels: {} },
    timeline: { interval_s: 1, warmup_s: 2, series: [], nodes: [], events: [] },
    partial: false,
    partial_reasons: []
  }
}

test('generators in their order, workers named by generator, machines\' CPUs counted once, warm-ups added', () => {
  const second = generatorResult({ index: 1, ms: [10, 20], serverMs: [1, 2], warmupOk: 30 })
  const first = generatorResult({ index: 0, ms: [5], serverMs: [3], warmupOk: 20 })
  const merged = mergeResults([second, first])
  assert.deepEqual(merged.load_generators.map((g) => g.generator.index), [0, 1])
  assert.deepEqual(merged.workers.map((w) => w.worker), ['1/2 on vm w0', '2/2 on vm w0'])
  assert.equal(merged.environment.cpus, 2, 'two generators on one 2-CPU machine')
  assert.equal(merged.environment.load_generator, '2 generators on 1 machine: vm (2 CPUs, 2 generators)')
  assert.deepEqual(merged.warmup, { seconds: 2, rows_ok: 50, rows_failed: 0, rows_in_doubt: 0, requests: 5 })
  assert.equal(merged.timeline.warmup_s, 2)
  assert.deepEqual(merged.cluster.nodes, [{ name: 'n1' }], 'the first generator that watched the cluster')
})

test('client and server percentiles come from the merged histograms, exact, never averaged', () => {
  const a = generatorResult({ index: 0, ms: [1, 1, 1, 1], serverMs: [1, 1, 1, 1] })
  const b = generatorResult({ index: 1, ms: [100, 100, 100, 100], serverMs: [50, 50, 50, 50], machine: 'other',
    cpus: 4 })
  const merged = mergeResults([a, b])
  assert.equal(merged.latency_ms.p50, 1)
  assert.equal(merged.latency_ms.p99, 100)
  assert.equal(merged.server_ms.p99, 50)
  assert.equal(merged.server_ms.p50, 1)
  assert.equal(merged.environment.cpus, 6, 'two machines: 2 + 4 CPUs')
})

/** The fleet table's rows of a run as readFleetRun returns them. */
function fleetRows ({ generators, reconciled }) {
  return {
    generators: generators.map(([generator, state, counts]) => ({ generator, state, host: `pod-${generator}`, at: 0,
      detail: { counts, clock_offset_ms: 0 } })),
    prepare: { generator: -1, state: 'prepared', detail: { generator: 0 } },
    start: null,
    reconciled: reconciled ? { generator: -3, state: 'reconciled', detail: reconciled } : null
  }
}

test('a dead generator: its last heartbeat\'s acknowledged rows count, the rest and its unreported bound are in doubt',
  () => {
  const alive = generatorResult({ index: 1, count: 2, ms: [10, 20], serverMs: [1, 2] })
  const reconciliation = { acknowledged: 120, in_doubt: 580, counted: 400, verdict: 'within_in_doubt', excess: 0,
    missing: 0 }
  const fleet = fleetRows({
    generators: [[0, 'running', { sent: 200, ok: 100, failed: 0 }], [1, 'done', { sent: 20, ok: 20, failed: 0 }]],
    reconciled: {
      finished_by: 1,
      generators: [{ generator: 0, unreported_bound: 500, noticed_after_s: 7.5 }],
      table_count: 400,
      reconciliation
    }
  })
  const merged = mergeResults([alive], { fleet })
  assert.equal(merged.rows_ok, 20 + 100)
  assert.equal(merged.rows_in_doubt, 100 + 500, 'sent but unanswered by its last heartbeat, and the bound after it')
  assert.equal(merged.rows_sent, 20 + 200 + 500)
  assert.equal(merged.partial, true)
  assert.deepEqual(merged.partial_reasons,
    ['generator 1 (pod-0) died (running, no result, judged dead after 7.5 s of silence): the 100 rows acknowledged ' +
      'by its last report are counted, the rest it sent (and up to 500 more after its last report) are in doubt'])
  assert.equal(merged.fleet.finished_by, 2, 'generator 2 took the finish over')
  assert.equal(merged.fleet.steward, 1)
  assert.equal(merged.reconciliation.verdict, 'within_in_doubt')
})

test('a dead generator counted in the table by its keys: stored rows ok, none in doubt, by the finisher\'s counts',
  () => {
  const alive = generatorResult({ index: 1, count: 2, ms: [10, 20], serverMs: [1, 2] })
  // The finisher judged it on its last heartbeat (100 ok of 200 sent) and found 130 of its rows in the table; the
  // generator came back afterwards and wrote its row again with other counts: the verdict's counts stand.
  const fleet = fleetRows({
    generators: [[0, 'done', { sent: 300, ok: 300, failed: 0 }], [1, 'done', { sent: 20, ok: 20, failed: 0 }]],
    reconciled: {
      finished_by: 1,
      generators: [{ generator: 0, counts: { sent: 200, ok: 100, failed: 5 }, stored_in_table: 130,
        found_in_table: 30, unreported_bound: 0, noticed_after_s: 7.5 }],
      table_count: 150,
      reconciliation: { acknowledged: 150, in_doubt: 0, counted: 150, verdict: 'exact', excess: 0, missing: 0 }
    }
  })
  const merged = mergeResults([alive], { fleet })
  assert.deepEqual([merged.rows_ok, merged.rows_failed, merged.rows_in_doubt, merged.rows_sent], [150, 5, 0, 155])
  assert.equal(merged.rows_found_in_table, 30)
  assert.match(merged.partial_reasons[0],
    joined(
      /its rows counted in the table by their keys, 130 stored \(100 acknowledged /,
      /by its last report, 30 found in the table since\), none in doubt$/))
})

test('a fleet nobody reconciled is partial and says so', () => {
  const merged = mergeResults([generatorResult({ index: 0, ms: [1], serverMs: [1] })], {
    fleet: fleetRows({ generators: [[0, 'done', { sent: 10, ok: 10, failed: 0 }], [1, 'done', { sent: 10, ok: 10,
      failed: 0 }]] })
  })
  assert.equal(merged.partial, true)
  assertSomeMatch(merged.partial_reasons, /^the fleet was not reconciled: no generator finished the fleet/)
  assert.equal(merged.fleet.finished_by, null)
})

test('a fleet\'s drift: its generators\' intervals added, the windows\' latency from their merged histograms', () => {
  const withSeries = (index, msAt) => {
    const r = generatorResult({ index, ms: [1], serverMs: [1] })
    r.seconds = 100
    r.sending_seconds = 100
    r.timeline.warmup_s = 0
    r.timeline.series = Array.from({ length: 100 }, (_, t) => ({ t_s: t,
      ingest: { ok: t < 50 ? 100 : 50, failed: 0, in_doubt: 0, per_sec: t < 50 ? 100 : 50, max_ms: msAt(t),
        latency_hist: encoded([msAt(t)]), labels: {} } }))
    return r
  }
  const merged = mergeResults([withSeries(0, (t) => (t < 50 ? 2 : 8)), withSeries(1, (t) => (t < 50 ? 4 : 16))])
  const { drift } = merged
  assert.deepEqual([drift.first.per_sec, drift.last.per_sec, drift.throughput_change_pct], [200, 100, -50])
  assert.ok(Math.abs(drift.first.p99_ms - 4) < 0.01 && Math.abs(drift.last.p99_ms - 16) < 0.02, JSON.stringify(drift))
  assert.equal(merged.timeline.series[0].ingest.latency_hist, undefined, 'no stages: the histograms are not kept')
})

test('a fleet\'s merged options are the fleet\'s (its rate, its size), its events every generator\'s on one clock',
  () => {
  const a = generatorResult({ index: 0, ms: [1], serverMs: [1] })
  const b = generatorResult({ index: 1, ms: [1], serverMs: [1] })
  a.options = { ...a.options, rate: 4000 }
  b.options = { ...b.options, rate: 4000 }
  // A rate changed on the fleet's page, 12,000 -> 9,000: each generator its share, 0.5 s after its own start.
  a.events = [{ at_s: 0.5, kind: 'rate_change', what: 'main', from: 6000, to: 4500, by: 'page' }]
  b.events = [{ at_s: 0.5, kind: 'rate_change', what: 'main', from: 6000, to: 4500, by: 'page' },
    { at_s: 0.1, kind: 'host_down', host: 'n2', detail: 'ECONNREFUSED' }]
  const merged = mergeResults([a, b])
  assert.deepEqual([merged.options.rate, merged.options.generator, merged.options.load_generators],
    [8000, { count: 2 }, 2])
  assert.deepEqual(merged.events.map((e) => [e.kind, e.at_s, e.generator]), [
    ['host_down', 0.11, '2/2 on vm'], ['rate_change', 0.5, '1/2 on vm'], ['rate_change', 0.51, '2/2 on vm']])
})

// Issue 57 (item 10): the fleet's merged result keeps the prefill its preparing generator did.
test('the merged result keeps the prefill of the generator that filled the table', () => {
  const first = generatorResult({ index: 0, ms: [5], serverMs: [4] })
  const second = { ...generatorResult({ index: 1, ms: [6], serverMs: [5] }),
    prefill: { rows_target: 1_000_000, rows_ok: 1_000_000, rows_in_doubt: 0, seconds: 12.5 } }
  const merged = mergeResults([first, second])
  assert.deepEqual(merged.prefill, second.prefill)
  assert.equal(mergeResults([first, generatorResult({ index: 1, ms: [6], serverMs: [5] })]).prefill, undefined)
})
