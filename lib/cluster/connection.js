'use strict'

const { UsageError } = require('../base/errors')
const { parseBooleanText, parseDuration } = require('../base/values')

/** A host as it may be shown: any password in it replaced by ***. */
function maskCredentials (text) {
  return String(text).replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*):[^@/]*@/i, '$1:***@')
}

// CRATE_HOST may list several hosts ("a,b:4201,https://c", "https://user:secret@c"); requests go
// round-robin over them. Credentials in a host are taken as the connection's user and password.
function parseHosts (hostText, defaultPort, ssl) {
  const entries = String(hostText).split(',').map((s) => s.trim()).filter(Boolean)
  if (entries.length === 0) throw new UsageError('--host must name at least one host')
  return entries.map((entry) => {
    const shown = maskCredentials(entry)
    const withScheme = /^[a-z]+:\/\//i.test(entry) ? entry : `${ssl ? 'https' : 'http'}://${entry}`
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
    if (url.username || url.password) {
      host.credentials = { user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) }
    }
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

function parsePort (text) {
  if (text === undefined || text === '') return 4200
  const port = /^\d{1,5}$/.test(String(text).trim()) ? Number(text) : NaN
  if (!(port >= 1 && port <= 65535)) {
    throw new UsageError(`--port/CRATE_PORT must be a port number 1-65535 in decimal (got '${text}')`)
  }
  return port
}

function connectionFromArgs (args, env) {
  const ssl = parseBooleanText(args.ssl ?? env.CRATE_SSL ?? false, '--ssl/CRATE_SSL')
  const port = parsePort(args.port ?? env.CRATE_PORT)
  const hosts = parseHosts(args.host ?? env.CRATE_HOST ?? 'localhost', port, ssl)
  const { user, password } = credentialsOf(hosts, args.user ?? env.CRATE_USER, env.CRATE_PASSWORD || '')
  // eslint-disable-next-line no-control-regex -- a user name with a control character is what we refuse
  if (/[\u0000-\u001f\u007f:]/.test(user)) {
    throw new UsageError('--user/CRATE_USER must not contain a control character or a colon')
  }
  return {
    hosts,
    user,
    password,
    insecure: Boolean(args.insecure),
    timeoutMs: parseDuration(args.timeout, 'timeout')
  }
}

module.exports = { connectionFromArgs, parseHosts, maskCredentials }
