'use strict'

// find-capacity's chart: achieved against target rate (left axis) and p99 (right axis) per step,
// the SLO as a line, the capacity marked.

const { renderSvgChart } = require('./svg-chart')

function renderCapacityChart ({ capacity, unit, slo, steps }) {
  const sorted = [...steps].sort((a, b) => a.rate - b.rate)
  const rates = sorted.map((s) => s.rate)
  // Doubling spans orders of magnitude: a logarithmic axis keeps the first steps apart.
  const logarithmic = rates.length > 1 && rates[rates.length - 1] / rates[0] > 10
  return renderSvgChart({
    animation: false,
    backgroundColor: '#ffffff',
    title: {
      text: `Capacity at p99 <= ${slo.p99_ms} ms: ${capacity === null ? 'none' : `${capacity} ${unit}/s`}`,
      left: 'center'
    },
    legend: { bottom: 0, data: [`achieved ${unit}/s`, 'p99 ms (from scheduled start)'] },
    grid: { left: 80, right: 80, top: 60, bottom: 70 },
    xAxis: { type: logarithmic ? 'log' : 'value', name: `target ${unit}/s`, nameLocation: 'middle', nameGap: 30 },
    yAxis: [{ type: 'value', name: `achieved ${unit}/s` }, { type: 'value', name: 'p99 ms' }],
    series: [
      {
        name: `achieved ${unit}/s`,
        type: 'line',
        data: sorted.map((s) => [s.rate, s.achieved]),
        markLine:
          capacity === null
            ? undefined
            : { symbol: 'none', label: { formatter: `capacity ${capacity}` }, data: [{ xAxis: capacity }] }
      },
      {
        name: 'p99 ms (from scheduled start)',
        type: 'line',
        yAxisIndex: 1,
        data: sorted.map((s) => [s.rate, s.p99_ms]),
        markLine: {
          symbol: 'none',
          lineStyle: { type: 'dashed', color: '#c23531' },
          label: { formatter: `SLO ${slo.p99_ms} ms` },
          data: [{ yAxis: slo.p99_ms }]
        }
      },
      {
        name: 'missed',
        type: 'scatter',
        symbol: 'diamond',
        symbolSize: 12,
        itemStyle: { color: '#c23531' },
        data: sorted.filter((s) => !s.passed).map((s) => [s.rate, s.achieved])
      }
    ]
  })
}

module.exports = { renderCapacityChart }
