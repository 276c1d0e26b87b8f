'use strict'

const http = require('node:http')
const { EventEmitter } = require('node:events')
const client = require('prom-client')
const { FatalError } = require('../base/errors')
const { BUCKETS_S, bucketCounts } = require('./buckets')

// Outcomes as the report counts them: acknowledged, failed, in doubt (sent, no answer).
const OUTCOMES = ['ok', 'failed', 'in_doubt']
const PHASES = ['warmup', 'measure', 'drain']

/**
 * The master's /metrics. Every value is read at the scrape from the run's sources (the totals the workers' deltas
 * add up to, the hosts, the phase), so nothing is counted twice and nothing lags a report; after the run, from the
 * result itself, so that the counters equal the report's totals exactly. Every metric carries run_id and generator.
 */
class MetricsExporter extends EventEmitter {
  constructor ({ host = '127.0.0.1', port, runId, generator, workload, toolVersion, model, rates = [] }) {
    super()
    this.host = host
    this.port = port
    this.sources = null
    this.final = null
    // [{ workload, rate }]: the queries' --rate and the companion ingest's --ingest_rate, each under its workload.
    this.rates = rates
    const base = { run_id: runId, generator: String(generator) }
    this.base = base
    this.workload = workload
    const registry = new client.Registry()
    this.registry = registry
    const labelled = (names) => ['run_id', 'generator', ...names]
    const self = this
    const metric = (Type, name, help, labelNames, collect) =>
      new Type({ name, help, labelNames: labelled(labelNames), registers: [registry], collect () { collect(this) } })
    metric(client.Gauge, 'cratebench_run_info', 'the run: tool version, workload, data model (always 1)',
      ['tool_version', 'workload', 'model'], (g) => {
        g.reset()
        g.set({ ...base, tool_version: toolVersion, workload, model: model || '' }, 1)
      })
    metric(client.Counter, 'cratebench_rows_total', 'rows by outcome: acknowledged, failed, in doubt (ingest)',
      ['table', 'outcome'], (c) => {
        c.reset()
        for (const row of self.rowCounts()) c.inc({ ...base, table: row.table, outcome: row.outcome }, row.value)
      })
    metric(client.Counter, 'cratebench_requests_total', 'requests answered, by outcome',
      ['workload', 'query', 'outcome'], (c) => {
        c.reset()
        for (const r of self.requestCounts()) {
          c.inc({ ...base, workload: r.workload, query: r.query, outcome: r.outcome }, r.value)
        }
      })
    new client.Histogram({
      name: 'cratebench_request_duration_seconds',
      help: 'request latency from the send (or the scheduled start with --rate) to the answer: the live view; the ' +
        "report's HDR percentiles are the exact figures",
      labelNames: labelled(['workload', 'query']),
      buckets: BUCKETS_S,
      registers: [registry],
      collect () {
        this.reset()
        for (const { labels, histogram } of self.histograms()) {
          const { counts, count, sum } = bucketCounts(histogram)
          this.zero({ ...base, ...labels })
          const entry = Object.values(this.hashMap).find((v) => v.labels.workload === labels.workload &&
            v.labels.query === labels.query)
          BUCKETS_S.forEach((bound, i) => { entry.bucketValues[bound] = counts[i] })
          entry.count = count
          entry.sum = sum
        }
      }
    })
    metric(client.Gauge, 'cratebench_in_flight', 'requests sent and not yet answered', [], (g) => {
      g.reset()
      g.set(base, self.sources ? self.sources.inFlight() : 0)
    })
    metric(client.Gauge, 'cratebench_target_rate',
      'the target rate in units per second, per workload (--rate; --ingest_rate for the ingest beside queries)',
      ['workload'], (g) => {
        g.reset()
        for (const { workload: name, rate } of self.rates) g.set({ ...base, workload: name }, rate)
      })
    metric(client.Counter, 'cratebench_late_requests_total', 'requests sent later than their --rate timetable said',
      ['workload'], (c) => {
        c.reset()
        for (const r of self.pacingCounts()) c.inc({ ...base, workload: r.workload }, r.late)
      })
    metric(client.Counter, 'cratebench_dropped_requests_total',
      'requests the --rate timetable held before --duration ended that never went out (every slot busy)',
      ['workload'], (c) => {
        c.reset()
        for (const r of self.pacingCounts()) c.inc({ ...base, workload: r.workload }, r.dropped)
      })
    metric(client.Gauge, 'cratebench_hosts_up', 'hosts answering, as the client sees them', [], (g) => {
      g.reset()
      g.set(base, self.sources ? self.sources.hostsUp() : 0)
    })
    metric(client.Gauge, 'cratebench_client_saturated', '1 when the client may have limited the load', [], (g) => {
      g.reset()
      // Saturation is judged from the workers' CPU and event-loop delay at the end of the run: 0 until then.
      g.set(base, self.final ? Number(self.final.saturated) : 0)
    })
    metric(client.Gauge, 'cratebench_phase', '1 for the phase the run is in: warmup, measure, drain', ['phase'],
      (g) => {
        g.reset()
        const now = self.final ? null : self.sources ? self.sources.phase() : null
        for (const phase of PHASES) g.set({ ...base, phase }, Number(phase === now))
      })
  }

  async start () {
    this.server = http.createServer((req, res) => this.serve(req, res))
    await new Promise((resolve, reject) => {
      this.server.once('error', (error) => reject(new FatalError(`--metrics_port ${this.port} on ${this.host}: ` +
        `${error.code === 'EADDRINUSE' ? 'the port is in use' : error.message}`)))
      this.server.listen(this.port, this.host, resolve)
    })
    this.port = this.server.address().port
    return this
  }

  async serve (req, res) {
    if (req.method !== 'GET' || req.url.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' })
      return res.end('crate-bench serves /metrics\n')
    }
    try {
      const text = await this.registry.metrics()
      res.writeHead(200, { 'content-type': this.registry.contentType })
      res.end(text)
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' })
      res.end(`${error.message}\n`)
    }
  }

  /** The live run: { groups(): [{ workload, totals }], inFlight(), hostsUp(), phase() } */
  watch (sources) {
    this.sources = sources
  }

  /** The run is over: its results, as reported. */
  finish (results) {
    this.final = {
      results,
      saturated: results.some(({ result }) => result.client && result.client.saturated)
    }
  }

  /** Late and dropped requests of each workload (0 without a rate): live from the totals, after the run the results. */
  pacingCounts () {
    if (this.final) {
      return this.final.results.map(({ workload, result }) => ({
        workload,
        late: (result.rate && result.rate.late_requests) || 0,
        dropped: (result.rate && result.rate.dropped_requests) || 0
      }))
    }
    if (!this.sources) return []
    return this.sources.groups()
      .map(({ workload, totals }) => ({ workload, late: totals.lateRequests, dropped: totals.droppedRequests || 0 }))
  }

  rowCounts () {
    if (this.final) {
      const ingest = this.final.results.find((r) => r.workload === 'ingest')
      if (!ingest) return []
      return (ingest.result.tables || []).flatMap((t) => {
        const share = (key) => (ingest.result.tables.length === 1 ? ingest.result[key] : t[key] ?? 0)
        // Rows in doubt are not told apart by table: all of them are on the first.
        const inDoubt = t === ingest.result.tables[0] ? ingest.result.rows_in_doubt : 0
        return [['ok', share('rows_ok')], ['failed', share('rows_failed')], ['in_doubt', inDoubt]]
          .map(([outcome, value]) => ({ table: t.name, outcome, value }))
      })
    }
    const group = this.sources && this.sources.groups().find((g) => g.workload === 'ingest')
    if (!group) return []
    return [...group.totals.series].flatMap(([table, s]) => OUTCOMES.map((outcome) => ({
      table, outcome, value: outcome === 'ok' ? s.ok : outcome === 'failed' ? s.failed : s.inDoubt
    })))
  }

  requestCounts () {
    const groups = this.sources ? this.sources.groups() : []
    return groups.flatMap(({ workload, totals }) => [...totals.series].flatMap(([query, s]) => [
      { workload, query, outcome: 'ok', value: s.requests - s.requestsFailed },
      { workload, query, outcome: 'failed', value: s.requestsFailed }
    ]))
  }

  histograms () {
    const groups = this.sources ? this.sources.groups() : []
    return groups.flatMap(({ workload, totals }) => [...totals.series].map(([query, s]) => ({
      labels: { workload, query }, histogram: s.latency
    })))
  }

  /** Serves the final values a little longer, so that the last scrape sees them; then closes. */
  async stop ({ lingerMs }) {
    if (!this.server) return
    if (lingerMs > 0) await new Promise((resolve) => setTimeout(resolve, lingerMs))
    this.server.closeAllConnections()
    await new Promise((resolve) => this.server.close(resolve))
  }
}

module.exports = { MetricsExporter, OUTCOMES, PHASES }
