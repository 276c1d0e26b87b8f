'use strict'

const { escapeHtml, chartPageHead } = require('../html/parts')
const { renderSvgChart } = require('../html/svg-chart')

// sizing.html: for each workload, throughput against cluster size with the linear line (the smallest size's
// throughput per node, times the nodes) and the Universal Scalability Law's curve when fitted, and the p99 at each
// size's peak beside it. Drawn here as SVG: one file, no script.

function throughputChart (group) {
  const sized = group.shapes.filter((s) => s.peak)
  const base = sized[0]
  const largest = Math.max(...sized.map((s) => s.nodes), ...group.usl.flatMap((u) => u.curve.map((p) => p.nodes)))
  const series = [{
    type: 'scatter', name: 'peak at its own best', symbolSize: 12,
    data: sized.map((s) => [s.nodes, s.peak.per_sec]),
    label: { show: true, position: 'top', formatter: (p) => `${Math.round(p.value[1]).toLocaleString('en-US')}` }
  }]
  if (base) {
    series.push({ type: 'line', name: `linear (${base.nodes} node${base.nodes > 1 ? 's' : ''} × N)`, symbol: 'none',
      lineStyle: { type: 'dashed' }, data: [[0, 0], [largest, base.per_node * largest]] })
  }
  for (const u of group.usl) {
    series.push({ type: 'line', name: `USL fit${u.cores_per_node ? ` (${u.cores_per_node} cores a node)` : ''}, ` +
      'an estimate', symbol: 'none', smooth: true, data: u.curve.map((p) => [p.nodes, p.per_sec]) })
  }
  return renderSvgChart({
    animation: false,
    title: { text: `${group.workload} (${group.model}): peak ${group.unit}/s by cluster size`, left: 'center' },
    legend: { bottom: 0 },
    grid: { left: 100, right: 40, top: 60, bottom: 70 },
    xAxis: { type: 'value', name: 'nodes', nameLocation: 'middle', nameGap: 28, min: 0, minInterval: 1 },
    yAxis: { type: 'value', name: `${group.unit}/s`, min: 0 },
    series
  }, { width: 700, height: 420 })
}

function latencyChart (group) {
  const sized = group.shapes.filter((s) => s.peak)
  return renderSvgChart({
    animation: false,
    title: { text: 'p99 at each size\'s peak (ms)', left: 'center' },
    grid: { left: 80, right: 30, top: 60, bottom: 50 },
    xAxis: { type: 'value', name: 'nodes', nameLocation: 'middle', nameGap: 28, min: 0, minInterval: 1 },
    yAxis: { type: 'value', name: 'ms', min: 0 },
    series: [{ type: 'line', symbolSize: 10, data: sized.map((s) => [s.nodes, s.peak.p99_ms]),
      label: { show: true, position: 'top', formatter: (p) => `${Math.round(p.value[1] * 10) / 10}` } }]
  }, { width: 500, height: 420 })
}

/** The page: the terminal's reference as text, then the charts of each group. */
function renderSizingHtml (sizing, text) {
  return `${chartPageHead('crate-bench sizing', 'pre { font-size: 12px; } .pair { display: flex; flex-wrap: wrap; ' +
    'gap: 16px; }')}
<body>
<h1>Sizing reference</h1>
<pre>${escapeHtml(text)}</pre>
${sizing.groups.map((g) => `<h2>${escapeHtml(`${g.workload} (${g.model})`)}</h2>
<div class="pair">${throughputChart(g)}${latencyChart(g)}</div>`).join('\n')}
</body>
</html>
`
}

module.exports = { renderSizingHtml }
