'use strict'

const { escapeHtml, scriptJson, echartsSource, ERROR_COUNTER } = require('../html/parts')
const { runsText, changeText, intervalText, verdictText, fmt, optionDifferenceText, protocolsText, sidesText,
  busyText } = require('./wording')

/**
 * The comparison as one self-contained page: base and new side by side per figure, with the change
 * and its interval. A study's page leads with what was measured (`headerLines`) and its warnings (`notes`): every
 * line its terminal printed.
 */
function renderCompareHtml (comparison, { title = null, headerLines = [], notes = [] } = {}) {
  const list = (lines) => (lines.length ? `<ul>${lines.map((l) => `<li>${escapeHtml(l)}</li>`).join('')}</ul>` : '')
  const figures = comparison.figures.filter((f) => f.base !== null)
  const rows = comparison.figures
    .map((f) => {
      const cells = [f.figure, fmt(f.base), fmt(f.new), changeText(f), intervalText(f), verdictText(f)]
      const numeric = (i) => (i > 0 && i < 5 ? ' class="n"' : '')
      return `<tr>${cells.map((cell, i) => `<td${numeric(i)}>${escapeHtml(cell)}</td>`).join('')}</tr>`
    })
    .join('\n')
  const data = scriptJson({ figures })
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>crate-bench compare</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; } td, th { padding: 2px 10px; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.chart { height: ${Math.max(240, 60 * figures.length)}px; max-width: 1100px; }
.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(320px, 1fr)); gap: 12px; margin: 16px 0; }
.chart.small { height: 240px; border: 1px solid #ddd; }
</style>
</head><body data-charts="0" data-errors="0">
${ERROR_COUNTER}
<h1>${escapeHtml(title ? `${title}: ` : '')}Base (${runsText(comparison.base_runs)}) against new ` +
    `(${runsText(comparison.new_runs)})</h1>
${headerLines.length ? `<h2>What was measured</h2>\n${list(headerLines)}` : ''}
${notes.length ? `<div class="warning">${list(notes)}</div>` : ''}
<p>${escapeHtml(sidesText(comparison.sides)).replace('\n', '<br>')}</p>
<p>${escapeHtml(protocolsText(comparison.protocols))}</p>
${comparison.busy ? `<p class="warning"><b>${escapeHtml(busyText(comparison.busy).trim())}</b></p>` : ''}
<p>${escapeHtml(comparison.judged ? comparison.method : 'fewer than 3 runs a side: significance cannot be judged')}</p>
<p>${escapeHtml((comparison.option_differences || []).length === 0
    ? 'options: the same on both sides'
    : `options that differ: ${comparison.option_differences.map(optionDifferenceText).join('; ')}`)}</p>
<div class="chart" id="chart-compare"></div>
<div class="figures">${figures.map((f, i) => `<div class="chart small" id="chart-figure-${i}"></div>`).join('')}</div>
<table><tr><th>figure</th><th>base</th><th>new</th><th>change</th><th>95% CI</th><th>verdict</th></tr>
${rows}
</table>
<script>${echartsSource()}</script>
<script type="application/json" id="compare-data">${data}</script>
<script>
(function () {
  'use strict'
  var figures = JSON.parse(document.getElementById('compare-data').textContent).figures
  var chart = echarts.init(document.getElementById('chart-compare'), null, { renderer: 'svg' })
  var number = function (x) { return x === null ? '-' : x.toLocaleString('en-US', { maximumFractionDigits: 2 }) }
  // The 95% interval of each change as a whisker over its bar: a bar whose whisker crosses 0 is no difference.
  var whiskers = figures.map(function (f, i) { return f.ci_pct ? [i, f.ci_pct[0], f.ci_pct[1]] : [i, null, null] })
  chart.setOption({
    animation: false,
    title: { text: 'Change of each figure, new against base (%), with its 95% interval', textStyle: { fontSize: 13 } },
    tooltip: { trigger: 'axis', valueFormatter: function (v) { return v === null ? '-' : number(v) + '%' } },
    grid: { left: 260, right: 40, top: 40, bottom: 40 },
    xAxis: {
      type: 'value', name: 'change (%)', nameLocation: 'middle', nameGap: 24, axisLabel: { formatter: '{value}%' }
    },
    yAxis: { type: 'category', data: figures.map(function (f) { return f.figure }) },
    series: [{
      name: 'change',
      type: 'bar',
      data: figures.map(function (f) {
        var color = f.verdict === 'better' ? '#3a7' : f.verdict === 'worse' ? '#c33' : '#999'
        return { value: f.change_pct, itemStyle: { color: color } }
      })
    }, {
      name: '95% interval',
      type: 'custom',
      data: whiskers,
      encode: { x: [1, 2], y: 0 },
      renderItem: function (params, api) {
        if (api.value(1) === null || isNaN(api.value(1))) return null
        var low = api.coord([api.value(1), api.value(0)])
        var high = api.coord([api.value(2), api.value(0)])
        var cap = api.size([0, 1])[1] * 0.25
        var style = { stroke: '#222', lineWidth: 1.5 }
        return {
          type: 'group',
          children: [
            { type: 'line', shape: { x1: low[0], y1: low[1], x2: high[0], y2: high[1] }, style: style },
            { type: 'line', shape: { x1: low[0], y1: low[1] - cap, x2: low[0], y2: low[1] + cap }, style: style },
            { type: 'line', shape: { x1: high[0], y1: high[1] - cap, x2: high[0], y2: high[1] + cap }, style: style }
          ]
        }
      },
      z: 10
    }]
  })
  // Each figure: base and new side by side, the mean as a bar and every run as a dot.
  figures.forEach(function (f, i) {
    var small = echarts.init(document.getElementById('chart-figure-' + i), null, { renderer: 'svg' })
    var runs = f.base_values.map(function (v) { return ['base', v] })
      .concat(f.new_values.map(function (v) { return ['new', v] }))
    small.setOption({
      animation: false,
      title: { text: f.figure, subtext: f.verdict, textStyle: { fontSize: 12 } },
      tooltip: { trigger: 'item', valueFormatter: number },
      grid: { left: 70, right: 16, top: 56, bottom: 24 },
      xAxis: { type: 'category', data: ['base', 'new'] },
      yAxis: { type: 'value', axisLabel: { formatter: number } },
      series: [
        { type: 'bar', barWidth: '40%', data: [f.base, f.new], itemStyle: { color: '#9ab' } },
        { type: 'scatter', symbolSize: 7, data: runs, itemStyle: { color: '#345' } }
      ]
    })
  })
  document.body.dataset.charts = 1 + figures.length
})()
</script>
</body></html>
`
}

module.exports = { renderCompareHtml }
