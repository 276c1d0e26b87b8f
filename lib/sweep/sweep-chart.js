'use strict'

// The sweep chart: throughput (left axis) and p99 latency (right axis) against the parameter,
// with the sweet spot marked and values that had failures shown apart.

const { renderSvgChart, titleBlock, logAxisRange } = require('../reports/html/svg-chart')

function formatCount (x) {
  if (x >= 1e6) return `${+(x / 1e6).toFixed(2)}M`
  if (x >= 1e3) return `${+(x / 1e3).toFixed(1)}k`
  return String(+x.toFixed(2))
}

/**
 * @param {object} sweep { parameter, unit, title, subtitle, points, analysis } as made by
 *        sweep-report: points with value/throughput/p99Ms/failed, analysis with best/sweetSpot.
 * @returns {string} an SVG document
 */
function renderSweepChart ({ parameter, unit, title, subtitle, points, analysis, maxP99Ms = null }) {
  const labels = points.map((p) => String(p.value))
  // Values that span more than 10x (batch sizes 500 ... 32000) on a logarithmic axis; others in turn.
  const numeric = points.length > 1 && points.every((p) => typeof p.value === 'number' && p.value > 0)
  const logarithmic = numeric && Math.max(...points.map((p) => p.value)) / Math.min(...points.map((p) => p.value)) > 10
  const x = (i) => (logarithmic ? points[i].value : labels[i])
  const sweetIndex = analysis.sweetSpot ? points.indexOf(analysis.sweetSpot) : -1
  const repeated = points.some((p) => p.runs > 1)
  // sys.nodes write rejections (--monitor_interval), drawn only when the cluster rejected any.
  const rejections = points.some((p) => p.clusterWriteRejected > 0)
  const runDots = points.flatMap((p, i) => (p.runThroughputs || []).map((t) => [x(i), t]))
  const failedPoints = points
    .map((p, i) => (p.failed > 0 || p.missing ? [x(i), p.throughput ?? 0, p.failed ?? 'no result'] : null))
    .filter(Boolean)
  const heading = titleBlock(title, subtitle)
  return renderSvgChart({
    animation: false,
    backgroundColor: '#ffffff',
    title: heading.title,
    legend: {
      bottom: 0,
      itemGap: 30,
      data: [
        repeated ? `${unit}/s (median run)` : `${unit}/s`,
        ...(repeated ? ['each run'] : []),
        'p99 latency (ms)',
        // Only the marks drawn: no failures, no such entry.
        ...(failedPoints.length > 0 ? ['failures'] : []),
        ...(rejections ? ['cluster write rejections'] : [])
      ]
    },
    grid: { left: 80, right: rejections ? 150 : 80, top: heading.top, bottom: 80 },
    xAxis: logarithmic
      ? {
          type: 'log',
          name: `${parameter} (log scale)`,
          nameLocation: 'middle',
          nameGap: 30,
          ...logAxisRange(points.map((p) => p.value)),
          // A label and a tick at every value tried, where a log axis would label only the powers of ten.
          axisLabel: { formatter: formatCount, customValues: points.map((p) => p.value) },
          axisTick: { customValues: points.map((p) => p.value) }
        }
      : { type: 'category', name: parameter, nameLocation: 'middle', nameGap: 30, data: labels },
    yAxis: [
      { type: 'value', name: `${unit}/s`, axisLabel: { formatter: formatCount } },
      { type: 'value', name: 'p99 ms', splitLine: { show: false } },
      ...(rejections
        ? [
            {
              type: 'value',
              name: 'rejections',
              position: 'right',
              offset: 70,
              splitLine: { show: false },
              axisLabel: { formatter: formatCount }
            }
          ]
        : [])
    ],
    series: [
      {
        name: repeated ? `${unit}/s (median run)` : `${unit}/s`,
        type: 'line',
        data: points.map((p, i) => [x(i), p.throughput]),
        symbolSize: 8,
        lineStyle: { width: 3 },
        itemStyle: { color: '#1f77b4' },
        markPoint:
          sweetIndex < 0
            ? undefined
            : {
                symbol: 'pin',
                symbolSize: 60,
                itemStyle: { color: '#2ca02c' },
                data: [{ name: 'sweet spot', coord: [x(sweetIndex), points[sweetIndex].throughput], value: 'sweet' }],
                label: { formatter: 'sweet\nspot', fontSize: 10 }
              },
        markLine:
          sweetIndex < 0
            ? undefined
            : {
                symbol: 'none',
                lineStyle: { type: 'dashed', color: '#2ca02c' },
                label: { show: false },
                data: [{ xAxis: x(sweetIndex) }]
              }
      },
      {
        name: 'p99 latency (ms)',
        type: 'line',
        yAxisIndex: 1,
        data: points.map((p, i) => [x(i), p.p99Ms]),
        lineStyle: { type: 'dotted', width: 2 },
        itemStyle: { color: '#ff7f0e' },
        symbol: 'triangle',
        // The limit a value's p99 must keep to be a candidate, drawn where the verdict names it.
        markLine: maxP99Ms === null
          ? undefined
          : {
              symbol: 'none',
              lineStyle: { type: 'dashed', color: '#ff7f0e' },
              label: { formatter: `--max_p99_ms ${maxP99Ms}`, position: 'insideEndTop', color: '#ff7f0e' },
              data: [{ yAxis: maxP99Ms }]
            }
      },
      ...(repeated
        ? [
            {
              name: 'each run',
              type: 'scatter',
              data: runDots,
              symbolSize: 6,
              itemStyle: { color: '#7f7f7f', opacity: 0.7 }
            }
          ]
        : []),
      ...(rejections
        ? [
            {
              name: 'cluster write rejections',
              type: 'bar',
              yAxisIndex: 2,
              barMaxWidth: 24,
              data: points.map((p, i) => [x(i), p.clusterWriteRejected]),
              itemStyle: { color: '#9467bd', opacity: 0.5 }
            }
          ]
        : []),
      {
        name: 'failures',
        type: 'scatter',
        data: failedPoints,
        symbol: 'diamond',
        symbolSize: 16,
        itemStyle: { color: '#d62728' },
        label: {
          show: true,
          position: 'top',
          formatter: (p) => `${typeof p.value[2] === 'number' ? formatCount(p.value[2]) : p.value[2]} failed`
        }
      }
    ]
  })
}

module.exports = { renderSweepChart, formatCount }
