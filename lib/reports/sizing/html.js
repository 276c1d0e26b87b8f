'use strict'

const { escapeHtml, chartPageHead } = require('../html/parts')
const { renderSvgChart } = require('../html/svg-chart')
const { groupTitle, groupTable, groupNotes, inputNotes } = require('./rows')

// sizing.html: for each group the reference as an HTML table (the terminal's rows), the lines under it, throughput
// against cluster size (the best measured with its 95% interval, the figure at the recommended settings, the figure
// to plan with, the linear line from the smallest size and the Universal Scalability Law's curve when fitted; nodes
// sharing a machine drawn apart, not on the line) and the p99 at each size. Drawn here as SVG: one file, no script.

const wholeText = (v) => Math.round(v).toLocaleString('en-US')

/** One line series of vertical segments (an interval per size), broken between sizes. */
function intervalSegments (shapes) {
  const data = []
  for (const s of shapes.filter((x) => x.best && x.best.ci95)) {
    data.push([s.nodes, s.best.ci95.low], [s.nodes, s.best.ci95.high], [s.nodes, '-'])
  }
  return data
}

function throughputChart (group) {
  const sized = group.shapes.filter((s) => s.best)
  const apart = sized.filter((s) => s.shared_machine)
  const own = sized.filter((s) => !s.shared_machine)
  const base = own[0]
  const largest = Math.max(1, ...sized.map((s) => s.nodes), ...group.usl.flatMap((u) => u.curve.map((p) => p.nodes)))
  const label = { show: true, position: 'right', formatter: (p) => wholeText(p.value[1]) }
  const series = [
    { type: 'scatter', name: 'best measured', symbolSize: 12, data: own.map((s) => [s.nodes, s.best.per_sec]), label },
    { type: 'line', name: '95% interval of the best', symbol: 'none', connectNulls: false,
      lineStyle: { width: 2 }, data: intervalSegments(own) },
    { type: 'scatter', name: 'at the recommended settings', symbol: 'diamond', symbolSize: 11,
      data: own.filter((s) => s.recommended).map((s) => [s.nodes, s.recommended.per_sec]) },
    { type: 'scatter', name: 'to plan with', symbol: 'triangle', symbolSize: 11,
      data: own.filter((s) => s.planning.per_sec !== null).map((s) => [s.nodes, s.planning.per_sec]) }
  ]
  if (apart.length) {
    series.push({ type: 'scatter', name: 'nodes sharing a machine (no scaling figure)', symbol: 'emptyCircle',
      symbolSize: 12, itemStyle: { color: '#999' }, data: apart.map((s) => [s.nodes, s.best.per_sec]), label })
  }
  // No scaling line from a figure that ran beside other work: its slope would be the other work's.
  if (base && !base.best.busy) {
    series.push({ type: 'line', name: `linear (${base.nodes} node${base.nodes > 1 ? 's' : ''} × N)`, symbol: 'none',
      lineStyle: { type: 'dashed' }, data: [[0, 0], [largest, base.per_node * largest]] })
  }
  for (const u of group.usl) {
    series.push({ type: 'line', name: `USL fit${u.cores_per_node ? ` (${u.cores_per_node} cores a node)` : ''}, ` +
      'an estimate', symbol: 'none', smooth: true, data: u.curve.map((p) => [p.nodes, p.per_sec]) })
  }
  return renderSvgChart({
    animation: false,
    title: { text: `${groupTitle(group)}: ${group.unit}/s by cluster size`, left: 'center',
      textStyle: { fontSize: 14 } },
    legend: { bottom: 0, type: 'plain' },
    grid: { left: 100, right: 60, top: 50, bottom: 90 },
    xAxis: { type: 'value', name: 'nodes', nameLocation: 'middle', nameGap: 28, min: 0, minInterval: 1 },
    yAxis: { type: 'value', name: `${group.unit}/s`, min: 0 },
    series
  }, { width: 760, height: 460 })
}

function latencyChart (group) {
  const sized = group.shapes.filter((s) => s.best && typeof (s.recommended ?? s.best).p99_ms === 'number')
  return renderSvgChart({
    animation: false,
    title: { text: 'p99 at each size (ms): at the recommended settings, else the best', left: 'center',
      textStyle: { fontSize: 13 } },
    grid: { left: 80, right: 30, top: 60, bottom: 50 },
    xAxis: { type: 'value', name: 'nodes', nameLocation: 'middle', nameGap: 28, min: 0, minInterval: 1 },
    yAxis: { type: 'value', name: 'ms', min: 0 },
    series: [{ type: 'line', symbolSize: 10, data: sized.map((s) => [s.nodes, (s.recommended ?? s.best).p99_ms]),
      label: { show: true, position: 'top', formatter: (p) => `${Math.round(p.value[1] * 10) / 10}` } }]
  }, { width: 480, height: 460 })
}

function htmlTable ({ head, rows }) {
  return `<table><thead><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>\n` +
    rows.map((row) => `<tr>${row.map((cell) => `<td>${escapeHtml(cell)}</td>`).join('')}</tr>`).join('\n') +
    '\n</tbody></table>'
}

const STYLE = `body { max-width: 1300px; } table { border-collapse: collapse; margin: 8px 0; font-size: 13px; }
td, th { border: 1px solid #ddd; padding: 3px 8px; text-align: right; vertical-align: top; }
th { background: #f4f4f4; } td:first-child, th:first-child { text-align: left; }
ul.notes li { margin: 2px 0; } .pair { display: flex; flex-wrap: wrap; gap: 16px; } svg { max-width: 100%; }`

/**
 * The page: what was measured (`headerLines`, a study's), each group's table, the lines under it and its charts, and
 * the study's caveats: every line the terminal printed.
 */
function renderSizingHtml (sizing, { headerLines = [] } = {}) {
  const list = (lines) => (lines.length
    ? `<ul class="notes">${lines.map((l) => `<li>${escapeHtml(l)}</li>`).join('')}</ul>` : '')
  const caveats = [...(sizing.study_warnings || []).map((w) => `warning: ${w}`), ...(sizing.study_caveats || [])]
  return `${chartPageHead('crate-bench sizing', STYLE)}
<body>
<h1>Sizing reference</h1>
${headerLines.length ? `<h2>What was measured</h2>\n${list(headerLines)}` : ''}
${caveats.length ? `<h2>Caveats of the study</h2>\n${list(caveats)}` : ''}
${sizing.groups.map((g) => `<h2>${escapeHtml(groupTitle(g))}</h2>
${htmlTable(groupTable(g))}
${list(groupNotes(g))}
<div class="pair">${throughputChart(g)}${latencyChart(g)}</div>`).join('\n')}
${list(inputNotes(sizing))}
</body>
</html>
`
}

module.exports = { renderSizingHtml }
