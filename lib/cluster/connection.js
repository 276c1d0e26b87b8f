'use strict'

const { UsageError } = require('../base/errors')
const { parseBooleanText, parseDuration } = require('../base/values')
const { addSecret } = require('../base/secrets')
const { visible } = require('../base/format')
const { DEFAULT_MAX_ANSWER_BYTES } = require('./http-errors')

/** One host entry: [scheme://][user[:password]@]host[:port]. The password may hold '/', ':' or '@'. */
function splitHostEntry (entry) {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(entry)
  const afterScheme = scheme ? entry.slice(scheme[0].length) : entry
  const at = afterScheme.lastIndexOf('@')
  if (at < 0) return { scheme: scheme ? scheme[0] : '', credentials: null, address: afterScheme }
  const userinfo = afterScheme.slice(0, at)
  const colon = userinfo.indexOf(':')
  const user = colon < 0 ? userinfo : userinfo.slice(0, colon)
  const password = colon < 0 ? '' : userinfo.slice(colon + 1)
  return {
    scheme: scheme ? scheme[0] : '',
    credentials: { user: decoded(user), password: decoded(password) },
    address: afterScheme.slice(at + 1)
  }
}

function decoded (text) {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

// CRATE_HOST may list several hosts ("a,b:4201,https://c", "https://user:secret@c"); requests go
// round-robin over them. Credentials in a host are taken as the connection's user and password.
function parseHosts (hostText, defaultPort, ssl) {
  const entries = String(hostText).split(',').map((s) => s.trim()).filter(Boolean)
  if (entries.length === 0) throw new UsageError('--host must name at least one host')
  const parts = entries.map(splitHostEntry)
  // Registered before any error can quote an entry.
  for (const { credentials } of parts) if (credentials) addSecret(credentials.password)
  return parts.map(({ scheme, credentials, address }) => {
    const shown = `${scheme}${credentials ? `${credentials.user}${credentials.password ? ':***' : ''}@` : ''}${address}`
    // eslint-disable-next-line no-control-regex -- a host with a control character is what we refuse
    if (/[\s\u0000-\u001f\u007f]/.test(address)) {
      throw new UsageError(`invalid host '${visible(shown)}': a host has no white space or control character`)
    }
    const withScheme = `${scheme || `${ssl ? 'https' : 'http'}://`}${address}`
    let url
    try {
      url = new URL(withScheme)
    } catch {
      throw new UsageError(`invalid host '${shown}' in --host/CRATE_HOST`)
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new UsageError(`invalid host '${shown}': only http:// and https:// are supported`)
    }
    if (url.pathname && url.pathname !== '/') {
      throw new UsageError(
        `invalid host '${shown}': a host has no path (got '${url.pathname}'); CrateDB answers on /_sql`
      )
    }
    if (url.search || withScheme.includes('?')) {
      throw new UsageError(`invalid host '${shown}': a host has no query string`)
    }
    if (url.hash || withScheme.includes('#')) throw new UsageError(`invalid host '${shown}': a host has no #fragment`)
    const port = url.port ? Number(url.port) : defaultPort
    const host = { protocol: url.protocol.slice(0, -1), hostname: url.hostname, port }
    if (credentials) host.credentials = credentials
    return host
  })
}

/**
 * User and password: from the hosts' URLs when they carry them, else --user/CRATE_USER and
 * CRATE_PASSWORD. Two different answers are an error that never shows a password.
 */
function credentialsOf (hosts, user, password) {
  const fromHosts = hosts.filter((h) => h.credentials).map((h) => h.credentials)
  for (const h of hosts) delete h.credentials
  if (fromHosts.length === 0) return { user: user ?? 'crate', password }
  const [first] = fromHosts
  if (fromHosts.some((c) => c.user !== first.user || c.password !== first.password)) {
    throw new UsageError(
      'the hosts in --host/CRATE_HOST carry different credentials; one user and password serve every host'
    )
  }
  if (user !== undefined && user !== first.user) {
    throw new UsageError(`the host names user '${first.user}' but --user/CRATE_USER is '${user}'`)
  }
  if (password && first.password && password !== first.password) {
    throw new UsageError('the host carries a password that differs from CRATE_PASSWORD')
  }
  return { user: first.user || user || 'crate', password: first.password || password }
}

function parsePort (text, { fallback = 4200, flag = '--port/CRATE_PORT' } = {}) {
  if (text === undefined || text === '') return fallback
  const port = /^\d{1,5}$/.test(String(text).trim()) ? Number(text) : NaN
  if (!(port >= 1 && port <= 65535)) {
    throw new UsageError(`${flag} must be a port number 1-65535 in decimal (got '${text}')`)
  }
  return port
}

/**
 * --pg_port: one port for every host, or a list of one per host of --host, in its order (the nodes of one machine
 * each listen on a port of their own).
 */
function parsePgPorts (text, hosts) {
  const flag = '--pg_port/CRATE_PG_PORT'
  const parts = text === undefined || text === '' ? [undefined] : String(text).split(',')
  const ports = parts.map((part) => parsePort(part, { fallback: 5432, flag }))
  if (ports.length === 1) return hosts.map(() => ports[0])
  if (ports.length !== hosts.length) {
    throw new UsageError(`${flag} must name one port, or one per host of --host in its order (${hosts.length}; got ` +
      `${ports.length})`)
  }
  return ports
}

/** The PostgreSQL port(s) as a result and a report give them: one number, or one per host ("4350,4351"). */
const pgPortsText = (ports) => (new Set(ports).size === 1 ? ports[0] : ports.join(','))

const PROTOCOLS = ['http', 'pg']

const MB = 1024 * 1024

/** --max_answer_mb: an answer larger than this is cut off (the request is in doubt) instead of filling memory. */
function parseAnswerCap (value) {
  if (value === undefined) return DEFAULT_MAX_ANSWER_BYTES
  const mb = Number(value)
  if (String(value).trim() === '' || !Number.isFinite(mb) || mb <= 0 || mb > 1024) {
    throw new UsageError(`--max_answer_mb must be a number of megabytes from 0.001 to 1024 (got '${value}')`)
  }
  return Math.max(1024, Math.round(mb * MB))
}

function connectionFromArgs (args, env) {
  addSecret(env.CRATE_PASSWORD)
  const ssl = parseBooleanText(args.ssl ?? env.CRATE_SSL ?? false, '--ssl/CRATE_SSL')
  const port = parsePort(args.port ?? env.CRATE_PORT)
  const hosts = parseHosts(args.host ?? env.CRATE_HOST ?? 'localhost', port, ssl)
  const { user, password } = credentialsOf(hosts, args.user ?? env.CRATE_USER, env.CRATE_PASSWORD || '')
  // eslint-disable-next-line no-control-regex -- a user name with a control character is what we refuse
  if (/[\u0000-\u001f\u007f:]/.test(user)) {
    throw new UsageError('--user/CRATE_USER must not contain a control character or a colon')
  }
  const protocol = args.protocol ?? (env.CRATE_PROTOCOL || 'http')
  if (!PROTOCOLS.includes(protocol)) {
    throw new UsageError(`--protocol/CRATE_PROTOCOL must be http or pg (got '${protocol}')`)
  }
  if (args.pg_insert !== undefined && protocol !== 'pg') {
    throw new UsageError('--pg_insert is the shape of an insert over the PostgreSQL protocol: give --protocol pg too')
  }
  // CRATE_PG_PORT in an .env serves runs over either protocol; the flag given on its own does nothing.
  if (args.pg_port !== undefined && protocol !== 'pg') {
    throw new UsageError('--pg_port is the port of --protocol pg: give --protocol pg too (or leave --pg_port out)')
  }
  return {
    hosts,
    // The load's protocol: the HTTP endpoint, or the PostgreSQL wire protocol on pgPort of the same hosts (the
    // master's own statements always go over HTTP).
    protocol,
    pgPorts: parsePgPorts(args.pg_port ?? env.CRATE_PG_PORT, hosts),
    pgInsert: args.pg_insert ?? 'batch',
    user,
    password,
    insecure: Boolean(args.insecure),
    maxAnswerBytes: parseAnswerCap(args.max_answer_mb),
    timeoutMs: parseDuration(args.timeout, 'timeout')
  }
}

module.exports = { connectionFromArgs, parseHosts, pgPortsText }
