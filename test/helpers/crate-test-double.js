'use strict'

// A CrateDB HTTP test double. It is NOT CrateDB: it understands the handful of statements this
// tool sends and answers them exactly as the captures in test/fixtures (CrateDB 6.4.3) show:
// per-row bulk results, rowcount -2 with an error under HTTP 200, error bodies with CrateDB's
// codes and statuses, 401 in plain text, 413 with an empty body. Faults (slow answers, dropped
// connections, silence, rejected rows) are scripted per test.
//
// With `nodes: N` it is a test cluster: N HTTP endpoints over one table state. A node can be
// killed (open connections reset, new ones refused: captures 61, 62) and revived; after a kill
// the survivors answer bulks as capture 63 shows while the cluster fails over (`failover`).

const http = require('node:http')
const fs = require('node:fs')
const path = require('node:path')
const { joined } = require('./patterns')

const FIXTURES = path.join(__dirname, '..', 'fixtures')
const JSON_TYPE = 'application/json; charset=UTF-8'

function fixture (name) {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8'))
}

// The captured answer to the thread-pool rejection (48): the message a rejected row carries.
const REJECTION_ERROR = fixture('48-bulk-thread-pool-rejected').response.body.results[0].error
// The captured answer to a second row with an existing primary key (41).
const DUPLICATE_KEY_ERROR = fixture('41-bulk-duplicate-key').response.body.results[1].error
// A surviving node during a failover (63): 4091 on a table without a primary key, the row stored
// by CrateDB's own internal retry; and rows that failed without any error details.
const FAILOVER_DUPLICATE = fixture('63-node-loss-bulk-partial-failure').response.body.results.find((r) => r.error).error
const AUTH_FAILURE_STATUS = fixture('32-auth-wrong-password').response.status
// sys.nodes as captured from a node with a 1-slot write pool, before a load and after 1855 rejections.
const SYS_NODES_BEFORE = fixture('56-sys-nodes-before-load')
const SYS_NODES_AFTER = fixture('57-sys-nodes-after-rejections')
const SYS_NODES_20 = fixture('20-sys-nodes')

// The statement that adds up one multi-machine run from a --results_table (see docs/runs-across-machines.md).
const RUN_AGGREGATE = new RegExp('^' + [
  'SELECT count\\(\\*\\) AS load_generators, sum\\(ok\\) AS ok, sum\\(failed\\) AS failed, ',
  'EXTRACT\\(EPOCH FROM max\\(ended_at\\)\\) - EXTRACT\\(EPOCH FROM min\\(started_at\\)\\) AS seconds, ',
  'sum\\(ok\\) / \\(EXTRACT\\(EPOCH FROM max\\(ended_at\\)\\) - EXTRACT\\(EPOCH FROM min\\(started_at\\)\\)\\) AS ' +
    'per_sec ',
  'FROM (\\S+) WHERE run_id = \\?$'
].join(''))

// The other statements the double understands, each as the tool writes it.
const STATEMENT = {
  createTable: joined(
    /^CREATE TABLE (IF NOT EXISTS )?(\S+) \(([\s\S]*)\) CLUSTERED INTO (\d+) SHARDS /,
    /WITH \(number_of_replicas = '([^']*)'([^)]*)\)$/i),
  insert: /^INSERT INTO (\S+) \(([^)]*)\) VALUES \(([^)]*)\)( ON CONFLICT \(([a-z_]+)\) DO UPDATE SET .+)?$/i,
  keyLookup: /^SELECT ([a-z_, ]+) FROM (\S+) WHERE ([a-z_]+) = \?$/i,
  columns: /^SELECT column_name FROM information_schema\.columns WHERE table_schema = \? AND table_name = \?$/i,
  shape: joined(
    /^SELECT number_of_shards, number_of_replicas FROM information_schema\.tables /,
    /WHERE table_schema = \? AND table_name = \?$/i),
  shards: joined(
    /^SELECT count\(\*\), sum\(size\), sum\(num_docs\) FROM sys\.shards /,
    /WHERE schema_name = \? AND table_name = \? AND "primary" = true$/),
  segments: /^SELECT count\(\*\) FROM sys\.segments WHERE table_schema = \? AND table_name = \? AND "primary" = true$/
}
const missingParameter = (given) => `SQLParseException[The query contains a parameter placeholder $${given + 1}, ` +
  `but there are only ${given} parameter values]`

// The fleet's rows per generator by the cpu rows' keys, in the statement the cpu model writes.
const { MODELS } = require('../../lib/data/models')
function fleetRowsTable (stmt) {
  const m = / FROM (\S+) WHERE "ts" >= \?\) AS "keys" GROUP BY 1$/.exec(stmt)
  if (!m) return null
  return MODELS.cpu.fleetRowsSql({ sql: m[1] }, {}, 0, 1).sql === stmt ? m[1] : null
}

class CrateTestDouble {
  /**
   * @param {object} [script]
   * @param {{user: string, password: string}} [script.auth] require basic auth
   * @param {number} [script.maxContentLength] bytes; larger bodies get 413 (CrateDB default 100 MB)
   * @param {(rowNumber: number, row: any[], bulk: {size: number}) => object|null} [script.rejectRow]
   *        error for a bulk row (rowNumber counts every bulk row the double has received; size is
   *        the rows in this request), answered as rowcount -2
   * @param {(req: {number: number, stmt: string, bulk: boolean, rows: number, inFlight: number}) => any} [script.fault]
   *        'drop' closes the connection, 'hang' never answers, {delayMs} delays, {body} answers 200 with that
   *        text, {trickleMs} answers 200 and then one byte every trickleMs, never ending, {hugeBytes} answers
   *        200 with that many bytes, {status, code, message} answers with that error; undefined answers normally
   * @param {(stmt: string, args: any[]) => object|null} [script.query] answers for other SELECTs
   * @param {(sampleNumber: number) => object} [script.sysNodes] the answer body to the n-th sys.nodes
   *        sample (1-based); by default the captured answer before a load (56)
   * @param {{windowMs: number, duplicateEvery: number, bareEvery: number}} [script.failover] for
   *        windowMs after a kill, every duplicateEvery-th bulk row on a survivor answers -2 with 4091
   *        but is stored, every bareEvery-th answers a bare -2 and is not (63)
   * @param {(counts: Map<number, number>) => Map<number, number|number[]>} [script.fleetRows] what the count of a
   *        fleet's rows by their keys answers, from the counts of the keys tracked (a table with rows they cannot tell
   *        apart): a generator's rows, or [rows, distinct keys]
   * @param {{key: Buffer, cert: Buffer}} [script.tls] answer over HTTPS with this key and certificate
   * @param {{hostname?: string, cores?: number, heapMax?: number, memTotal?: number, cpuPct?: number|number[]}[]}
   *        [script.nodeShapes] each node's machine as the cluster-shape query reads it (default: capture 20's node, 4
   *        processors, idle); cpuPct its process's CPU, or its CPU at each reading in turn (the last one repeats)
   * @param {number} [script.nodeCount] what `SELECT count(*) FROM sys.nodes` answers (default: the nodes alive)
   * @param {{nodes: number}} [topology] endpoints over the one table state
   */
  constructor (script = {}, { nodes = 1 } = {}) {
    this.script = script
    this.maxContentLength = script.maxContentLength ?? 100 * 1024 * 1024
    this.tables = new Map()
    this.statements = []
    this.requestCount = 0
    this.bulkRowsReceived = 0
    this.keys = script.trackKeys ? new Set() : null
    this.rows = script.keepRows ? [] : null
    this.duplicateKeys = 0
    this.sysNodesSamples = 0
    this.cpuReadings = 0
    this.hanging = new Set()
    // What the cluster confirmed, and what it stored without a confirmation reaching the client.
    this.rowsAcknowledged = 0
    this.rowsStoredDespiteFailure = 0
    this.answersLost = 0
    this.failoverUntil = 0
    this.nodes = Array.from({ length: nodes }, (_, index) => {
      const handler = (req, res) => this.handle(req, res, this.nodes[index])
      const server = script.tls ? require('node:https').createServer(script.tls, handler) : http.createServer(handler)
      server.keepAliveTimeout = 30_000
      return { index, name: `node-${index}`, server, port: null, killed: false, requests: 0 }
    })
    this.server = this.nodes[0].server
  }

  /** The i-th node's process CPU at this reading of it. */
  cpuOf (i) {
    const cpu = ((this.script.nodeShapes || [])[i] || {}).cpuPct ?? 0
    return Array.isArray(cpu) ? cpu[Math.min(this.cpuReadings, cpu.length - 1)] : cpu
  }

  /** Listens on `ports` (node i on ports[i]; any free one where none is given). */
  async start ({ ports = [] } = {}) {
    for (const node of this.nodes) {
      await new Promise((resolve, reject) => {
        node.server.once('error', reject)
        node.server.listen(ports[node.index] ?? 0, '127.0.0.1', resolve)
      })
      node.port = node.server.address().port
    }
    this.port = this.nodes[0].port
    this.url = `${this.script.tls ? 'https' : 'http'}://127.0.0.1:${this.port}`
    return this
  }

  async stop () {
    for (const res of this.hanging) res.destroy()
    for (const node of this.nodes) {
      if (node.killed) continue
      node.server.closeAllConnections()
      await new Promise((resolve) => node.server.close(resolve))
    }
  }

  /** Like a node killed with SIGKILL: connections open now are reset, new ones refused. */
  async kill (index = 0) {
    const node = this.nodes[index]
    node.killed = true
    if (this.script.failover) this.failoverUntil = Date.now() + this.script.failover.windowMs
    for (const res of this.hanging) if (res.node === node) res.destroy()
    node.server.closeAllConnections()
    await new Promise((resolve) => node.server.close(resolve))
  }

  /** The node is back, on the same port. */
  async revive (index = 0) {
    const node = this.nodes[index]
    await new Promise((resolve, reject) => {
      node.server.once('error', reject)
      node.server.listen(node.port, '127.0.0.1', () => {
        node.server.off('error', reject)
        resolve()
      })
    })
    node.killed = false
  }

  /** Env for a child process of the tool pointed at this double: every node, round-robin. */
  env (extra = {}) {
    return { CRATE_HOST: this.nodes.map((n) => `127.0.0.1:${n.port}`).join(','), CRATE_PORT: String(this.port),
      CRATE_SSL: String(Boolean(this.script.tls)),
      // A test machine runs several tests at once: their CPU is no other tenant of the cluster under test, and a
      // test's verdicts must not turn on how many ran beside it (test/e2e/busy-machine.e2e.test.js sets its own).
      CRATE_BENCH_BUSY_OTHERS_PCT: '100', ...extra }
  }

  /** A hostile answer: headers at once, then a byte at a time, never complete. */
  trickle (res, everyMs) {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.write('{')
    const timer = setInterval(() => res.write(' '), everyMs)
    res.on('close', () => clearInterval(timer))
    this.hanging.add(res)
  }

  /** A hostile answer of `bytes` bytes, written as fast as the client reads. */
  huge (res, bytes) {
    res.writeHead(200, { 'content-type': 'application/json' })
    const chunk = Buffer.alloc(1024 * 1024, 0x20)
    let left = bytes
    const pump = () => {
      while (left > 0) {
        const size = Math.min(left, chunk.length)
        left -= size
        if (!res.write(size === chunk.length ? chunk : chunk.subarray(0, size))) return res.once('drain', pump)
      }
      res.end()
    }
    res.on('error', () => {})
    pump()
  }

  statementsMatching (pattern) {
    return this.statements.filter((s) => pattern.test(s.stmt))
  }

  handle (req, res, node) {
    node.requests++
    res.node = node
    const chunks = []
    let size = 0
    let tooLarge = false
    req.on('data', (chunk) => {
      size += chunk.length
      if (size > this.maxContentLength) tooLarge = true
      else chunks.push(chunk)
    })
    req.on('end', () => {
      if (tooLarge) return send(res, 413, null, '')
      this.answer(req, res, Buffer.concat(chunks).toString('utf8')).catch((error) => {
        send(res, 500, JSON_TYPE, JSON.stringify({ error: { message: `test double failure: ${error.message}`,
          code: 5000 } }))
      })
    })
  }

  async answer (req, res, text) {
    // Requests being answered now, this one included: a script's fault may slow a crowded cluster.
    this.inFlight = (this.inFlight || 0) + 1
    res.once('close', () => this.inFlight--)
    const started = process.hrtime.bigint()
    const number = ++this.requestCount
    if (this.script.auth && !this.authorized(req)) {
      const user = this.userOf(req)
      return send(res, AUTH_FAILURE_STATUS, null, `password authentication failed for user "${user}"\n`)
    }
    let body
    try {
      body = JSON.parse(text)
    } catch {
      return sendError(res, 400, 4000,
        `SQLParseException[Can't parse [${text}]. ` +
        'Expecting payload with `stmt` string and `args` or `bulk_args` arrays]')
    }
    if (typeof body.stmt !== 'string') return sendError(res, 500, 5000,
      'SQLParseSourceException[Field [stmt] is missing]')
    if (body.args && body.bulk_args) return sendError(res, 400, 4000,
      "SQLParseException[request body contains args and bulk_args. It's forbidden to provide both]")
    const bulk = Array.isArray(body.bulk_args)
    this.statements.push({ stmt: body.stmt, args: body.args, rows: bulk ? body.bulk_args.length : undefined })

    const fault = this.script.fault
      ? await this.script.fault({ number, stmt: body.stmt, bulk, node: res.node.index,
        rows: bulk ? body.bulk_args.length : 0, inFlight: this.inFlight })
      : undefined
    if (fault === 'drop') return req.socket.destroy()
    if (fault === 'hang') return this.hanging.add(res)
    if (fault && fault.trickleMs) return this.trickle(res, fault.trickleMs)
    if (fault && fault.body !== undefined) return send(res, 200, 'application/json', fault.body)
    if (fault && fault.hugeBytes) return this.huge(res, fault.hugeBytes)
    if (fault && fault.delayMs) await new Promise((resolve) => setTimeout(resolve, fault.delayMs))
    if (fault && fault.status) return sendError(res, fault.status, fault.code, fault.message)

    const outcome = bulk
      ? this.executeBulk(body.stmt, body.bulk_args, res.node)
      : this.execute(body.stmt, body.args || [])
    // Written, not yet answered: a node killed now has stored rows whose answer never arrives.
    if (fault && fault.answerDelayMs) await new Promise((resolve) => setTimeout(resolve, fault.answerDelayMs))
    if (res.destroyed || res.node.killed) {
      this.answersLost++
      return
    }
    const duration = Number(process.hrtime.bigint() - started) / 1e6
    if (outcome.error) return sendError(res, outcome.error.status, outcome.error.code, outcome.error.message)
    if (bulk) this.rowsAcknowledged += outcome.results.filter((r) => r.rowcount === 1).length
    // Key order as CrateDB writes it (see the fixtures).
    const answer = bulk
      ? { cols: [], duration, results: outcome.results }
      : { cols: outcome.cols || [], rows: outcome.rows || [[]], rowcount: outcome.rowcount, duration }
    send(res, 200, JSON_TYPE, JSON.stringify(answer))
  }

  authorized (req) {
    const header = req.headers.authorization || ''
    const [user, password] = Buffer.from(header.replace(/^Basic /, ''), 'base64').toString().split(':')
    return user === this.script.auth.user && password === this.script.auth.password
  }

  userOf (req) {
    const header = req.headers.authorization || ''
    return Buffer.from(header.replace(/^Basic /, ''), 'base64').toString().split(':')[0] || 'crate'
  }

  execute (stmt, args) {
    let m
    if (/^SELECT 1$/i.test(stmt)) return { cols: ['1'], rows: [[1]], rowcount: 1 }
    // The server's clock (65), off this machine's by script.serverClockOffsetMs.
    if (stmt === 'SELECT CURRENT_TIMESTAMP AS now') return { cols: ['now'],
      rows: [[Date.now() + (this.script.serverClockOffsetMs || 0)]], rowcount: 1 }
    const keyed = this.executeKeyed(stmt, args)
    if (keyed) return keyed
    // An UPDATE of a table there is not (a leases table dropped under a run) is CrateDB's RelationUnknown, 4041.
    if ((m = /^UPDATE (\S+) SET /i.exec(stmt)) && !this.tables.has(tableName(m[1]))) {
      return unknownRelation(tableName(m[1]))
    }
    if ((m = /^SELECT "holder", "at", "ttl_ms", CURRENT_TIMESTAMP FROM (\S+)$/i.exec(stmt))) {
      // Every lease with the server's time (a study's end: does another run hold one?).
      const table = this.tables.get(tableName(m[1]))
      if (!table) return unknownRelation(tableName(m[1]))
      const now = Date.now() + (this.script.serverClockOffsetMs || 0)
      const rows = [...table.keyed.values()].map((r) => [r.holder, r.at, Number(r.ttl_ms), now])
      return { cols: ['holder', 'at', 'ttl_ms', 'CURRENT_TIMESTAMP'], rows, rowcount: rows.length }
    }
    if ((m = /^DELETE FROM (\S+) WHERE (\S+) = \?$/i.exec(stmt))) {
      // A row of a table with a primary key, by its key (the registry of the tables this tool made).
      const table = this.tables.get(tableName(m[1]))
      if (!table) return unknownRelation(tableName(m[1]))
      const existed = table.byKey && table.pk === m[2] && table.byKey.delete(args[0])
      if (existed) table.rows = (table.rows || []).filter((r) => r[table.pk] !== args[0])
      return { rowcount: existed ? 1 : 0 }
    }
    if ((m = /^DROP TABLE (IF EXISTS )?(\S+)$/i.exec(stmt))) {
      const name = tableName(m[2])
      if (!this.tables.has(name) && !m[1]) return unknownRelation(name)
      const existed = this.tables.delete(name)
      return { rowcount: existed ? 1 : 0 }
    }
    // A CREATE TABLE without CLUSTERED and WITH (82, 84) gets CrateDB's defaults.
    if (/^CREATE TABLE [^(]+\([\s\S]*\)$/i.test(stmt) && !/\) CLUSTERED INTO \d+ SHARDS WITH \(/i.test(stmt)) {
      stmt = `${stmt} CLUSTERED INTO 4 SHARDS WITH (number_of_replicas = '0-1')`
    }
    if ((m = STATEMENT.createTable.exec(stmt))) {
      const name = tableName(m[2])
      const shards = Number(m[4])
      if (shards < 1) return error(400, 4000,
        'SQLParseException[num_shards in CLUSTERED clause must be greater than 0]')
      if (!/^\d+(-(\d+|all))?$/.test(m[5])) return error(400, 4000,
        `SQLParseException[The "number_of_replicas" range "${m[5]}" isn't valid]`)
      if (this.tables.has(name)) {
        return m[1] ? { rowcount: 0 } : error(409, 4093, `RelationAlreadyExists[Relation '${name}' already exists.]`)
      }
      const pk = /"?([a-z_][a-z0-9_]*)"?\s+\w+\s+PRIMARY KEY/i.exec(m[3])
      // A primary key of several columns (the fleet table: run_id, generator), as a constraint of its own.
      const compositePk = /PRIMARY KEY \(([^)]*)\)/i.exec(m[3])
      this.tables.set(name, {
        shards,
        replicas: m[5],
        columns: m[3],
        written: 0,
        visible: 0,
        pk: pk ? pk[1] : null,
        byKey: pk ? new Map() : null,
        compositePk: compositePk ? compositePk[1].split(',').map((c) => c.trim().replace(/"/g, '')) : null,
        keyed: new Map(),
        keyedVisible: new Map(),
        indexedText: indexedTextColumns(m[3])
      })
      return { rowcount: 1 }
    }
    if ((m = STATEMENT.insert.exec(stmt))) {
      // A single-row insert with parameters (the results table, the kv mix's writes); rows are
      // kept for the run aggregate and the primary-key lookups.
      const name = tableName(m[1])
      const table = this.tables.get(name)
      if (!table) return unknownRelation(name)
      const columns = m[2].split(',').map((c) => c.trim().replace(/"/g, ''))
      if (args.length < columns.length) {
        return error(400, 4000,
          missingParameter(args.length))
      }
      const record = Object.fromEntries(columns.map((c, i) => [c, args[i]]))
      const immense = immenseTermError(table, record)
      if (immense) return immense
      if (table.pk) {
        const exists = table.byKey.has(record[table.pk])
        if (exists && !m[4]) return error(409, DUPLICATE_KEY_ERROR.code, DUPLICATE_KEY_ERROR.message)
        table.byKey.set(record[table.pk], record)
        if (exists) return { rowcount: 1 }
      }
      table.rows = table.rows || []
      table.rows.push(record)
      table.written++
      return { rowcount: 1 }
    }
    const keyedTable = fleetRowsTable(stmt)
    if (keyedTable) {
      // The fleet's rows by their keys (lib/data/models/cpu.js), from the keys the double tracks, with CrateDB's
      // arithmetic: division and modulo truncate toward zero, so a negative index has a modulo ≤ 0.
      if (!this.keys || !this.tables.has(tableName(keyedTable))) {
        return error(400, 4000, 'SQLParseException[the CrateDB test double counts rows by key with trackKeys only]')
      }
      const [count, startMs, intervalMs, scale, since] = args
      const counts = new Map()
      for (const key of this.keys) {
        const [hostname, ts] = key.split('|')
        if (Number(ts) < since) continue
        const i = Math.trunc((Number(ts) - startMs) / intervalMs) * scale + Number(hostname.slice(5))
        counts.set(i % count, (counts.get(i % count) || 0) + 1)
      }
      // The keys are a set: each distinct once, unless the script answers [rows, distinct].
      const answered = this.script.fleetRows ? this.script.fleetRows(counts) : counts
      const rows = [...answered].map(([g, n]) => (Array.isArray(n) ? [g, ...n] : [g, n, n]))
      return { cols: ['generator', 'count(*)', 'count(DISTINCT i)'], rows, rowcount: rows.length }
    }
    if ((m = RUN_AGGREGATE.exec(stmt))) {
      const table = this.tables.get(tableName(m[1]))
      if (!table) return unknownRelation(tableName(m[1]))
      // What the last refresh made visible, of one run_id.
      const rows = (table.rows || []).slice(0, table.visible).filter((r) => r.run_id === args[0])
      const epoch = (ts) => (typeof ts === 'number' ? ts : Date.parse(ts)) / 1000
      const sum = (key) => (rows.length ? rows.reduce((a, r) => a + r[key], 0) : null)
      const seconds = rows.length
        ? Math.max(...rows.map((r) => epoch(r.ended_at))) - Math.min(...rows.map((r) => epoch(r.started_at)))
        : null
      return { cols: ['load_generators', 'ok', 'failed', 'seconds', 'per_sec'], rows: [[rows.length, sum('ok'),
        sum('failed'), seconds, rows.length ? sum('ok') / seconds : null]], rowcount: 1 }
    }
    if ((m = /^ALTER TABLE (\S+) RESET \(refresh_interval\)$/i.exec(stmt))) {
      if (!this.tables.has(tableName(m[1]))) return unknownRelation(tableName(m[1]))
      return { rowcount: -1 }
    }
    if ((m = STATEMENT.keyLookup.exec(stmt)) && this.tables.get(tableName(m[2]))?.pk === m[3]) {
      // A primary-key lookup: like CrateDB's, it sees every write at once, refreshed or not (52, 53).
      const table = this.tables.get(tableName(m[2]))
      const cols = m[1].split(',').map((c) => c.trim())
      const row = table.byKey.get(args[0])
      return { cols, rows: row ? [cols.map((c) => row[c])] : [], rowcount: row ? 1 : 0 }
    }
    if ((m = /^REFRESH TABLE (\S+)$/i.exec(stmt))) {
      const table = this.tables.get(tableName(m[1]))
      if (!table) return unknownRelation(tableName(m[1]))
      // Each refresh that makes new rows visible writes a segment in every shard.
      if (table.written > table.visible) table.segments = (table.segments || 0) + (table.shards || 1)
      table.visible = table.written
      table.visibleMaxTs = table.maxTs ?? null
      table.keyedVisible = new Map([...table.keyed].map(([key, row]) => [key, { ...row }]))
      return { rowcount: 1 }
    }
    if ((m = /^SELECT (result|result_json) FROM (\S+) WHERE run_id = \? ORDER BY started_at$/i.exec(stmt))) {
      const table = this.tables.get(tableName(m[2]))
      if (!table) return unknownRelation(tableName(m[2]))
      const rows = (table.rows || []).slice(0, table.visible).filter((r) => r.run_id === args[0])
      rows.sort((a, b) => a.started_at - b.started_at)
      return { cols: [m[1]], rows: rows.map((r) => [r[m[1]]]), rowcount: rows.length }
    }
    if ((m = /^SELECT max\(ts\) FROM (\S+)$/i.exec(stmt)) && this.tables.has(tableName(m[1]))) {
      const table = this.tables.get(tableName(m[1]))
      // What the last refresh made visible, as a count.
      return { cols: ['max(ts)'], rows: [[table.visibleMaxTs ?? null]], rowcount: 1 }
    }
    if (/^SELECT count\(\*\) FROM sys\.nodes$/i.test(stmt)) {
      // The nodes of the cluster as this endpoint sees them: its own, or what the script says it has joined.
      const nodes = this.script.nodeCount ?? this.nodes.filter((n) => !n.killed).length
      return { cols: ['count(*)'], rows: [[nodes]], rowcount: 1 }
    }
    if ((m = /^SELECT count\(\*\) FROM (\S+)$/i.exec(stmt))) {
      const table = this.tables.get(tableName(m[1]))
      if (!table) return unknownRelation(tableName(m[1]))
      // Like CrateDB, a count sees what the last refresh made visible.
      return { cols: ['count'], rows: [[table.visible]], rowcount: 1 }
    }
    if (STATEMENT.columns.test(stmt)) {
      const table = this.tables.get(`${args[0]}.${args[1]}`)
      const names = table ? topLevelParts(table.columns).map((part) => /^\s*"?([a-z_][a-z0-9_]*)"?/i.exec(part)[1]) : []
      return { cols: ['column_name'], rows: names.map((n) => [n]), rowcount: names.length }
    }
    if (STATEMENT.shape.test(stmt)) {
      const table = this.tables.get(`${args[0]}.${args[1]}`)
      return { cols: ['number_of_shards', 'number_of_replicas'], rows: table ? [[table.shards, table.replicas]] : [],
        rowcount: table ? 1 : 0 }
    }
    if (STATEMENT.shards.test(stmt)) {
      // The shape of sys.shards (22); a row's size on disk modelled as 100 bytes.
      const table = this.tables.get(`${args[0]}.${args[1]}`)
      const row = table ? [table.shards || 1, table.visible * 100, table.visible] : [0, null, null]
      return { cols: ['count(*)', 'sum(size)', 'sum(num_docs)'], rows: [row], rowcount: 1 }
    }
    if (STATEMENT.segments.test(stmt)) {
      const table = this.tables.get(`${args[0]}.${args[1]}`)
      return { cols: ['count(*)'], rows: [[table ? table.segments || 0 : 0]], rowcount: 1 }
    }
    if (stmt === SYS_NODES_BEFORE.request.body.stmt) {
      const number = ++this.sysNodesSamples
      const body = this.script.sysNodes ? this.script.sysNodes(number) : this.liveNodesSample()
      return { cols: body.cols, rows: body.rows, rowcount: body.rowcount }
    }
    if (stmt === "SELECT name, hostname, os_info['available_processors'] AS cores, heap, mem, version['number'] AS " +
      "version, process['cpu']['percent'] AS cpu_pct FROM sys.nodes ORDER BY name") {
      // Capture 20's node (hostname, heap, mem), once per node alive; os_info's processors as CrateDB documents it
      // (not in the captures: the machine's count); script.nodeShapes gives each node its own machine.
      const captured = SYS_NODES_20.response.body
      const [row] = captured.rows
      const at = (name) => captured.cols.indexOf(name)
      const rows = this.nodes.filter((n) => !n.killed).map((n, i) => {
        const shape = (this.script.nodeShapes || [])[i] || {}
        const heap = { ...row[at('heap')], ...(shape.heapMax ? { max: shape.heapMax } : {}) }
        const mem = shape.memTotal ? { ...row[at('mem')], used: Math.round(shape.memTotal / 4), free: shape.memTotal -
          Math.round(shape.memTotal / 4) } : row[at('mem')]
        // Its process's CPU as capture 20's node read idle (0), unless the script makes it busy before the run.
        return [n.name, shape.hostname ?? row[at('hostname')], shape.cores ?? 4, heap, mem, '6.4.3', this.cpuOf(i)]
      }).sort((a, b) => a[0].localeCompare(b[0]))
      this.cpuReadings++
      return { cols: ['name', 'hostname', 'cores', 'heap', 'mem', 'version', 'cpu_pct'], rows, rowcount: rows.length }
    }
    if (stmt === "SELECT name, hostname, version['number'] AS version, version['build_hash'] AS build_hash, " +
      "os_info['available_processors'] AS cores, heap['max'] AS heap_max FROM sys.nodes ORDER BY name") {
      // What a study records of a cluster it did not start (lib/provision/external.js), as a 6.4.3 node answers it.
      const rows = this.nodes.filter((n) => !n.killed).map((n, i) => {
        const shape = (this.script.nodeShapes || [])[i] || {}
        return [n.name, shape.hostname ?? `host-${i + 1}`, '6.4.3', 'd3b321359b2ad9697232b74d7d12ba2a6c756daf',
          shape.cores ?? 4, shape.heapMax ?? 512 * 1024 * 1024]
      }).sort((a, b) => a[0].localeCompare(b[0]))
      return { cols: ['name', 'hostname', 'version', 'build_hash', 'cores', 'heap_max'], rows, rowcount: rows.length }
    }
    if (stmt === "SELECT name, process['cpu']['percent'] AS cpu_pct FROM sys.nodes") {
      // The CPU read again while a node reads busy before the run (as a 6.4.3 node answers it).
      const rows = this.nodes.filter((n) => !n.killed).map((n, i) => [n.name, this.cpuOf(i)])
      this.cpuReadings++
      return { cols: ['name', 'cpu_pct'], rows, rowcount: rows.length }
    }
    if (stmt === "SELECT count(*) AS nodes, max(version['number']) AS version FROM sys.nodes") {
      // The version of the captures.
      return { cols: ['nodes', 'version'], rows: [[this.nodes.filter((n) => !n.killed).length, '6.4.3']], rowcount: 1 }
    }
    if (/^SELECT name FROM sys\.nodes ORDER BY name$/i.test(stmt)) {
      // Only the nodes alive answer (64).
      const rows = this.nodes.filter((n) => !n.killed).map((n) => [n.name])
      return { cols: ['name'], rows, rowcount: rows.length }
    }
    const custom = this.script.query && this.script.query(stmt, args)
    if (custom) return custom
    const from = /\bFROM\s+((?:"?[a-z_][a-z0-9_]*"?\.)?"?[a-z_][a-z0-9_]*"?)/i.exec(stmt)
    if (from && !/^"?(sys|information_schema|pg_catalog)"?\./i.test(from[1]) && !this.tables.has(tableName(from[1]))) {
      return unknownRelation(tableName(from[1]))
    }
    return error(400, 4000, `SQLParseException[the CrateDB test double does not understand: ${stmt.slice(0, 120)}]`)
  }

  /**
   * Statements on a table with a primary key of several columns, as the fleet table uses them (65–74): INSERT … ON
   * CONFLICT DO NOTHING answers rowcount 1 for a new key and 0 for an existing one; a read by the whole key sees every
   * write at once; a search sees what the last REFRESH made visible; an UPDATE by the whole key answers 1 or 0.
   * Null for anything else.
   */
  executeKeyed (stmt, args) {
    const target = /^(?:INSERT INTO|UPDATE|SELECT .+? FROM) (\S+)/i.exec(stmt)
    const table = target && this.tables.get(tableName(target[1]))
    if (!table || !table.compositePk) return null
    const keyOf = (values) => JSON.stringify(table.compositePk.map((c) => values[c]))
    const now = Date.now() + (this.script.serverClockOffsetMs || 0)
    let m
    if ((m = /^INSERT INTO \S+ \(([^)]*)\) VALUES \(([^)]*)\) ON CONFLICT DO NOTHING$/i.exec(stmt))) {
      const columns = m[1].split(',').map((c) => c.trim().replace(/"/g, ''))
      const values = m[2].split(',').map((v) => v.trim())
      let arg = 0
      const row = Object.fromEntries(columns.map((c, i) => [c,
        values[i] === '?' ? args[arg++] : values[i] === 'CURRENT_TIMESTAMP' ? now : values[i]]))
      const key = keyOf(row)
      if (table.keyed.has(key)) return { rowcount: 0 }
      table.keyed.set(key, { ...row, _seq_no: 0, _primary_term: 1 })
      return { rowcount: 1 }
    }
    if ((m = /^SELECT (.+) FROM \S+ WHERE (.+?)(?: ORDER BY "?([a-z_]+)"?)?$/i.exec(stmt))) {
      const cols = m[1].split(',').map((c) => c.trim().replace(/"/g, ''))
      const conditions = m[2].split(/ AND /i).map((c) => /^"?([a-z_]+)"? = \?$/i.exec(c.trim())[1])
      const where = Object.fromEntries(conditions.map((c, i) => [c, args[i]]))
      const byWholeKey = table.compositePk.every((c) => c in where) && conditions.length === table.compositePk.length
      // A read by the whole primary key is real-time (69); a search sees the last refresh (70–72).
      const source = byWholeKey ? table.keyed : table.keyedVisible
      const rows = [...source.values()].filter((r) => conditions.every((c) => r[c] === where[c]))
      if (m[3]) rows.sort((a, b) => a[m[3]] - b[m[3]])
      return { cols, rows: rows.map((r) => cols.map((c) => r[c] ?? null)), rowcount: rows.length }
    }
    if ((m = /^UPDATE \S+ SET (.+) WHERE (.+)$/i.exec(stmt))) {
      const sets = m[1].split(/, (?=")/).map((s) => /^"?([a-z_]+)"? = (\?|CURRENT_TIMESTAMP)$/i.exec(s.trim()))
      let arg = 0
      const changes = Object.fromEntries(sets.map((s) => [s[1], s[2] === '?' ? args[arg++] : now]))
      const conditions = m[2].split(/ AND /i).map((c) => /^"?([a-z_]+)"? = \?$/i.exec(c.trim())[1])
      const where = Object.fromEntries(conditions.map((c) => [c, args[arg++]]))
      const row = table.keyed.get(keyOf(where))
      // An optimistic update (73, 74): a row changed since its _seq_no was read is not updated.
      if (!row || conditions.some((c) => row[c] !== where[c])) return { rowcount: 0 }
      Object.assign(row, changes, { _seq_no: row._seq_no + 1 })
      return { rowcount: 1 }
    }
    return null
  }

  /** The captured sys.nodes row (56), once per node alive, under the node's name. */
  liveNodesSample () {
    const body = SYS_NODES_BEFORE.response.body
    if (this.nodes.length === 1) return body
    const nameAt = body.cols.indexOf('name')
    const rows = this.nodes.filter((n) => !n.killed).map((n) => body.rows[0].map((v, i) => (i === nameAt ? n.name : v)))
    return { cols: body.cols, rows, rowcount: rows.length }
  }

  /** A survivor's answer to a row while the cluster fails over (63), or null outside a failover. */
  failoverRow (n) {
    const failover = this.script.failover
    if (!failover || Date.now() > this.failoverUntil) return null
    if (n % failover.duplicateEvery === 0) return { result: { rowcount: -2, error: FAILOVER_DUPLICATE }, stored: true }
    if (n % failover.bareEvery === 0) return { result: { rowcount: -2 }, stored: false }
    return null
  }

  executeBulk (stmt, bulkArgs) {
    const m = STATEMENT.insert.exec(stmt)
    if (!m) return error(400, 4004,
      'UnsupportedFeatureException[Bulk operations for statements that return result sets is not supported]')
    const upsert = Boolean(m[4])
    const name = tableName(m[1])
    const table = this.tables.get(name)
    if (!table) return unknownRelation(name)
    const columns = m[2].split(',').map((c) => c.trim().replace(/"/g, ''))
    const placeholders = m[3].split(',').length
    // Whole-request failures come first: CrateDB analyses all rows before writing any (07, 08).
    for (const row of bulkArgs) {
      if (row.length < placeholders) {
        return error(400, 4000,
          missingParameter(row.length))
      }
      for (let i = 0; i < columns.length; i++) {
        if (columns[i].startsWith('usage_') && !Number.isInteger(row[i])) {
          return error(400, 4000, `SQLParseException[Cannot cast value \`${row[i]}\` to type \`integer\`]`)
        }
      }
    }
    const results = new Array(bulkArgs.length)
    for (let i = 0; i < bulkArgs.length; i++) {
      const rowNumber = this.bulkRowsReceived++
      const rejection =
        this.script.rejectRow && this.script.rejectRow(rowNumber, bulkArgs[i], { size: bulkArgs.length })
      if (rejection) {
        results[i] = { rowcount: -2, error: rejection === true ? REJECTION_ERROR : rejection }
        continue
      }
      const failover = this.failoverRow(rowNumber)
      if (failover) {
        results[i] = failover.result
        if (!failover.stored) continue
        this.rowsStoredDespiteFailure++
        table.written++
        continue
      }
      if (table.pk) {
        const record = Object.fromEntries(columns.map((c, k) => [c, bulkArgs[i][k]]))
        const exists = table.byKey.has(record[table.pk])
        if (exists && !upsert) {
          results[i] = { rowcount: -2, error: DUPLICATE_KEY_ERROR }
          continue
        }
        table.byKey.set(record[table.pk], record)
        if (exists) {
          results[i] = { rowcount: 1 }
          continue
        }
      }
      table.written++
      const tsAt = columns.indexOf('ts')
      if (tsAt >= 0) {
        const ts = typeof bulkArgs[i][tsAt] === 'number' ? bulkArgs[i][tsAt] : Date.parse(bulkArgs[i][tsAt])
        if (!(table.maxTs >= ts)) table.maxTs = ts
      }
      if (this.rows) this.rows.push(JSON.stringify(bulkArgs[i]))
      if (this.keys) {
        const key = `${bulkArgs[i][0].hostname}|${bulkArgs[i][1]}`
        if (this.keys.has(key)) this.duplicateKeys++
        else this.keys.add(key)
      }
      results[i] = { rowcount: 1 }
    }
    return { results }
  }
}

// Lucene's limit on one indexed term: an indexed TEXT value longer than this in UTF-8 is refused (83); a column
// declared INDEX OFF takes any length (85).
const MAX_TERM_BYTES = 32766

/** The TEXT columns of a column list that keep the default index, with their position (CrateDB's field number). */
function indexedTextColumns (columnsText) {
  const indexed = new Map()
  topLevelParts(columnsText).forEach((part, i) => {
    const m = /^\s*"?([a-z_][a-z0-9_]*)"?\s+(TEXT|VARCHAR|STRING)\b(.*)$/is.exec(part)
    if (m && !/\bINDEX OFF\b/i.test(m[3])) indexed.set(m[1], i + 1)
  })
  return indexed
}

/** The answer of capture 83 when a row carries an indexed text over Lucene's term limit, else null. */
function immenseTermError (table, record) {
  for (const [column, field] of table.indexedText || []) {
    const value = record[column]
    if (typeof value !== 'string') continue
    const bytes = Buffer.from(value)
    if (bytes.length <= MAX_TERM_BYTES) continue
    const prefix = [...bytes.subarray(0, 30)].join(', ')
    return error(400, 4000, `SQLParseException[Document contains at least one immense term in field="${field}" ` +
      `(whose UTF8 encoding is longer than the max length ${MAX_TERM_BYTES}), all of which were skipped.  Please ` +
      `correct the analyzer to not produce such terms.  The prefix of the first immense term is: '[${prefix}]...', ` +
      `original message: bytes can be at most ${MAX_TERM_BYTES} in length; got ${bytes.length}]`)
  }
  return null
}

/** The comma-separated parts of a column list, commas inside parentheses kept. */
function topLevelParts (text) {
  const parts = []
  let depth = 0
  let current = ''
  for (const c of text) {
    if (c === '(') depth++
    if (c === ')') depth--
    if (c === ',' && depth === 0) {
      parts.push(current)
      current = ''
    } else current += c
  }
  if (current.trim()) parts.push(current)
  return parts
}

function tableName (text) {
  const parts = text.replace(/"/g, '').split('.')
  return parts.length === 2 ? parts.join('.') : `doc.${parts[0]}`
}

function error (status, code, message) {
  return { error: { status, code, message } }
}

function unknownRelation (name) {
  return error(404, 4041, `RelationUnknown[Relation '${name}' unknown]`)
}

function send (res, status, contentType, text) {
  const headers = { 'content-length': Buffer.byteLength(text) }
  if (contentType) headers['content-type'] = contentType
  res.writeHead(status, headers)
  res.end(text)
}

function sendError (res, status, code, message) {
  send(res, status, JSON_TYPE, JSON.stringify({ error: { message, code } }))
}

async function startCrateTestDouble (script) {
  return new CrateTestDouble(script).start()
}

/** N endpoints over one table state. */
async function startCrateTestCluster (script, { nodes = 3 } = {}) {
  return new CrateTestDouble(script, { nodes }).start()
}

/** Runs fn with a started double and stops the double afterwards, whatever happens. */
/**
 * Runs fn(double) against a fresh double. With protocol 'pg' the double also speaks the PostgreSQL wire protocol
 * (test/helpers/pg-test-double.js) and env() points the tool's load at it (CRATE_PROTOCOL=pg): the same test, the
 * same table state, over the other protocol.
 */
async function withCrateTestDouble (script, fn, { protocol = 'http' } = {}) {
  const double = await startCrateTestDouble(script)
  double.protocol = protocol
  if (protocol === 'pg') {
    const { startPgFront } = require('./pg-test-double')
    double.pg = await startPgFront(double, { auth: script.auth })
    const env = double.env.bind(double)
    double.env = (extra = {}) => env({ CRATE_PROTOCOL: 'pg', CRATE_PG_PORT: String(double.pg.port), ...extra })
  }
  try {
    return await fn(double)
  } finally {
    if (double.pg) await double.pg.close()
    await double.stop()
  }
}

/** A client of the tool to a double (or a node of a test cluster) on `port` of this machine, as the user crate. */
function clientTo (port, { timeoutMs = 5000 } = {}) {
  const { CrateClient } = require('../../lib/cluster/http-client')
  return new CrateClient({ hosts: [{ protocol: 'http', hostname: '127.0.0.1', port }], user: 'crate', timeoutMs })
}

module.exports = {
  CrateTestDouble,
  clientTo,
  startCrateTestDouble,
  startCrateTestCluster,
  withCrateTestDouble,
  fixture,
  REJECTION_ERROR,
  SYS_NODES_BEFORE,
  SYS_NODES_AFTER
}
