'use strict'

const http = require('node:http')
const os = require('node:os')
const crypto = require('node:crypto')
const { UsageError } = require('../base/errors')
const { round } = require('../base/format')

// A tick a second: the page is never more than a second behind, and one snapshot serves every open page. npm run
// bench ticks far faster (CRATE_BENCH_UI_TICK_MS, which users never set) to measure a tick's cost above the noise.
const TICK_MS = Number(process.env.CRATE_BENCH_UI_TICK_MS) || 1000
// The steering API takes small JSON bodies only.
const MAX_BODY_BYTES = 4096
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost'])
// A page open when the run ends turns into the report: the server waits this long at most for it to fetch it (a
// fleet's generators, whose page is the fleet's, do not wait: crate-bench fleet sets CRATE_BENCH_UI_LINGER_MS=0).
const LINGER_MS = Number(process.env.CRATE_BENCH_UI_LINGER_MS ?? 10_000)

/**
 * --ui: the live page of a run and its JSON API, served by the master. One server-sent-events stream per page
 * (/events): 'hello' with the whole run so far, 'tick' each second with what is new, 'done' when the report is ready
 * at /report. The API (/api/state, POST /api/rate, POST /api/stop) is what the page uses; scripts may use it too
 * (docs/live-ui.md). On another address than loopback, steering needs the token printed at start.
 */
class LiveServer {
  constructor ({ host, port, view, steeringOf, page, timers = { setInterval, clearInterval } }) {
    this.host = host
    this.requestedPort = port
    this.view = view
    this.steeringOf = steeringOf
    this.page = page
    this.timers = timers
    this.token = LOOPBACK.has(host) ? null : crypto.randomBytes(16).toString('hex')
    this.clients = new Set()
    this.reportHtml = null
    this.reportFetched = false
    this.pagesAtEnd = 0
    this.timer = null
    this.server = http.createServer((req, res) => this.handle(req, res))
    this.server.keepAliveTimeout = 2000
  }

  /** Listens; a port in use is bad input (exit 2), found before the run starts. */
  start () {
    return new Promise((resolve, reject) => {
      this.server.once('error', (error) => {
        reject(error.code === 'EADDRINUSE'
          ? new UsageError(`--ui: port ${this.requestedPort} on ${this.host} is in use (give another, or 0 for any)`)
          : new UsageError(`--ui: cannot listen on ${this.host}:${this.requestedPort}: ${error.message}`))
      })
      this.server.listen(this.requestedPort, this.host, () => {
        this.port = this.server.address().port
        this.timer = this.timers.setInterval(() => this.tick(), TICK_MS)
        if (this.timer.unref) this.timer.unref()
        resolve(this)
      })
    })
  }

  get url () {
    const host = this.host.includes(':') ? `[${this.host}]` : this.host
    return `http://${host}:${this.port}/`
  }

  /** Each second while a page is open; and before an API answer, which must be as new as a page. */
  tick ({ evenWithoutPages = false } = {}) {
    if ((this.clients.size === 0 && !evenWithoutPages) || this.reportHtml !== null) return
    this.broadcast('tick', this.view.tick())
  }

  /** The run is reported: the page turns into its HTML report. */
  finish (reportHtml) {
    if (this.reportHtml !== null) return
    this.view.phase = 'done'
    this.reportHtml = reportHtml
    this.pagesAtEnd = this.clients.size
    if (this.clients.size > 0) this.broadcast('tick', this.view.tick())
    this.broadcast('done', { report: '/report' })
    for (const res of this.clients) res.end()
    this.clients.clear()
  }

  /** No more waiting for a page to fetch its report (Ctrl-C during the linger). */
  endLinger () {
    this.lingerEnded = true
  }

  /**
   * Closes the server. A page that is open when the run ends is given up to `lingerMs` to fetch the report it turns
   * into; with none open, or once it has, the process does not wait.
   */
  async close ({ lingerMs = LINGER_MS, sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms)) } = {}) {
    if (this.timer) this.timers.clearInterval(this.timer)
    const waited = Date.now()
    while (this.pagesAtEnd > 0 && !this.reportFetched && !this.lingerEnded && Date.now() - waited < lingerMs) {
      await sleep(50)
    }
    for (const res of this.clients) res.end()
    await new Promise((resolve) => {
      this.server.close(() => resolve())
      this.server.closeAllConnections()
    })
  }

  handle (req, res) {
    // A name that resolves to this address (DNS rebinding) must not read or steer the run: only the page's own
    // addresses are answered, whatever the Origin says.
    if (!this.allowedHosts().has(String(req.headers.host || '').toLowerCase())) {
      return this.json(res, 403, { error: `Host ${JSON.stringify(String(req.headers.host || ''))} is not an address ` +
        `of this page (http://127.0.0.1:${this.port}/ or the --ui_host address)` })
    }
    const url = new URL(req.url, 'http://localhost')
    const route = `${req.method} ${url.pathname}`
    try {
      switch (route) {
        case 'GET /': return this.send(res, 200, 'text/html; charset=utf-8', this.page())
        case 'GET /events': return this.openStream(req, res)
        case 'GET /report': return this.sendReport(res, url.searchParams.has('download'))
        case 'GET /api/state':
          this.tick({ evenWithoutPages: true })
          return this.json(res, 200, { ...this.view.whole(), token_required: this.token !== null })
        case 'POST /api/rate': return this.steer(req, res, (steering, body) => steering.setRate(body.group ?? 'main',
          body.rate, body.by === 'page' ? 'page' : 'api'))
        case 'POST /api/stop': return this.steer(req, res, (steering, body) => steering.stop(body.by === 'page'
          ? 'page' : 'api'))
        default:
          if (['/', '/events', '/report', '/api/state', '/api/rate', '/api/stop'].includes(url.pathname)) {
            return this.json(res, 405, { error: `${req.method} is not allowed on ${url.pathname}` })
          }
          return this.json(res, 404, { error: `no such page: ${url.pathname}` })
      }
    } catch (error) {
      return this.json(res, 500, { error: error.message })
    }
  }

  /** Host headers this page answers: the loopback names and the listening address, with the port. */
  allowedHosts () {
    if (this.hosts && this.hosts.port === this.port) return this.hosts
    const names = new Set(['127.0.0.1', 'localhost', '[::1]', this.host.includes(':') ? `[${this.host}]` : this.host])
    // Listening on every address: each of this machine's, and its name.
    if (this.host === '0.0.0.0' || this.host === '::') {
      names.add(os.hostname())
      for (const list of Object.values(os.networkInterfaces())) {
        for (const a of list || []) names.add(a.family === 'IPv6' ? `[${a.address}]` : a.address)
      }
    }
    this.hosts = new Set([...names].map((name) => `${name.toLowerCase()}:${this.port}`))
    this.hosts.port = this.port
    return this.hosts
  }

  openStream (req, res) {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive'
    })
    if (this.reportHtml !== null) {
      this.write(res, 'done', { report: '/report' })
      return res.end()
    }
    this.write(res, 'hello', { ...this.view.whole(), token_required: this.token !== null })
    this.clients.add(res)
    req.on('close', () => this.clients.delete(res))
  }

  sendReport (res, download) {
    if (this.reportHtml === null) return this.json(res, 404, { error: 'the run has not ended: no report yet' })
    this.reportFetched = true
    const headers = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }
    const file = `crate-bench-${this.view.options.runId}.html`
    if (download) headers['content-disposition'] = `attachment; filename="${file}"`
    res.writeHead(200, headers)
    // The page a browser shows gets a link that saves the report; what the link saves is the report as --report
    // writes it.
    res.end(download ? this.reportHtml : this.reportHtml.replace('<h1>', `<p><a id="save-report" ` +
      `href="/report?download" download="${file}">Save this report</a> (the page stays until you close it)</p><h1>`))
  }

  /**
   * A steering request: JSON (a cross-site form cannot send it without a preflight this server never allows),
   * from this page's origin when the browser says where it comes from, with the token where one is needed.
   */
  steer (req, res, act) {
    const type = String(req.headers['content-type'] || '')
    if (!type.startsWith('application/json')) {
      return this.json(res, 415, { error: 'send JSON (content-type: application/json)' })
    }
    const origin = req.headers.origin
    if (origin && origin !== `http://${req.headers.host}`) {
      return this.json(res, 403, { error: `requests from ${origin} may not steer this run` })
    }
    if (this.token !== null && !sameToken(req.headers.authorization, this.token)) {
      return this.json(res, 401, { error: 'this run needs the token printed at its start (authorization: Bearer …)' })
    }
    readBody(req, (error, text) => {
      if (error) return this.json(res, error.status, { error: error.message })
      let body
      try {
        body = text.trim() === '' ? {} : JSON.parse(text)
      } catch {
        return this.json(res, 400, { error: 'the body is not JSON' })
      }
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        return this.json(res, 400, { error: 'the body must be a JSON object' })
      }
      // A fleet page gives up on a generator's answer after a while and says the change was not taken there; a
      // generator that was paused reads the request only when it resumes, and must not take it then.
      if (Number.isFinite(body.not_after) && Date.now() > body.not_after) {
        return this.json(res, 409, { error: `the change arrived ${round((Date.now() - body.not_after) / 1000, 1)} s ` +
          'after its sender gave up waiting for it: not taken' })
      }
      const steering = this.steeringOf()
      if (!steering) return this.json(res, 409, { error: 'the load has not started yet' })
      if (this.reportHtml !== null) return this.json(res, 409, { error: 'the run has ended' })
      // A run's steering answers at once; a fleet's once every generator has.
      Promise.resolve(act(steering, body)).then((answer) => {
        if (!answer.ok) return this.json(res, answer.status, { error: answer.error })
        this.tick()
        return this.json(res, 200, answer)
      }, (error) => this.json(res, 500, { error: error.message }))
    })
  }

  broadcast (event, data) {
    for (const res of this.clients) this.write(res, event, data)
  }

  write (res, event, data) {
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
  }

  send (res, status, type, body) {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' })
    res.end(body)
  }

  json (res, status, value) {
    this.send(res, status, 'application/json', `${JSON.stringify(value)}\n`)
  }
}

function sameToken (header, token) {
  const given = Buffer.from(String(header || '').replace(/^Bearer\s+/i, ''))
  const wanted = Buffer.from(token)
  return given.length === wanted.length && crypto.timingSafeEqual(given, wanted)
}

function readBody (req, done) {
  const chunks = []
  let bytes = 0
  let over = false
  req.on('data', (chunk) => {
    bytes += chunk.length
    if (bytes > MAX_BODY_BYTES) over = true
    else chunks.push(chunk)
  })
  req.on('end', () => {
    if (over) return done(Object.assign(new Error(`the body is over ${MAX_BODY_BYTES} bytes`), { status: 413 }))
    done(null, Buffer.concat(chunks).toString('utf8'))
  })
  req.on('error', (error) => done(Object.assign(error, { status: 400 })))
}

/**
 * The live page of a run or a fleet, served: the page rendered now (ECharts is a megabyte to read and inline,
 * start-up work that must not land in the load's CPU), the server listening, its address (and token) printed.
 */
async function serveLivePage ({ host, port, view, steeringOf, workload, options, log, about, steered }) {
  const { renderLivePage } = require('./live-page')
  // Encoded once: each page opened during the load is then a write of bytes, not a megabyte encoded again.
  const page = Buffer.from(renderLivePage({ workload, options }))
  const server = await new LiveServer({ host, port, view, steeringOf, page: () => page }).start()
  log(`  live:     ${server.url} (${about})`)
  if (server.token) log(`  ui token: ${server.token} (to steer ${steered} on ${host}: the page asks)`)
  return server
}

module.exports = { LiveServer, serveLivePage, TICK_MS }
