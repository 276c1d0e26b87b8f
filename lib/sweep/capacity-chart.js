'use strict'

// find-capacity's chart: achieved against target rate (left axis) and p99 (right axis) per step,
// the SLO as a line, the capacity marked.

const { renderSvgChart } = require('../reports/html/svg-chart')
const { formatCount } = require('./sweep-chart')

function niceCeiling (x) {
  const step = 10 ** Math.floor(Math.log10(x)) / 2
  return Math.ceil(x / step) * step
}

const ACHIEVED_COLOR = '#1f77b4'
const P99_COLOR = '#ff7f0e'
const MISSED_COLOR = '#c23531'

function renderCapacityChart (capacityRun) {
  return renderSvgChart(capacityChartOption(capacityRun))
}

/** The ECharts option of the capacity chart: the steps at their rates, the SLO, the capacity, the misses. */
function capacityChartOption ({ capacity, unit, slo, steps }) {
  const sorted = [...steps].sort((a, b) => a.rate - b.rate)
  // The rates on a linear axis, so that the steps stand as far apart as their rates are; a tick at each rate tried.
  const rates = sorted.map((s) => s.rate)
  const legend = [`achieved ${unit}/s`, 'p99 ms (from scheduled start)', 'missed the SLO']
  return {
    animation: false,
    backgroundColor: '#ffffff',
    // One colour per series, the legend's and the marks' alike.
    color: [ACHIEVED_COLOR, P99_COLOR, MISSED_COLOR],
    title: {
      text: `Capacity at p99 <= ${slo.p99_ms} ms: ${capacity === null ? 'none' : `${capacity} ${unit}/s`}`,
      left: 'center'
    },
    legend: { bottom: 0, itemGap: 30, data: legend },
    grid: { left: 90, right: 90, top: 70, bottom: 80 },
    xAxis: {
      type: 'value',
      name: `target ${unit}/s (a tick at each step tried)`,
      nameLocation: 'middle',
      nameGap: 34,
      min: 0,
      max: niceCeiling(Math.max(...rates, 1) * 1.05),
      axisLabel: { formatter: formatCount },
      axisTick: { customValues: rates }
    },
    yAxis: [
      { type: 'value', name: `achieved ${unit}/s`, axisLabel: { formatter: formatCount } },
      // The SLO's line is always on the axis, however far below it the p99s stayed.
      {
        type: 'value',
        name: 'p99 ms',
        splitLine: { show: false },
        max: (v) => niceCeiling(Math.max(v.max, slo.p99_ms * 1.1))
      }
    ],
    series: [
      {
        name: `achieved ${unit}/s`,
        type: 'line',
        data: sorted.map((s) => [s.rate, s.achieved]),
        itemStyle: { color: ACHIEVED_COLOR },
        lineStyle: { color: ACHIEVED_COLOR },
        markLine:
          capacity === null || !sorted.some((s) => s.rate === capacity)
            ? undefined
            : { symbol: 'none', label: { formatter: `capacity ${capacity}` }, data: [{ xAxis: capacity }] }
      },
      {
        name: 'p99 ms (from scheduled start)',
        type: 'line',
        yAxisIndex: 1,
        data: sorted.map((s) => [s.rate, s.p99_ms]),
        itemStyle: { color: P99_COLOR },
        lineStyle: { color: P99_COLOR },
        markLine: {
          symbol: 'none',
          lineStyle: { type: 'dashed', color: '#c23531' },
          // Inside the plot, above the line's end: beyond the axis it would be cut at the picture's edge.
          label: { formatter: `SLO ${slo.p99_ms} ms`, position: 'insideEndTop', color: '#c23531' },
          data: [{ yAxis: slo.p99_ms }]
        }
      },
      {
        name: 'missed the SLO',
        type: 'scatter',
        symbol: 'diamond',
        symbolSize: 12,
        z: 5,
        itemStyle: { color: MISSED_COLOR },
        data: sorted.filter((s) => !s.passed).map((s) => [s.rate, s.achieved])
      }
    ]
  }
}

module.exports = { renderCapacityChart, capacityChartOption }
