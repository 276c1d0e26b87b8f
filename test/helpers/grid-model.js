'use strict'

// A cluster as a sizing study sees it, without a cluster: throughput rises with the batch and levels off, grows with
// the requests in flight up to 16 and falls past them; latency grows with both. The grid's tests read its verdicts
// from these numbers, so the expected best, plateau and recommended cells follow from the table below.

const fs = require('node:fs')

const BATCH = { 100: 20_000, 500: 60_000, 2000: 78_000, 5000: 80_000 }
const FLIGHT = { 1: 1, 4: 3.5, 16: 4, 64: 2.5 }

/** A cluster of `nodes` machines of `cores` cores, as environment.cluster records it (with its node list). */
const clusterOf = (nodes, { cores = 8, heapBytes = 8 * 2 ** 30 } = {}) => ({ nodes, cores_per_node: cores,
  heap_bytes_per_node: heapBytes, shared_machine: false,
  node_list: Array.from({ length: nodes }, (_, i) => ({ name: `n${i + 1}`, hostname: `m${i + 1}`, cores,
    heap_max_bytes: heapBytes })) })

/** The --json result of one run of the ingest benchmark at `settings`, in `round` (a ±1% drift per round). */
const THREE_NODES = clusterOf(3)

/** `cluster`: the shape the result names (environment.cluster); `scale`: its throughput against three nodes'. */
function scriptedResult (settings, round = 1, { failsAt = () => false, cluster = THREE_NODES, scale = 1,
  noise = () => 1, nodeLoad = () => 1, cpuBeforeLoad = () => 2, lostAt = () => false } = {}) {
  const { batch_size: batch, concurrent_requests: flight } = settings
  const perSec = BATCH[batch] * FLIGHT[flight] * (1 + (round - 2) * 0.01) * scale * noise(settings, round)
  const failed = failsAt(batch, flight) ? 400 : 0
  const seconds = 10
  return {
    workload: 'ingest',
    seconds,
    rows_sent: Math.round(perSec * seconds) + failed,
    rows_ok: Math.round(perSec * seconds),
    rows_failed: failed,
    rows_in_doubt: 0,
    rows_per_sec: perSec,
    metrics_per_sec: perSec * 10,
    latency_ms: { p50: (5 + batch / 50) * (flight / 8), p99: (5 + batch / 50) * (flight / 4) },
    partial: false,
    requests: Math.round((perSec * seconds) / batch),
    errors: [...(failed ? [{ code: 'EsRejectedExecutionException', count: failed }] : []),
      // A load the cluster did not survive, as a 512 MB node answered its last batches (OutOfMemoryError), then died.
      ...(lostAt(settings) ? [{ code: 5000, status: 500, in_doubt: false, message: 'OutOfMemoryError[Java heap space]',
        count: 20_000 }, { code: 'ECLOSED', in_doubt: true, message: 'connection to http://#:# closed before the ' +
        'answer arrived', count: 250_000 }] : [])],
    events: lostAt(settings) ? [{ at_s: 20.237, kind: 'host_down', host: 'http://db1:4200',
      detail: 'connection to http://db1:4200 closed before the answer arrived' }] : [],
    workers: [],
    client: { saturated: false },
    options: { hosts: ['http://db1:4200'], model: 'cpu', batch_size: batch, concurrent_requests: flight, processes: 1 },
    cluster: { nodes: [{ name: 'n1', peak: { process_cpu_pct: Math.min(100, flight * 6), write_queue: flight,
      load_1m: nodeLoad(settings) } }],
    write_rejected: 0, search_rejected: 0 },
    // The first node's CPU before the run did anything (cluster-shape.js): another client's work when high.
    environment: { cluster: cluster.node_list ? { ...cluster, node_list: cluster.node_list.map((n, i) => (i === 0
      ? { ...n, cpu_pct_before_run: cpuBeforeLoad(settings) } : n)) } : cluster },
    table_storage: { start: { shards: 6, size_bytes: 0, docs: 0, segments: 0 }, end: null }
  }
}

/** The settings a grid passed to the benchmark: each --name value pair before --json that a dimension names. */
function settingsOf (args) {
  const settings = {}
  for (const name of ['batch_size', 'concurrent_requests']) {
    const at = args.lastIndexOf(`--${name}`)
    if (at >= 0) settings[name] = Number(args[at + 1])
  }
  return settings
}

/**
 * The grid's `run` without processes: writes the scripted result and log, records every call. `hangAt(n)`: the n-th
 * call (1-based) never ends, as a grid killed during that run; `cluster`, `scale` and `noise` ((settings, round) =>
 * a factor on the throughput: a busy or warming cluster) as scriptedResult takes them.
 */
function fakeGridBenchmark ({ failsAt, hangAt = () => false, exitCodeOf = () => null, cluster, scale, noise,
  nodeLoad, cpuBeforeLoad, lostAt } = {}) {
  const calls = []
  const rounds = new Map()
  const run = ({ args, resultFile, logFile }) => {
    calls.push(args)
    if (hangAt(calls.length)) return new Promise(() => {})
    const settings = settingsOf(args)
    const key = JSON.stringify(settings)
    // A grid's warm-up run is none of a cell's rounds: the cell's first measured run is still its round 1.
    const warmup = require('node:path').basename(resultFile).startsWith('warmup-')
    if (!warmup) rounds.set(key, (rounds.get(key) || 0) + 1)
    const code = exitCodeOf(settings)
    if (code !== null) {
      fs.writeFileSync(logFile, 'appClusterIngest.js: error: cannot reach CrateDB: connection refused\n')
      fs.writeFileSync(resultFile, '')
      return Promise.resolve({ code, signal: null })
    }
    const result = scriptedResult(settings, warmup ? 1 : rounds.get(key), { failsAt, cluster, scale, noise, nodeLoad,
      cpuBeforeLoad, lostAt })
    fs.writeFileSync(logFile, 'report\n')
    fs.writeFileSync(resultFile, JSON.stringify(result))
    return Promise.resolve({ code: result.rows_failed > 0 ? 1 : 0, signal: null })
  }
  return { calls, run, settingsOf }
}

/** A factor from 0.4 to 1 for each run, the same for the same settings and round: runs on a busy, noisy node. */
function noisyRuns (settings, round) {
  let h = 2166136261
  for (const c of `${JSON.stringify(settings)}#${round}`) h = Math.imul(h ^ c.charCodeAt(0), 16777619)
  return 0.4 + ((h >>> 0) % 1000) / 1000 * 0.6
}

/** Round 1 at 45% of the others: a cluster warming up. */
const slowFirstRound = (settings, round) => (round === 1 ? 0.45 : 1)

module.exports = { scriptedResult, fakeGridBenchmark, settingsOf, noisyRuns, slowFirstRound, clusterOf, BATCH, FLIGHT }
