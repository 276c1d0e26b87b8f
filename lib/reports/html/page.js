// Runs in the browser, inlined into the report after ECharts: draws every chart from the run's
// data. Counts the charts drawn in body[data-charts]; errors are counted by the page's first script.
/* global echarts */
(function () {
  'use strict'
  var data = JSON.parse(document.getElementById('run-data').textContent)
  var result = data.result
  var timeline = result.timeline || { series: [], nodes: [], events: [] }
  var series = timeline.series
  var groups = []
  series.forEach(function (entry) {
    Object.keys(entry).forEach(function (key) { if (key !== 't_s' && groups.indexOf(key) < 0) groups.push(key) })
  })
  var main = result.workload
  var unit = main === 'ingest' ? 'rows' : 'queries'

  function point (entry, group, field) {
    return [entry.t_s, entry[group] ? entry[group][field] : null]
  }

  // Host events, rejections and an interruption, as vertical lines on every chart over time.
  var eventLines = {
    silent: true,
    symbol: 'none',
    lineStyle: { color: '#c23531', type: 'dashed' },
    label: { formatter: '{b}', position: 'insideEndTop', fontSize: 10 },
    data: (timeline.events || []).map(function (e) {
      return { name: e.kind.replace(/_/g, ' ') + (e.host ? ' ' + e.host : ''), xAxis: e.at_s }
    })
  }

  function timeChart (id, yName, lines, extra) {
    var option = {
      animation: false,
      title: { text: document.getElementById('chart-' + id).dataset.title, textStyle: { fontSize: 13 } },
      tooltip: { trigger: 'axis' },
      legend: { bottom: 0, type: 'scroll' },
      grid: { left: 60, right: 24, top: 40, bottom: 48 },
      xAxis: { type: 'value', name: 's', min: 0 },
      yAxis: { type: 'value', name: yName },
      series: lines.map(function (line, i) {
        var s = {
          name: line.name,
          type: line.type || 'line',
          showSymbol: false,
          data: line.data,
          stack: line.stack,
          yAxisIndex: line.axis || 0
        }
        if (i === 0) s.markLine = eventLines
        return s
      })
    }
    if (lines.length === 0) option.title.subtext = 'no data for this run'
    draw(id, Object.assign(option, extra || {}))
  }

  function draw (id, option) {
    var chart = echarts.init(document.getElementById('chart-' + id), null, { renderer: 'svg' })
    chart.setOption(option)
    document.body.dataset.charts = Number(document.body.dataset.charts) + 1
  }

  // A query mix under an ingest: queries/s and rows/s differ by orders of magnitude, one axis each.
  var unitOf = function (g) {
    return g === 'ingest' ? 'rows' : 'queries'
  }
  timeChart(
    'throughput',
    unit + '/s',
    groups.map(function (g) {
      return {
        name: g + ' ' + unitOf(g) + '/s',
        axis: g === main ? 0 : 1,
        data: series.map(function (e) {
          return point(e, g, 'per_sec')
        })
      }
    }),
    groups.length > 1
      ? {
          yAxis: [
            { type: 'value', name: unit + '/s' },
            {
              type: 'value',
              name:
                unitOf(
                  groups.filter(function (g) {
                    return g !== main
                  })[0]
                ) + '/s'
            }
          ]
        }
      : null
  )
  timeChart(
    'latency',
    'ms',
    ['p50_ms', 'p90_ms', 'p99_ms', 'max_ms'].map(function (field) {
      return {
        name: main + ' ' + field.replace('_ms', ''),
        data: series.map(function (e) {
          return point(e, main, field)
        })
      }
    })
  )
  var failureLines = []
  groups.forEach(function (g) {
    var prefix = groups.length > 1 ? g + ' ' : ''
    failureLines.push({
      name: prefix + unitOf(g) + ' failed',
      type: 'bar',
      stack: g,
      axis: g === main ? 0 : 1,
      data: series.map(function (e) {
        return point(e, g, 'failed')
      })
    })
    failureLines.push({
      name: prefix + unitOf(g) + ' in doubt',
      type: 'bar',
      stack: g,
      axis: g === main ? 0 : 1,
      data: series.map(function (e) {
        return point(e, g, 'in_doubt')
      })
    })
  })
  timeChart(
    'failures',
    unit,
    failureLines,
    groups.length > 1
      ? {
          yAxis: [
            { type: 'value', name: unit },
            { type: 'value', name: 'rows' }
          ]
        }
      : null
  )
  if (data.charts.indexOf('query_latency') >= 0) {
    var names = (result.queries || []).map(function (q) {
      return q.name
    })
    timeChart(
      'query_latency',
      'ms',
      names.map(function (name) {
        return {
          name: name,
          data: series.map(function (e) {
            return [e.t_s, e[main] && e[main].labels[name] ? e[main].labels[name].p99_ms : null]
          })
        }
      })
    )
  }

  var nodeNames = []
  timeline.nodes.forEach(function (n) { if (nodeNames.indexOf(n.name) < 0) nodeNames.push(n.name) })
  function nodeChart (id, field, yName) {
    timeChart(
      id,
      yName,
      nodeNames.map(function (name) {
        return {
          name: name,
          data: timeline.nodes
            .filter(function (n) {
              return n.name === name
            })
            .map(function (n) {
              return [n.t_s, n[field]]
            })
        }
      }),
      nodeNames.length ? { xAxis: { type: 'value', name: 's' } } : null
    )
  }
  nodeChart('node_cpu', 'process_cpu_pct', '%')
  nodeChart('node_heap', 'heap_used_pct', '%')
  nodeChart('node_write_queue', 'write_queue', 'tasks')
  nodeChart('node_rejections', 'write_rejected', 'rejected')

  draw('distribution', {
    animation: false,
    title: {
      text: document.getElementById('chart-distribution').dataset.title,
      textStyle: { fontSize: 13 },
      subtext: data.curve.length ? '' : 'no latencies recorded'
    },
    tooltip: { trigger: 'axis' },
    grid: { left: 60, right: 24, top: 40, bottom: 48 },
    xAxis: { type: 'category', name: 'percentile', data: data.curve.map(function (p) { return String(p.percentile) }) },
    yAxis: { type: 'value', name: 'ms' },
    series: [{ name: 'latency', type: 'line', step: 'end', data: data.curve.map(function (p) { return p.ms }) }]
  })
})()
