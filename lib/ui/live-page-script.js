// Runs in the browser, on the live page (--ui): one server-sent-events stream from the tool, the report's charts
// drawn anew each second (window.drawRun, from reports/html/page.js), the rate and the stop sent to the JSON API.
// When the run ends the page turns into the run's HTML report. body[data-ticks] counts the updates drawn.
(function () {
  'use strict'
  var charts = JSON.parse(document.getElementById('live-charts').textContent)
  var run = null
  var source = new EventSource('/events')
  var ended = false

  source.addEventListener('hello', function (e) {
    run = JSON.parse(e.data)
    showControls()
    render()
  })
  source.addEventListener('tick', function (e) {
    var fresh = JSON.parse(e.data)
    if (!run) return
    run.series = run.series.concat(fresh.series)
    run.nodes = run.nodes.concat(fresh.nodes)
    run.events = run.events.concat(fresh.events)
    run.provisional = fresh.provisional
    run.now = fresh.now
    if (fresh.now.groups) run.groups = fresh.now.groups
    if (run.groups.length && !document.querySelector('#rate-controls input')) showControls()
    render()
  })
  source.addEventListener('done', function () {
    ended = true
    source.close()
    say('the run has ended: loading its report')
    window.location.replace('/report')
  })
  // No reconnect loop: a tool that is gone stays gone; the page says so and keeps what it drew.
  source.onerror = function () {
    source.close()
    if (!ended) say('the connection to the tool was lost: the run ended or the tool stopped', true)
  }

  function render () {
    var now = run.now || {}
    document.body.dataset.phase = now.phase || run.phase
    text('phase', now.phase || run.phase)
    text('elapsed', now.elapsed_s === undefined ? '-'
      : now.elapsed_s.toFixed(0) + ' s' + (now.duration_s ? ' / ' + now.duration_s.toFixed(0) + ' s' : ''))
    text('ok', number(now.ok))
    text('rate', number(now.per_sec))
    text('failed', number(now.failed))
    text('in-doubt', number(now.in_doubt))
    var main = (now.groups || run.groups || []).filter(function (g) { return g.role === 'main' })[0]
    text('target', main && main.target_per_sec !== null ? number(main.target_per_sec) : 'as fast as possible')
    // A rate not held is marked, by how much, with the requests that went out late.
    var held = now.held
    document.getElementById('behind-figure').hidden = !(held && held.behind)
    if (held && held.behind) {
      text('behind', number(held.pct) + '% of ' + number(held.target_per_sec) + '/s over the last ' + held.over_s +
        ' s, ' + number(held.late) + ' requests late')
    }
    // The ingest beside a query mix: its rows/s and p99 from the last closed interval.
    var side = now.companion
    document.getElementById('companion-figure').hidden = !side
    if (side) {
      var closed = run.series.length ? run.series[run.series.length - 1][side.name] : null
      var sideGroup = (now.groups || []).filter(function (g) { return g.role === 'companion' })[0]
      text('companion', (closed ? number(closed.ok) + ' ' + side.unit + '/s' : '-') +
        (sideGroup && sideGroup.target_per_sec !== null ? ' of ' + number(sideGroup.target_per_sec) : '') +
        (closed && closed.p99_ms !== null && closed.p99_ms !== undefined ? ', p99 ' + number(closed.p99_ms) + ' ms'
          : '') + (side.failed || side.in_doubt ? ', ' + number(side.failed) + ' failed, ' + number(side.in_doubt) +
          ' in doubt' : ''))
    }
    var share = now.duration_s ? now.elapsed_s / now.duration_s : now.limit ? now.sent / now.limit : 0
    document.getElementById('progress').style.width = Math.min(100, Math.round(share * 100)) + '%'
    if (run.stages) {
      var stage = run.stages.filter(function (s) { return now.elapsed_s >= s.start_s && now.elapsed_s < s.end_s })[0]
      document.getElementById('stage-figure').hidden = false
      text('stage', stage ? stage.stage + ' of ' + run.stages.length + ' (' + stage.planned + ')' : '-')
    }
    // The closed intervals, then the ones still open as they stand: a second or two behind the run, not four.
    var lastClosed = run.series.length ? run.series[run.series.length - 1].t_s : -1
    var series = run.series.concat((run.provisional || []).filter(function (e) { return e.t_s > lastClosed }))
    window.drawRun({
      result: {
        workload: run.workload,
        seconds: now.duration_s || now.elapsed_s || 0,
        queries: run.queries,
        stages: run.stages,
        timeline: {
          interval_s: 1, warmup_s: run.warmup_s || 0, series: series, nodes: run.nodes, events: run.events
        }
      },
      curve: [],
      charts: charts
    })
    document.body.dataset.ticks = Number(document.body.dataset.ticks) + 1
  }

  function showControls () {
    var box = document.getElementById('rate-controls')
    box.textContent = ''
    ;(run.groups || []).filter(function (g) { return g.steerable }).forEach(function (g) {
      var label = document.createElement('label')
      label.textContent = (g.role === 'main' ? 'target ' : 'ingest beside it ') + g.unit + '/s '
      var input = document.createElement('input')
      input.type = 'number'
      input.min = '0'
      input.step = 'any'
      input.id = 'rate-' + g.role
      input.value = g.target_per_sec === null ? '' : String(g.target_per_sec)
      var button = document.createElement('button')
      button.type = 'button'
      button.id = 'apply-' + g.role
      button.textContent = 'Set'
      button.addEventListener('click', function () {
        var typed = input.value.trim()
        if (!/^\d+(\.\d+)?$/.test(typed)) return say('the rate must be a decimal number such as 250 or 12.5', true)
        post('/api/rate', { group: g.role, rate: Number(typed), by: 'page' }, function (answer) {
          say(answer.event.detail)
        })
      })
      label.appendChild(input)
      box.appendChild(label)
      box.appendChild(button)
    })
    document.getElementById('token-label').hidden = !run.token_required
  }

  document.getElementById('stop').addEventListener('click', function () {
    post('/api/stop', { by: 'page' }, function () { say('stopping: the requests in flight finish, then the report') })
  })

  function post (path, body, done) {
    var headers = { 'content-type': 'application/json' }
    var token = document.getElementById('token').value
    if (token) headers.authorization = 'Bearer ' + token
    fetch(path, { method: 'POST', headers: headers, body: JSON.stringify(body) })
      .then(function (res) { return res.json().then(function (answer) { return { res: res, answer: answer } }) })
      .then(function (r) {
        if (r.res.ok) done(r.answer)
        else say(r.answer.error, true)
      })
      .catch(function (error) { say(String(error), true) })
  }

  function say (message, isError) {
    var element = document.getElementById('message')
    element.textContent = message
    element.className = isError ? 'error' : ''
  }

  function text (id, value) {
    document.getElementById(id).textContent = value
  }

  function number (x) {
    return typeof x === 'number' ? x.toLocaleString('en-US', { maximumFractionDigits: 2 }) : '-'
  }
})()
