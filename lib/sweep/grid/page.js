'use strict'

const { escapeHtml, chartPageHead } = require('../../reports/html/parts')
const { fmt, fmtWhole: whole } = require('../../base/format')
const { renderSvgChart } = require('../../reports/html/svg-chart')
const { heatmapSvg } = require('./heatmap')
const { settingsText, missesSlo } = require('./analysis')
const { gridText } = require('./report')

// grid.html: one self-contained page (its charts drawn here as SVG, no script): the heatmap, the ridge (the best cell
// of each row), a line chart per dimension and every cell's figures.

/** The cell of `settings` (some of them fixed), the fastest candidate where several fit: a line's point. */
function cellAt (grid, fixed) {
  const fits = grid.cells.filter((c) => c.excluded === null && c.per_sec > 0 &&
    Object.entries(fixed).every(([k, v]) => c.settings[k] === v))
  return fits.reduce((a, c) => (!a || c.per_sec > a.per_sec ? c : a), null)
}

/**
 * Throughput along one dimension: a line per value of the other (two dimensions), or its ridge (more); beside each
 * point the runs it stands on (dots) and its 95% interval (a bar), so that a step the noise covers looks like one.
 */
function dimensionChart (grid, dimension) {
  const others = grid.vary.filter((d) => d !== dimension)
  const lines = others.length === 1
    ? others[0].values.map((v) => ({ name: `${others[0].name} ${v}`, fixed: { [others[0].name]: v } }))
    : [{ name: 'best over the other settings', fixed: {} }]
  const series = []
  for (const l of lines) {
    const cells = dimension.values.map((value) => cellAt(grid, { ...l.fixed, [dimension.name]: value }))
    series.push({ type: 'line', name: l.name, connectNulls: false, symbolSize: 7,
      data: cells.map((c) => (c ? c.per_sec : null)) })
    series.push({ type: 'scatter', name: `${l.name}: each run`, symbolSize: 4, itemStyle: { opacity: 0.6 },
      data: cells.flatMap((c, x) => (c ? (c.runList || []).filter((r) => r.per_sec > 0).map((r) => [x, r.per_sec])
        : [])) })
    const bars = cells.flatMap((c, x) => (c && c.ci95 ? [[x, c.ci95.low], [x, c.ci95.high], [x, '-']] : []))
    if (bars.length) {
      series.push({ type: 'line', name: `${l.name}: 95% interval`, symbol: 'none', connectNulls: false,
        lineStyle: { width: 3, opacity: 0.5 }, data: bars })
    }
  }
  return renderSvgChart({
    animation: false,
    title: { text: `${grid.unit || 'units'}/s by ${dimension.name}`, subtext: 'lines: the median run; dots: each ' +
      'run; bars: the 95% interval', left: 'center' },
    legend: { bottom: 0, type: 'scroll' },
    grid: { left: 90, right: 30, top: 60, bottom: 70 },
    xAxis: { type: 'category', name: dimension.name, nameLocation: 'middle', nameGap: 28,
      data: dimension.values.map(String) },
    yAxis: { type: 'value', name: `${grid.unit || 'units'}/s` },
    series
  }, { width: 640, height: 380 })
}

function cellRows (grid) {
  return grid.cells.map((c) => `<tr${c.id === (grid.best && grid.best.id) ? ' class="best"' : ''}>` +
    [settingsText(c.settings), c.runs_done, whole(c.per_sec), c.ci95 ? `${whole(c.ci95.low)}–${whole(c.ci95.high)}` +
      `${c.ci95.wide ? ' (wide)' : ''}` : '', typeof c.spread_pct === 'number' ? `${fmt(c.spread_pct)}%` : '',
    whole(c.field_values_per_sec), fmt(c.p50_ms),
    `${fmt(c.p99_ms)}${missesSlo(c, grid.slo_p99_ms) ? ' › slo' : ''}`, fmt(c.failed),
    fmt(c.in_doubt),
      fmt(c.busiest_cpu_pct), fmt(c.write_queue_max), fmt(c.rejections), c.busy_machine ? 'busy' : '',
      c.excluded ?? '']
      .map((x) => `<td>${escapeHtml(x)}</td>`).join('') + '</tr>').join('\n')
}

function ridgeRows (grid) {
  const [rows] = grid.vary
  return rows.values.map((value) => {
    const row = grid.cells.filter((c) => c.settings[rows.name] === value && c.excluded === null && c.per_sec > 0)
    const top = row.reduce((a, c) => (!a || c.per_sec > a.per_sec ? c : a), null)
    const best = top ? settingsText(top.settings) : '-'
    return `<tr><td>${escapeHtml(`${rows.name} ${value}`)}</td><td>${escapeHtml(best)}</td>` +
      `<td>${escapeHtml(whole(top && top.per_sec))}</td><td>${escapeHtml(fmt(top && top.p99_ms))}</td></tr>`
  }).join('\n')
}

/** The page, from the grid model (lib/sweep/grid/model.js). */
function gridHtml (grid) {
  const unit = grid.unit || 'units'
  const verdict = new RegExp('^(best|rounds|busy machine|plateau|recommended|ruled out| {2}beyond| {2}how sure|' +
    'partial grid|race|warm-up run|equivalent within noise|the sentences|- )')
  const words = gridText(grid).split('\n').filter((l) => verdict.test(l) && !l.startsWith('best: highest'))
  return `${chartPageHead('crate-bench grid', `table { border-collapse: collapse; margin: 8px 0; }
td, th { border: 1px solid #ddd; padding: 2px 8px; text-align: right; } td:first-child { text-align: left; }
tr.best td { font-weight: bold; } .dims { display: flex; flex-wrap: wrap; gap: 16px; }`)}
<body>
<h1>crate-bench grid: ${escapeHtml(grid.vary.map((d) => d.name).join(' × '))}</h1>
<p>${escapeHtml(grid.subtitle)}${grid.complete ? '' : ' — <b>not complete</b>: the cells not run yet are empty'}</p>
<ul>${words.map((l) => `<li>${escapeHtml(l.replace(/^- /, ''))}</li>`).join('')}</ul>
<h2>The grid</h2>
${heatmapSvg(grid)}
<h2>The ridge: the best cell of each ${escapeHtml(grid.vary[0].name)}</h2>
<table><tr><th>row</th><th>best cell</th><th>${escapeHtml(unit)}/s</th><th>p99 ms</th></tr>
${ridgeRows(grid)}
</table>
<h2>Each dimension</h2>
<div class="dims">${grid.vary.map((d) => dimensionChart(grid, d)).join('\n')}</div>
<h2>Every cell</h2>
<table><tr><th>settings</th><th>runs</th><th>${escapeHtml(unit)}/s</th><th>95% interval</th><th>spread</th>
<th>field values/s</th>
<th>p50 ms</th><th>p99 ms</th><th>failed</th><th>in doubt</th><th>busiest CPU %</th><th>write queue</th>
<th>rejections</th><th>busy nodes</th><th>ruled out</th></tr>
${cellRows(grid)}
</table>
</body>
</html>
`
}

module.exports = { gridHtml }
