'use strict'

// find-capacity's chart: achieved against target rate (left axis) and p99 (right axis) per step,
// the SLO as a line, the capacity marked.

const { renderSvgChart } = require('./svg-chart')
const { formatCount } = require('./sweep-chart')

function niceCeiling (x) {
  const step = 10 ** Math.floor(Math.log10(x)) / 2
  return Math.ceil(x / step) * step
}

function renderCapacityChart ({ capacity, unit, slo, steps }) {
  const sorted = [...steps].sort((a, b) => a.rate - b.rate)
  // The steps tried, one tick each: doubling and then halving the gap leaves no axis range without a step, and
  // every rate tried is read off its own label.
  const label = (rate) => String(rate)
  const legend = [`achieved ${unit}/s`, 'p99 ms (from scheduled start)', 'missed the SLO']
  return renderSvgChart({
    animation: false,
    backgroundColor: '#ffffff',
    title: {
      text: `Capacity at p99 <= ${slo.p99_ms} ms: ${capacity === null ? 'none' : `${capacity} ${unit}/s`}`,
      left: 'center'
    },
    legend: { bottom: 0, itemGap: 30, data: legend },
    grid: { left: 90, right: 90, top: 70, bottom: 80 },
    xAxis: {
      type: 'category',
      name: `target ${unit}/s (the steps tried)`,
      nameLocation: 'middle',
      nameGap: 34,
      data: sorted.map((s) => label(s.rate)),
      axisLabel: { interval: 0, formatter: (v) => formatCount(Number(v)), rotate: sorted.length > 12 ? 45 : 0 }
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
        data: sorted.map((s) => [label(s.rate), s.achieved]),
        markLine:
          capacity === null || !sorted.some((s) => s.rate === capacity)
            ? undefined
            : { symbol: 'none', label: { formatter: `capacity ${capacity}` }, data: [{ xAxis: label(capacity) }] }
      },
      {
        name: 'p99 ms (from scheduled start)',
        type: 'line',
        yAxisIndex: 1,
        data: sorted.map((s) => [label(s.rate), s.p99_ms]),
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
        itemStyle: { color: '#c23531' },
        data: sorted.filter((s) => !s.passed).map((s) => [label(s.rate), s.achieved])
      }
    ]
  })
}

module.exports = { renderCapacityChart }
