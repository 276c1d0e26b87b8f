'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { renderReport } = require('../../lib/reports/text')
const { joined } = require('../helpers/patterns')

const workload = { unit: 'rows', name: 'ingest', detailTable: null }

function resultWith (errors) {
  return {
    partial: false,
    partial_reasons: [],
    seconds: 1,
    sending_seconds: 1,
    drain_seconds: 0,
    rows_sent: 10,
    rows_ok: 0,
    rows_failed: 10,
    rows_in_doubt: 0,
    rows_per_sec: 0,
    requests: 1,
    requests_failed: 0,
    latency_ms: {},
    server_ms: {},
    errors,
    workers: [],
    events: [],
    rate: null,
    warmup: null,
    cluster: null,
    client: { cpu_seconds: 0, cpu_us_per_row: 0, max_rss_mb_per_process: 0, workers: [], saturated: false }
  }
}

test('the failures table shows the 20 largest groups and one line for the rest; server text is made visible', () => {
  const errors = Array.from({ length: 8000 }, (_, i) => ({
    code: 5000, status: 200, in_doubt: false, message: 'm', sample: `bad \u001b[31mthing ${i}\nsecond line`,
      count: 8000 - i
  }))
  const text = renderReport(workload, resultWith(errors))
  assert.ok(!text.includes('\u001b'), 'no raw escape character')
  assert.match(text, /bad \\u001b\[31mthing 0\\nsecond line/)
  assert.ok(!text.includes('thing 20\\n'), 'the 21st group is not a row of its own')
  const restCount = errors.slice(20).reduce((sum, e) => sum + e.count, 0)
  assert.match(text, new RegExp(`${restCount.toLocaleString('en-US')} .*… 7,980 more groups \\(all in --json\\)`))
})

test('a p99 near --timeout and a write queue that keeps growing are warned about', () => {
  const node = (name, queue) => ({ name, write: { queue } })
  const cluster = {
    nodes: [],
    interval_ms: 5000,
    write_rejected: 0,
    search_rejected: 0,
    failed_samples: 0,
    samples: [
      { nodes: [node('n1', 10), node('n2', 40)] },
      { nodes: [node('n1', 300), node('n2', 900)] },
      { nodes: [node('n1', 950), node('n2', 30)] }
    ]
  }
  const text = renderReport(workload, {
    ...resultWith([]),
    options: { timeout_ms: 60_000 },
    latency_ms: { p50: 20_000, p99: 30_000 },
    cluster
  })
  assert.match(text, /warning: p99 30,000 ms is 50% of --timeout \(60,000 ms\): the slowest requests will time out/)
  assert.match(text, /warning: the write queue of n1 grew from 10 to 950 during the run/)
  assert.doesNotMatch(text, /write queue of n2/, 'a burst that drained is no growth')
  const calm = renderReport(workload, { ...resultWith([]), options: { timeout_ms: 60_000 }, latency_ms: { p99: 300 } })
  assert.doesNotMatch(calm, /--timeout/)
})

// Issue 49: under --rate the p99 counts from the schedule; --timeout bounds a request's own time.
test('under --rate, --timeout is judged by the requests\' own time; a schedule that fell behind is said as such',
  () => {
  const rate = (requestMaxMs) => ({ target_per_sec: 20, achieved_per_sec: 17, achieved_pct: 85, late_requests: 3353,
    dropped_requests: 0, dropped_units: 0, request_max_ms: requestMaxMs, latency_from: 'scheduled start' })
  const behind = renderReport(workload, { ...resultWith([]), options: { timeout_ms: 60_000 },
    latency_ms: { p50: 300_000, p99: 601_882.62 }, rate: rate(4_200) })
  assert.doesNotMatch(behind, /will time out/)
  assert.match(behind,
    joined(
      /note: p99 601,882\.62 ms counts from each request's scheduled start: the schedule /,
      /fell behind \(requests waited for a free slot\), while no request's own time came /,
      /near --timeout \(the slowest 4,200 ms, 7% of --timeout \(60,000 ms\)\)/))
  const slow = renderReport(workload, { ...resultWith([]), options: { timeout_ms: 60_000 },
    latency_ms: { p50: 300_000, p99: 601_882.62 }, rate: rate(45_000) })
  assert.match(slow,
    joined(
      /warning: the slowest request took 45,000 ms from send to answer, 75% /,
      /of --timeout \(60,000 ms\): the slowest requests will time out/))
})

// Issue 46: what the cluster's own samples say comes first.
test('a --rate shortfall the cluster caused leads with the cluster; nodes busy beyond the load are said', () => {
  const queue = (q) => ({ nodes: [{ name: 'n1', write: { queue: q } }] })
  const cluster = { interval_ms: 1000, samples: [queue(10), queue(300), queue(950)], failed_samples: 0,
    nodes: [{ name: 'n1', peak: { load_1m: 12, process_cpu_pct: 100, write_queue: 950 }, write_rejected: 0,
      search_rejected: 0 }], write_rejected: 0, search_rejected: 0 }
  const rate = { target_per_sec: 5000, achieved_per_sec: 3000, achieved_pct: 60, late_requests: 40, dropped_requests: 0,
    dropped_units: 0, latency_from: 'scheduled start' }
  const text = renderReport(workload, { ...resultWith([]), options: { concurrent_requests: 4 }, rate, cluster,
    latency_ms: { p99: 500 }, environment: { cluster: { nodes: 1, cores_per_node: 2,
      node_list: [{ name: 'n1', cores: 2 }] } } })
  assert.match(text,
    joined(
      /warning: achieved 60% of the target rate: the load was beyond what the cluster /,
      /serves \(the write queue of n1 grew from 10 to 950\): but the nodes were busy beyond this load \(n1: load /,
      /12 on 2 cores\): quiet them and measure again before you lower the rate or add nodes/))
  assert.doesNotMatch(text, /Raise --concurrent_requests/)
  // The same queue on a machine that ran nothing else: the cluster's own advice.
  const quietCluster = { ...cluster, nodes: [{ ...cluster.nodes[0], peak: { ...cluster.nodes[0].peak, load_1m: 2 } }] }
  const quiet = renderReport(workload, { ...resultWith([]), options: { concurrent_requests: 4 }, rate,
    cluster: quietCluster, latency_ms: { p99: 500 }, environment: { cluster: { nodes: 1, cores_per_node: 2,
      node_list: [{ name: 'n1', cores: 2 }] } } })
  assert.match(quiet, /grew from 10 to 950\): lower the rate or add nodes; more requests in flight/)
  assert.match(text,
    joined(
      /warning: the nodes were busy beyond this load \(n1: load 12 on /,
      /2 cores\): these figures are not the cluster's alone/))
  const calm = renderReport(workload, { ...resultWith([]), options: { concurrent_requests: 4 }, rate,
    latency_ms: { p99: 500 } })
  assert.match(calm, /Raise --concurrent_requests to at least/, 'without the cluster\'s samples, the client\'s advice')
})

test('a node busy before the run began (its CPU when the run read the cluster) marks the report; an idle one does not',
  () => {
  const shape = (cpu) => ({ environment: { cluster: { nodes: 2, cores_per_node: 2, node_list: [
    { name: 'n1', cores: 2, cpu_pct_before_run: cpu }, { name: 'n2', cores: 2, cpu_pct_before_run: 3 }] } } })
  // CPU during the load is the load's own.
  const cluster = { interval_ms: 1000, failed_samples: 0, write_rejected: 0, search_rejected: 0,
    samples: [{ t_s: 1, nodes: [{ name: 'n1', process_cpu_pct: 99 }, { name: 'n2', process_cpu_pct: 98 }] }],
    nodes: [{ name: 'n1', peak: { load_1m: 1, process_cpu_pct: 99 } }, { name: 'n2', peak: { load_1m: 1,
      process_cpu_pct: 98 } }] }
  const busy = renderReport(workload, { ...resultWith([]), latency_ms: { p99: 500 }, cluster, ...shape(85) })
  assert.match(busy,
    joined(
      /warning: the nodes were busy before this run began \(n1: CPU 85% before it made a table or sent a row: /,
      /another client, or the merges of an earlier load\): these figures are not the cluster's alone/))
  const confirmed = shape(85)
  confirmed.environment.cluster.cpu_read_over_s = 3
  assert.match(renderReport(workload, { ...resultWith([]), latency_ms: { p99: 500 }, cluster, ...confirmed }),
    /\(n1: CPU 85% or more through 3 s before it made a table or sent a row: /, 'the lowest of its readings, said so')
  const idle = renderReport(workload, { ...resultWith([]), latency_ms: { p99: 500 }, cluster, ...shape(4) })
  assert.doesNotMatch(idle, /busy/)
  const older = renderReport(workload, { ...resultWith([]), latency_ms: { p99: 500 }, cluster,
    environment: { cluster: { nodes: 2, cores_per_node: 2, node_list: [{ name: 'n1', cores: 2 }] } } })
  assert.doesNotMatch(older, /busy before/, 'a result read before the tool read the CPU (an older one) judges nothing')
})

test('a --rate shortfall whose latency grew through the run is put on the cluster, not on the client', () => {
  const rate = { target_per_sec: 20, achieved_per_sec: 17, achieved_pct: 85, late_requests: 3353, dropped_requests: 0,
    dropped_units: 0, latency_from: 'scheduled start' }
  const drift = { first_window_s: [0, 300], last_window_s: [2700, 3000], unit: 'queries', throughput_change_pct: 4.8,
    first: { per_sec: 17, p50_ms: 979, p99_ms: 3000 }, last: { per_sec: 17.8, p50_ms: 14_967, p99_ms: 9900 },
    slope_per_hour: { throughput: null, p99_ms: null, errors_per_sec: null }, changes: [] }
  const text = renderReport(workload, { ...resultWith([]), options: { concurrent_requests: 4 }, rate, drift,
    latency_ms: { p99: 9900 } })
  assert.match(text,
    joined(
      /warning: achieved 85% of the target rate: the load was beyond what the /,
      /cluster serves \(the median latency grew ×15\.3 through the run\)/))
  assert.doesNotMatch(text, /Raise --concurrent_requests/)
})
