// Runs in the browser, inlined into the report after ECharts: draws every chart from the run's
// data. Counts the charts drawn in body[data-charts]; errors are counted by the page's first script.
// The live page (--ui) calls drawRun again with each second's data: the charts are drawn anew in place.
/* global echarts */
(function () {
  'use strict'
  window.drawRun = drawRun
  var embedded = document.getElementById('run-data')
  if (embedded) drawRun(JSON.parse(embedded.textContent))

  function drawRun (data) {
    var result = data.result
    var timeline = result.timeline || { series: [], nodes: [], events: [] }
    var series = timeline.series
    var groups = []
    series.forEach(function (entry) {
      // A group is an object (ingest, analytical); t_s and partial_s are numbers of the entry.
      Object.keys(entry).forEach(function (key) {
        if (entry[key] && typeof entry[key] === 'object' && groups.indexOf(key) < 0) groups.push(key)
      })
    })
    var main = result.workload
    var unit = main === 'ingest' ? 'rows' : 'queries'
    // Every chart over time spans the same seconds, from the start of the load (warm-up included) to the end of its
    // timeline, so that they line up; a node sample taken before the start is the baseline and is not drawn.
    var warmupS = timeline.warmup_s || 0
    var lastEntry = series.length ? series[series.length - 1] : null
    var timelineEnd = lastEntry
      ? lastEntry.t_s + (lastEntry.partial_s || lastEntry.interval_s || timeline.interval_s || 1) : 0
    var xEnd = Math.max(1, Math.ceil(Math.max(timelineEnd, warmupS + (result.seconds || 0)) * 10) / 10)
    // Labels that would overlap (the last interval's and the axis end's, 40 and 41) are left out, not drawn over.
    var xAxis = { type: 'value', name: 'time (s)', nameLocation: 'middle', nameGap: 24, min: 0, max: xEnd,
      axisLabel: { hideOverlap: true } }

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
        var name = e.kind === 'rate_change' ? e.what.replace(/_/g, ' ') + ' ' + e.from + '\u2192' + e.to
          : e.kind.replace(/_/g, ' ') + (e.host ? ' ' + e.host : '')
        return { name: name, xAxis: e.at_s }
      })
    }

    // The warm-up, shaded: drawn because the cluster served it, kept out of every figure of the report.
    var warmupArea = {
      silent: true,
      itemStyle: { color: 'rgba(128, 128, 128, 0.12)' },
      label: { position: 'insideTop', fontSize: 10, color: '#666' },
      data: [[{ name: 'warm-up', xAxis: 0 }, { xAxis: warmupS }]]
    }

    // The stages of --stages, shaded in turn and named by their target, after the warm-up's shade.
    var shadedAreas = {
      silent: true,
      label: { position: 'insideTop', fontSize: 10, color: '#666' },
      data: (warmupS > 0 ? warmupArea.data.map(function (pair) {
        return [Object.assign({ itemStyle: warmupArea.itemStyle }, pair[0]), pair[1]]
      }) : []).concat((result.stages || []).map(function (stage, i) {
        var shade = i % 2 ? 'rgba(84, 112, 198, 0.05)' : 'rgba(84, 112, 198, 0.12)'
        var name = stage.planned.replace(/^[^:]*:/, '') + '/s'
        return [{ name: name, xAxis: stage.start_s, itemStyle: { color: shade } }, { xAxis: stage.end_s }]
      })).concat(result.drain_seconds > 0 && typeof result.sending_seconds === 'number' ? [[{
        // After the last request went out, the answers still in flight: a rate drawn there is no load offered.
        // Its name at the bottom: a stop or an event at the same second names itself at the top.
        name: 'drain', xAxis: warmupS + result.sending_seconds, itemStyle: { color: 'rgba(128, 128, 128, 0.08)' },
        label: { position: 'insideBottom' }
      }, { xAxis: warmupS + result.seconds }]] : []).concat(result.drift ? [['first', result.drift.first_window_s],
        ['last', result.drift.last_window_s]]
        .map(function (w) {
          // The windows the report's "over the run" line compares.
          var shade = { color: 'rgba(145, 204, 117, 0.16)' }
          return [{ name: w[0] + ' 10%', xAxis: w[1][0], itemStyle: shade }, { xAxis: w[1][1] }]
        }) : [])
    }

    // Axis names run along their axis, away from the title above and the ticks at the corners.
    // Room above the highest value: a line at the axis maximum would lie on the chart's frame.
    function yAxisNamed (name) {
      return { type: 'value', name: name, nameLocation: 'middle', nameRotate: 90, nameGap: 44, boundaryGap: [0, '8%'] }
    }

    // Every legend item stays visible (no pages that hide names): the legend wraps, and the chart grows by a line
    // for each line of legend, estimated from the names' length at the legend's 12 px font.
    function legendLines (names, width) {
      var lines = 1
      var used = 0
      names.forEach(function (name) {
        var item = 35 + 6.5 * String(name).length
        if (used > 0 && used + item > width - 20) {
          lines++
          used = 0
        }
        used += item
      })
      return lines
    }

    function timeChart (id, yName, lines, extra) {
      var element = document.getElementById('chart-' + id)
      var legendRows = lines.length ? legendLines(lines.map(function (l) { return l.name }), element.clientWidth) : 0
      // Drawn again every second on the live page: the height grows from the chart's own, once.
      var baseHeight = Number(element.dataset.baseHeight || element.clientHeight)
      element.dataset.baseHeight = baseHeight
      var height = baseHeight + Math.max(0, legendRows - 1) * 20
      if (element.clientHeight !== height) {
        element.style.height = height + 'px'
        var sized = echarts.getInstanceByDom(element)
        if (sized) sized.resize()
      }
      var twoAxes = extra && Array.isArray(extra.yAxis)
      var option = {
        animation: false,
        title: { text: element.dataset.title, textStyle: { fontSize: 13 }, left: 'center' },
        tooltip: { trigger: 'axis' },
        legend: { bottom: 0, type: 'plain' },
        grid: { left: 64, right: twoAxes ? 64 : 24, top: 40, bottom: 44 + legendRows * 20 },
        xAxis: Object.assign({}, xAxis),
        yAxis: yAxisNamed(yName),
        series: lines.map(function (line, i) {
          var s = {
            name: line.name,
            type: 'line',
            showSymbol: false,
            step: line.step,
            areaStyle: line.area ? {} : undefined,
            data: line.data,
            stack: line.stack,
            yAxisIndex: line.axis || 0
          }
          if (line.dashed) s.lineStyle = { type: 'dashed' }
          if (i === 0) s.markLine = eventLines
          if (i === 0 && shadedAreas.data.length > 0) s.markArea = shadedAreas
          return s
        })
      }
      // Zoom into any part of the run (wheel or drag on a chart, or the slider): every chart over time follows, and
      // a chart drawn again (the live page, each second) keeps the part it showed.
      var shown = echarts.getInstanceByDom(element)
      var zoomed = shown && shown.getOption().dataZoom ? shown.getOption().dataZoom[0] : null
      option.dataZoom = [{ type: 'inside', xAxisIndex: 0, filterMode: 'none',
        start: zoomed ? zoomed.start : 0, end: zoomed ? zoomed.end : 100 }]
      if (lines.length === 0) option.title.subtext = 'no data for this run'
      if (twoAxes) option.yAxis = extra.yAxis.map(function (axis) { return yAxisNamed(axis.name) })
      draw(id, option)
    }

    function draw (id, option) {
      var element = document.getElementById('chart-' + id)
      var chart = echarts.getInstanceByDom(element)
      if (!chart) {
        chart = echarts.init(element, null, { renderer: 'svg' })
        document.body.dataset.charts = Number(document.body.dataset.charts) + 1
        if (option.dataZoom) {
          chart.group = 'over-time'
          echarts.connect('over-time')
        }
      }
      chart.setOption(option, true)
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
    // In a mixed run the companion's latency is drawn too (p50 and p99, dashed), on the same milliseconds.
    var latencyLines = []
    groups.forEach(function (g) {
      var fields = g === main ? ['p50_ms', 'p90_ms', 'p99_ms', 'max_ms'] : ['p50_ms', 'p99_ms']
      fields.forEach(function (field) {
        latencyLines.push({
          name: g + ' ' + field.replace('_ms', ''),
          dashed: g !== main,
          data: series.map(function (e) {
            return point(e, g, field)
          })
        })
      })
    })
    timeChart('latency', 'ms', latencyLines)
    // Per group, one stacked area for each outcome that is not ok: [field of the timeline, words of the legend].
    var notOk = [['failed', 'failed'], ['in_doubt', 'in doubt']]
    var failureLines = []
    groups.forEach(function (g) {
      var prefix = groups.length > 1 ? g + ' ' : ''
      notOk.forEach(function (outcome) {
        failureLines.push({
          name: prefix + unitOf(g) + ' ' + outcome[1],
          step: 'end',
          area: true,
          stack: g,
          axis: g === main ? 0 : 1,
          data: series.map(function (e) {
            return point(e, g, outcome[0])
          })
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
                return n.name === name && n.t_s >= 0
              })
              .map(function (n) {
                return [n.t_s, n[field]]
              })
          }
        })
      )
    }
    nodeChart('node_cpu', 'process_cpu_pct', '%')
    nodeChart('node_heap', 'heap_used_pct', '%')
    nodeChart('node_write_queue', 'write_queue', 'tasks')
    nodeChart('node_rejections', 'write_rejected', 'rejected')

    if (data.charts.indexOf('load_generator') >= 0) {
      var minutes = timeline.client.filter(function (m) { return m.t_s >= 0 })
      var column = function (field) { return minutes.map(function (m) { return [m.t_s, m[field]] }) }
      timeChart('load_generator', 'MB', [
        { name: 'RSS (MB)', step: 'end', data: column('rss_mb') },
        { name: 'heap (MB)', step: 'end', data: column('heap_mb') },
        { name: 'outside the heap (MB)', step: 'end', data: column('external_mb') },
        { name: 'CPU (% of a core)', step: 'end', dashed: true, axis: 1, data: column('cpu_pct') },
        { name: 'event-loop delay p99 (ms)', step: 'end', dashed: true, axis: 1, data: column('loop_delay_p99_ms') }
      ], { yAxis: [{ name: 'MB' }, { name: '% / ms' }] })
    }

    if (data.charts.indexOf('distribution') >= 0) draw('distribution', {
      animation: false,
      title: {
        text: document.getElementById('chart-distribution').dataset.title,
        textStyle: { fontSize: 13 },
        subtext: data.curve.length ? '' : 'no latencies recorded'
      },
      tooltip: { trigger: 'axis' },
      grid: { left: 64, right: 24, top: 40, bottom: 48 },
      xAxis: {
        type: 'category',
        name: 'percentile',
        nameLocation: 'middle',
        nameGap: 24,
        data: data.curve.map(function (p) { return String(p.percentile) })
      },
      yAxis: yAxisNamed('ms'),
      series: [{ name: 'latency', type: 'line', step: 'end', data: data.curve.map(function (p) { return p.ms }) }]
    })
  }
})()
