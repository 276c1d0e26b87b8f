'use strict'

// The throughput scenarios (ingest models, SELECT 1) and how closely the open model keeps its --rate.

const path = require('node:path')
const { RUNS } = require('./targets')
const { ROOT, runApp, withStandIn } = require('./harness')

const SCENARIOS = [
  {
    workload: 'ingest',
    setting: 'batch 1000, 20 in flight, 1 process',
    script: 'appClusterIngest.js',
    args: ['--batch_size', '1000', '--max_rows', '1000000'],
    unit: 'row',
    check: null
  },
  {
    workload: 'ingest',
    setting: 'batch 10000, 20 in flight, 1 process',
    script: 'appClusterIngest.js',
    args: ['--batch_size', '10000', '--max_rows', '3000000'],
    unit: 'row',
    check: null
  },
  ...['devops', 'loadtest', 'kv'].map((model) => ({
    workload: `ingest --model ${model}`,
    setting: 'batch 5000, 20 in flight, 1 process',
    script: 'appClusterIngest.js',
    args: ['--model', model, '--batch_size', '5000', '--max_rows', '1000000'],
    unit: 'row',
    check: null
  })),
  {
    workload: 'analytical',
    setting: 'select1.yml, 20 in flight, 1 process',
    script: 'appClusterAnalytical.js',
    args: ['--queries_config', path.join(ROOT, 'queries', 'select1.yml'), '--max_queries', '50000'],
    unit: 'query',
    check: null
  }
]

// How closely the open model (--rate) keeps its target over several processes: the precision the
// tests leave out, because a loaded machine cannot keep it within 1%.
const RATE_SCENARIOS = [
  {
    workload: 'analytical --rate',
    setting: 'select1.yml, 2000 queries/s over 2 processes, 10 s',
    script: 'appClusterAnalytical.js',
    args: [
      '--queries_config',
      path.join(ROOT, 'queries', 'select1.yml'),
      '--processes',
      '2',
      '--rate',
      '2000',
      '--max_queries',
      '10000'
    ]
  },
  {
    workload: 'ingest --rate',
    setting: 'batch 1000, 200,000 rows/s over 2 processes, 10 s',
    script: 'appClusterIngest.js',
    args: ['--batch_size', '1000', '--processes', '2', '--rate', '200000', '--max_rows', '1000000']
  }
]

async function measureRate (scenario) {
  const result = await withStandIn((port) =>
    runApp(
      scenario.script,
      ['--concurrent_requests', '20', '--seed', '1', '--monitor_interval', '0', ...scenario.args],
      port
    )
  )
  return {
    workload: scenario.workload,
    setting: scenario.setting,
    target_per_sec: result.rate.target_per_sec,
    achieved_per_sec: result.rate.achieved_per_sec,
    achieved_pct: result.rate.achieved_pct,
    late_requests: result.rate.late_requests,
    p99_ms: result.latency_ms.p99
  }
}


function measurementOf (scenario, result) {
  const units = scenario.unit === 'row' ? 'rows' : 'queries'
  return {
    units: result[`${units}_ok`],
    per_sec: result[`${units}_per_sec`],
    cpu_us: result.client[`cpu_us_per_${scenario.unit}`],
    rss_mb: result.client.max_rss_mb_per_process
  }
}

async function measure (scenario) {
  const runs = []
  for (let i = 0; i < RUNS; i++) {
    const result = await withStandIn((port) =>
      runApp(
        scenario.script,
        ['--processes', '1', '--concurrent_requests', '20', '--seed', '1', '--monitor_interval', '0', ...scenario.args],
        port
      )
    )
    runs.push(measurementOf(scenario, result))
  }
  runs.sort((a, b) => a.per_sec - b.per_sec)
  const median = runs[Math.floor(runs.length / 2)]
  return {
    workload: scenario.workload,
    setting: scenario.setting,
    runs: runs.length,
    ...median,
    per_sec_range: [runs[0].per_sec, runs[runs.length - 1].per_sec],
    cpu_us_range: [Math.min(...runs.map((r) => r.cpu_us)), Math.max(...runs.map((r) => r.cpu_us))],
    target: '-',
    met: null
  }
}


module.exports = { SCENARIOS, RATE_SCENARIOS, measure, measureRate }
