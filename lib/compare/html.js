'use strict'

const fs = require('node:fs')

const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c])

/** The comparison as one self-contained page: base and new side by side per figure, with the change and its interval. */
function renderCompareHtml (comparison) {
  const figures = comparison.figures.filter((f) => f.base !== null)
  const rows = comparison.figures.map((f) => `<tr><td>${escapeHtml(f.figure)}</td><td>${f.base ?? '-'}</td><td>${f.new ?? '-'}</td><td>${f.change_pct ?? '-'}%</td><td>${f.ci_pct ? `${f.ci_pct[0]}% .. ${f.ci_pct[1]}%` : '-'}</td><td>${escapeHtml(f.verdict)}</td></tr>`).join('\n')
  const data = JSON.stringify({ figures }).replace(/</g, '\\u003c')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>crate-bench compare</title>
<style>body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; } td, th { padding: 2px 10px; text-align: left; } .chart { height: ${Math.max(240, 60 * figures.length)}px; max-width: 1100px; }</style>
</head><body data-charts="0">
<h1>Base (${comparison.base_runs} runs) against new (${comparison.new_runs} runs)</h1>
<p>${escapeHtml(comparison.judged ? comparison.method : 'fewer than 3 runs a side: significance cannot be judged')}</p>
<div class="chart" id="chart-compare"></div>
<table><tr><th>figure</th><th>base</th><th>new</th><th>change</th><th>95% CI</th><th>verdict</th></tr>
${rows}
</table>
<script>${fs.readFileSync(require.resolve('echarts/dist/echarts.min.js'), 'utf8')}</script>
<script type="application/json" id="compare-data">${data}</script>
<script>
(function () {
  'use strict'
  var figures = JSON.parse(document.getElementById('compare-data').textContent).figures
  var chart = echarts.init(document.getElementById('chart-compare'), null, { renderer: 'svg' })
  chart.setOption({
    animation: false,
    title: { text: 'Change of each figure, new against base (%)', textStyle: { fontSize: 13 } },
    tooltip: { trigger: 'axis' },
    grid: { left: 260, right: 40, top: 40, bottom: 30 },
    xAxis: { type: 'value', name: '%' },
    yAxis: { type: 'category', data: figures.map(function (f) { return f.figure }) },
    series: [{ type: 'bar', data: figures.map(function (f) { return { value: f.change_pct, itemStyle: { color: f.verdict === 'better' ? '#3a7' : f.verdict === 'worse' ? '#c33' : '#999' } } }) }]
  })
  document.body.dataset.charts = 1
})()
</script>
</body></html>
`
}

module.exports = { renderCompareHtml }
