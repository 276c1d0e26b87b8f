'use strict'

const { renderSvgChart, wrapLines } = require('../../reports/html/svg-chart')
const { fmt } = require('../../base/format')
const { missesSlo } = require('./analysis')

// The grid as a heatmap: the first dimension down, the second across, one panel per combination of any others; each
// cell its throughput, the spread of its runs and its p99, the best and the recommended cell outlined, a cell over the
// --slo outlined dashed and marked, a cell ruled out crossed and grey.

const PANEL_HEIGHT = 330
const WIDTH = 900

/** 12,345 as 12.3k, 1,234,567 as 1.23M: a cell's label must fit its box. */
function short (x) {
  if (typeof x !== 'number') return '-'
  if (x >= 1e6) return `${+(x / 1e6).toPrecision(3)}M`
  if (x >= 1e4) return `${+(x / 1e3).toPrecision(3)}k`
  return fmt(Math.round(x))
}

/** Every combination of the dimensions after the first two: one panel each (one panel for two dimensions). */
function panelsOf (dimensions) {
  let panels = [{}]
  for (const d of dimensions.slice(2)) panels = panels.flatMap((p) => d.values.map((v) => ({ ...p, [d.name]: v })))
  return panels
}

/** The ECharts option of the heatmap (rendered to SVG here; the HTML page shows the same SVG). */
function heatmapOption (grid) {
  const [rows, columns] = grid.vary
  const panels = panelsOf(grid.vary)
  const unit = grid.unit || 'units'
  const candidates = grid.cells.filter((c) => c.excluded === null && c.per_sec > 0).map((c) => c.per_sec)
  const bestId = grid.best && grid.best.id
  const recommendedId = grid.recommended && grid.recommended.id
  const recommendedMark = grid.recommended && grid.recommended.untested ? 'rec. (untested)' : 'rec.'
  const legend = 'outlines: red the best, green the recommended (dashed green: the best is recommended too), dashed ' +
    'orange over --slo, dotted purple busy nodes; ✗ ruled out'
  const subtitle = wrapLines([grid.subtitle, legend].filter(Boolean).join('; ')).join('\n')
  const top = 70 + (subtitle ? subtitle.split('\n').length * 16 : 0)
  const option = {
    animation: false,
    title: { text: `${unit}/s by ${rows.name} and ${columns.name}`, subtext: subtitle, left: 'center',
      subtextStyle: { fontSize: 12, lineHeight: 16 } },
    visualMap: { min: candidates.length ? Math.min(...candidates) : 0, max: candidates.length
      ? Math.max(...candidates) : 1, calculable: false, orient: 'horizontal', left: 'center', bottom: 4,
    text: ['more', 'fewer'], inRange: { color: ['#f7fbff', '#6baed6', '#08306b'] }, seriesIndex:
      panels.map((_, i) => i) },
    grid: [],
    xAxis: [],
    yAxis: [],
    series: []
  }
  const ruledSeries = []
  panels.forEach((fixed, i) => {
    const named = Object.entries(fixed).map(([k, v]) => `${k} ${v}`).join(', ')
    option.grid.push({ left: 150, right: 40, top: top + i * PANEL_HEIGHT, height: PANEL_HEIGHT - 90 })
    option.xAxis.push({ type: 'category', gridIndex: i, data: columns.values.map(String), name: columns.name,
      nameLocation: 'middle', nameGap: 28, splitArea: { show: true } })
    option.yAxis.push({ type: 'category', gridIndex: i, data: rows.values.map(String),
      name: named ? `${rows.name}\n(${named})` : rows.name, nameLocation: 'middle', nameGap: 80,
      splitArea: { show: true } })
    const data = []
    // Ruled-out cells in a series of their own, grey beside the colour scale: their figure, the ✗ and why.
    const ruled = []
    for (const cell of grid.cells) {
      if (!Object.entries(fixed).every(([k, v]) => cell.settings[k] === v)) continue
      const x = columns.values.indexOf(cell.settings[columns.name])
      const y = rows.values.indexOf(cell.settings[rows.name])
      const ruledOut = cell.excluded !== null || !(cell.per_sec > 0)
      // Every mark the cell has, as the legend names them: the best may be the recommended cell too.
      const marks = [cell.id === bestId ? 'best' : null, cell.id === recommendedId ? recommendedMark : null,
        cell.busy_machine ? 'busy' : null].filter(Boolean)
      const mark = marks.length ? ` ${marks.join(', ')}` : ''
      const overSlo = missesSlo(cell, grid.slo_p99_ms)
      const spread = typeof cell.spread_pct === 'number' ? `±${Math.round(cell.spread_pct / 2)}% ` : ''
      const p99 = typeof cell.p99_ms === 'number' ? `p99 ${short(cell.p99_ms)} ms${overSlo ? ' › slo' : ''}` : ''
      if (ruledOut) {
        ruled.push({ value: [x, y, 0], itemStyle: { color: '#ddd' },
          label: { formatter: [`✗ ${short(cell.per_sec)}`, whyShort(cell.excluded)].filter(Boolean).join('\n') } })
        continue
      }
      data.push({
        value: [x, y, cell.per_sec],
        label: { formatter: [`${short(cell.per_sec)}${mark}`, `${spread}${p99}`.trim()].filter(Boolean).join('\n') },
        itemStyle: cell.id === recommendedId ? { borderColor: '#1a7f37', borderWidth: 4,
          ...(cell.id === bestId ? { borderType: [8, 4] } : {}) }
          : cell.id === bestId ? { borderColor: '#b00', borderWidth: 3 }
            : cell.busy_machine ? { borderColor: '#7b3294', borderWidth: 2, borderType: 'dotted' }
            : overSlo ? { borderColor: '#d4700a', borderWidth: 2, borderType: 'dashed' } : {}
      })
    }
    option.series.push({ type: 'heatmap', xAxisIndex: i, yAxisIndex: i, data,
      label: { show: true, fontSize: 11, lineHeight: 14 } })
    if (ruled.length) ruledSeries.push({ type: 'heatmap', xAxisIndex: i, yAxisIndex: i, data: ruled,
      label: { show: true, fontSize: 11, lineHeight: 14, color: '#444' } })
  })
  // After every panel's own series: the colour scale covers those alone; the ruled-out cells have a grey of their own
  // (ECharts draws a heatmap only through a visual map: one that maps every value to that grey, not shown).
  if (ruledSeries.length) {
    option.visualMap = [option.visualMap, { show: false, min: 0, max: 1, inRange: { color: ['#ddd', '#ddd'] },
      seriesIndex: ruledSeries.map((_, k) => panels.length + k) }]
    option.series.push(...ruledSeries)
  }
  return { option, height: top + panels.length * PANEL_HEIGHT + 20 }
}

/** Why a cell was ruled out, as short as a heat map's cell holds: its first clause, cut at 26 characters. */
function whyShort (why) {
  if (!why) return ''
  const first = String(why).split(/[:;(]/)[0].trim()
  return first.length > 26 ? `${first.slice(0, 25)}…` : first
}

function heatmapSvg (grid) {
  const { option, height } = heatmapOption(grid)
  return renderSvgChart(option, { width: WIDTH, height })
}

module.exports = { heatmapSvg, heatmapOption, panelsOf, short, whyShort }
