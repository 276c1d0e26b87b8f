'use strict'

// The run behind the README's screenshot of the HTML report, against the test cluster (not
// CrateDB): three nodes, one lost and back, sys.nodes samples that move, the dashboard mix at
// 300 queries/s under a 20,000 rows/s ingest. Usage: node bench/report-example.js OUT.html

const path = require('node:path')
const fs = require('node:fs')
const os = require('node:os')
const { startCrateTestCluster, fixture } = require('../test/helpers/crate-test-double')
const { runTool } = require('../test/helpers/run-tool')

;(async () => {
  const base = fixture('56-sys-nodes-before-load').response.body
  const cluster = await startCrateTestCluster(
    {
      failover: { windowMs: 800, duplicateEvery: 9, bareEvery: 13 },
      query: (stmt) =>
        /^SELECT/i.test(stmt) && !/sys\./.test(stmt) ? { cols: ['x'], rows: [[1]], rowcount: 1 } : null,
      sysNodes: (n) => {
        const cols = base.cols
        const rows = cluster.nodes
          .filter((node) => !node.killed)
          .map((node, i) =>
            cols.map((c, k) => {
              const v = JSON.parse(JSON.stringify(base.rows[0][k]))
              if (c === 'name') return node.name
              if (c === 'process_cpu') {
                return {
                  ...v,
                  percent: Math.min(99, 35 + 8 * i + Math.round(20 * Math.sin(n / 2 + i)) + Math.min(30, n * 2))
                }
              }
              if (c === 'heap') return { ...v, used: Math.round(v.max * (0.3 + 0.02 * n + 0.05 * i)) % v.max }
              if (c === 'thread_pools') {
                return v.map((p) =>
                  p.name === 'write'
                    ? {
                        ...p,
                        queue: Math.max(0, Math.round(40 * Math.sin(n / 3 + i))),
                        rejected: n > 8 ? (n - 8) * 120 * (i + 1) : 0
                      }
                    : p
                )
              }
              return v
            })
          )
        return { cols, rows, rowcount: rows.length }
      }
    },
    { nodes: 3 }
  )
  let bulks = 0
  cluster.script.fault = ({ bulk, node, stmt }) => {
    if (bulk && node === 2 && ++bulks === 60) { cluster.kill(2); setTimeout(() => cluster.revive(2), 3000) }
    if (bulk) return { answerDelayMs: 15 + Math.round(10 * Math.random()) }
    if (/^SELECT/.test(stmt) && !/sys\.|max\(ts\)|count\(\*\) AS nodes/.test(stmt)) {
      return { delayMs: 3 + Math.round(25 * Math.random() ** 3) }
    }
    return undefined
  }
  const mix = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'report-example-')), 'mix.yml')
  fs.copyFileSync(path.join(__dirname, '..', 'queries', 'cpu-dashboard.yml'), mix)
  const run = await runTool(
    'appClusterAnalytical.js',
    [
      '--queries_config',
      mix,
      '--data_end',
      '2016-01-02T00:00:00Z',
      '--processes',
      '2',
      '--duration',
      '12s',
      '--rate',
      '300',
      '--ingest_rate',
      '20000',
      '--ingest_batch_size',
      '1000',
      '--monitor_interval',
      '1s',
      '--report',
      path.resolve(process.argv[2] || 'report-example.html'),
      '--json'
    ],
    { env: cluster.env() }
  )
  console.log('exit', run.code, run.stderr.split('\n').slice(-6).join('\n'))
  await cluster.stop()
})()
