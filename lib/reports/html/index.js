'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { decodeHistogram } = require('../../results/stats')
const { escapeHtml, scriptJson, echartsSource, ERROR_COUNTER, chartPageHead } = require('./parts')
const { shapeText } = require('../../cluster/cluster-shape')

// One self-contained HTML file: ECharts, the run's data and the code that draws it are inlined,
// so the file opens anywhere, offline, and can be mailed or archived with the run.

const PERCENTILES = [0, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.999, 100]

/** The latency distribution as HdrHistogram plots it: latency at each percentile. */
function percentileCurve (encoded) {
  if (!encoded) return []
  const histogram = decodeHistogram(encoded)
  return PERCENTILES.map((p) => ({ percentile: p, ms: Math.round(histogram.getValueAtPercentile(p)) / 1000 }))
}

/** The charts this run has data for: every page gets the time charts, query mixes one more. */
function chartsOf (result) {
  const charts = [
    ['throughput', 'Throughput over time'],
    ['latency', 'Latency over time (ms)'],
    ['failures', 'Failed and in-doubt units per interval'],
    ['node_cpu', 'Process CPU % per node'],
    ['node_heap', 'Heap used % per node'],
    ['node_write_queue', 'Write queue per node'],
    ['node_rejections', 'Write rejections per node (since the first sample)'],
    ['distribution', 'Latency distribution (percentile curve)']
  ]
  if (Array.isArray(result.queries)) charts.splice(3, 0, ['query_latency', 'p99 latency per query over time (ms)'])
  // The tool's own master, minute by minute: a long run's report shows whether the generator stayed flat.
  const self = result.timeline && result.timeline.client
  if (Array.isArray(self) && self.length > 0) {
    charts.splice(charts.length - 1, 0, ['load_generator', 'The load generator\'s master per minute'])
  }
  return charts
}

function renderHtmlReport (result, { terminalReport = '' } = {}) {
  const charts = chartsOf(result)
  const data = {
    result: { ...result, histograms: undefined },
    curve: percentileCurve(result.histograms && result.histograms.latency),
    charts: charts.map(([id]) => id)
  }
  const env = result.environment || {}
  const title = `${result.workload} benchmark${result.started_at ? `, ${result.started_at}` : ''}`
  const facts = [
    ['tool', `crate-bench ${env.tool_version ?? '?'} on Node ${env.node_version ?? '?'}`],
    ['load generator', `${env.load_generator ?? '?'} (${env.cpus ?? '?'} CPUs: ${env.cpu_model ?? '?'})`],
    [
      'cluster',
      `CrateDB ${env.cratedb_version ?? 'version unknown'}, ${env.cratedb_nodes ?? '?'} ` +
      `node(s): ${(result.options.hosts || []).join(', ')}${env.cluster ? `; ${shapeText(env.cluster)}` : ''}`
    ],
    ['protocol', result.options.protocol === 'pg'
      ? `PostgreSQL wire protocol (port ${result.options.pg_port ?? 5432})` : 'HTTP (/_sql)'],
    ['run', `${result.options.run_id ?? ''}, ${result.seconds} s${result.partial ? ' — PARTIAL' : ''}`]
  ]
  return `${chartPageHead(title, `table.facts td { padding: 2px 12px 2px 0; vertical-align: top; }
table.facts td:first-child { color: #666; }
pre { background: #f6f6f6; padding: 12px; overflow-x: auto; font-size: 12px; }
.partial { color: #b00; font-weight: bold; }`)}
<body data-charts="0" data-errors="0">
${ERROR_COUNTER}
<h1>${escapeHtml(title)}</h1>
${result.partial ? `<p class="partial">PARTIAL RESULT: ${escapeHtml(result.partial_reasons.join('; '))}</p>` : ''}
<table class="facts">${facts.map(([k, v]) => `<tr><td>${escapeHtml(k)}</td><td>${escapeHtml(v)}</td></tr>`).join('')}
</table>
<h2>Over time</h2>
<div class="charts">
${charts.map(([id, text]) => `<div class="chart" id="chart-${id}" data-title="${escapeHtml(text)}"></div>`).join('\n')}
</div>
<h2>Summary</h2>
<pre>${escapeHtml(terminalReport)}</pre>
<h2>Options</h2>
<pre>${escapeHtml(JSON.stringify(result.options, null, 2))}</pre>
<script>${echartsSource()}</script>
<script type="application/json" id="run-data">${scriptJson(data)}</script>
<script>${fs.readFileSync(path.join(__dirname, 'page.js'), 'utf8')}</script>
</body>
</html>
`
}

module.exports = { renderHtmlReport, chartsOf, percentileCurve }
