'use strict'

const fs = require('node:fs')
const { UsageError, underKey } = require('../base/errors')
const { readStudyFile } = require('../base/files')
const { BenchmarkOptions } = require('../cli/benchmark-options')
const { clusterSpec, MAX_NODES } = require('../provision/cluster')
const { checkSha256 } = require('../provision/distribution')
const { parseVersion } = require('../provision/platform')
const { checkTrustedSource } = require('../provision/owned-paths')
const { MAX_FORKS } = require('../sweep/budget')
const { wholeNumber, durationText, precisionOf, budgetOf, flagOf, prefillOf, text } = require('./file-values')

// A study file (YAML): what to start for each cluster shape, and what to run on it. Every key and every value is
// checked before anything starts: an unknown key, a missing distribution, a shape of 0 nodes, a repeat of 0, a heap
// of 'lots', an SLO of 'banana' is one line naming the key (exit 2), never an error of a part after a cluster started.
// Here the file's form and the study's own keys; a part's keys (grid:, mixed:) by that part's builder, with the plan.

const KEYS = {
  '': ['cluster', 'targets', 'grid', 'mixed', 'sustained', 'contenders', 'forks', 'run', 'duet', 'precision',
    'cpu_precision', 'budget', 'calibrate', 'keep_tables'],
  target: ['name', 'hosts', 'nodes', 'user', 'pg_port', 'up', 'down', 'wait'],
  contender: ['name', 'version', 'tarball', 'sha256', 'nodes', 'heap', 'settings', 'http_port', 'run_as'],
  run: ['workload', 'args', 'lengthen'],
  cluster: ['version', 'tarball', 'sha256', 'nodes', 'heap', 'settings', 'http_port', 'run_as'],
  grid: ['vary', 'repeat', 'duration', 'warmup', 'prefill', 'slo', 'args', 'precision', 'budget'],
  mixed: ['queries', 'query_rate', 'slo', 'duration', 'warmup', 'start', 'edge_repeat', 'max_steps', 'args'],
  sustained: ['duration', 'prefill', 'args']
}

const where = (section, key) => (section ? `${section}.${key}` : key)

function checkKeys (object, section) {
  if (!object || typeof object !== 'object' || Array.isArray(object)) {
    throw new UsageError(`${section || 'the study file'} must be a mapping of keys`)
  }
  for (const key of Object.keys(object)) {
    if (!KEYS[section].includes(key)) {
      throw new UsageError(`unknown key ${where(section, key)} in the study file (known${section ? ` under ${section}`
        : ''}: ${KEYS[section].join(', ')})`)
    }
  }
}

/** A value of `key` as the file gives it (a text or a number), for its builder to judge. */
const value = (given, key) => {
  if (typeof given !== 'string' && typeof given !== 'number') throw new UsageError(`${key} must be a value`)
  return given
}
/** The same, or null when the file does not give it. */
const optional = (given, key) => (given === undefined || given === null ? null : value(given, key))

const strings = (value, key) => {
  if (value === undefined) return []
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' && typeof v !== 'number')) {
    throw new UsageError(`${key} must be a list of benchmark options (e.g. [--processes, 2])`)
  }
  const args = value.map(String)
  // A study loads only the clusters it starts, on the ports it gives them: no option may point a run elsewhere.
  const flag = BenchmarkOptions.fromCommandLine(args).connectionFlag()
  if (flag) {
    throw new UsageError(`${key}: ${flag} is an option of the connection; a study's runs go only to the cluster it ` +
      'starts, at the hosts and ports it gives its nodes (--protocol pg takes their PostgreSQL ports): leave it out')
  }
  return args
}

/** The study of `file`: { cluster, shapes, grid, mixed, sustained }, every value checked. */
function readStudy (file) {
  const source = readStudyFile(file, (why) => new UsageError(`${file} ${why}`))
  let study
  try {
    study = require('js-yaml').load(source)
  } catch (error) {
    throw new UsageError(`${file} is no YAML: ${error.message.split('\n')[0]}`)
  }
  checkKeys(study, '')
  if (study.contenders !== undefined) {
    const comparison = contendersOf(study)
    trustHooks(file, ownClustersOf(comparison))
    return comparison
  }
  for (const key of ['forks', 'run', 'duet', 'precision', 'cpu_precision', 'budget', 'calibrate']) {
    if (study[key] !== undefined) {
      throw new UsageError(`${key}: goes with contenders: (a comparison)${['precision', 'budget'].includes(key)
        ? `; a sizing's grid races with grid.${key}` : ''}`)
    }
  }
  if (study.cluster && study.targets) {
    throw new UsageError('cluster: and targets: are two ways to name what to size: give one (cluster: the tool ' +
      'starts; targets: clusters of your own)')
  }
  if (!study.cluster && !study.targets) {
    throw new UsageError('the study file needs cluster: (what to start for each shape) or targets: (clusters of ' +
      'your own)')
  }
  if (!study.grid) throw new UsageError('the study file needs grid: (the settings to measure on each shape)')
  for (const section of ['cluster', 'grid', 'mixed', 'sustained']) {
    if (study[section]) checkKeys(study[section], section)
  }
  let cluster = null
  let nodes = null
  let targets = null
  if (study.targets) {
    targets = targetsOf(study.targets)
    trustHooks(file, targets)
  } else {
    const c = study.cluster
    cluster = clusterOf(c, 'cluster')
    const listed = [].concat(c.nodes ?? 1)
    if (listed.length === 0) throw new UsageError('cluster.nodes must list one node count or more (got [])')
    nodes = listed.map((n, i) => wholeNumber(n, `cluster.nodes[${i}]`, { max: MAX_NODES }))
    if (new Set(nodes).size !== nodes.length) throw new UsageError('cluster.nodes names a node count twice')
    checkCluster(cluster, Math.max(...nodes), 'cluster')
  }
  const g = study.grid
  // Only the file's form is read here: which settings a grid varies, and how many, are the grid's own rules
  // (sweep/grid/config.js), checked with the plan and named by this key.
  if (!g.vary || typeof g.vary !== 'object' || Array.isArray(g.vary)) {
    throw new UsageError('grid.vary must name two settings or more, each with its values (batch_size: [2000, 5000])')
  }
  for (const [name, values] of Object.entries(g.vary)) {
    if (!Array.isArray(values) || values.some((v) => !['string', 'number'].includes(typeof v) || /,/.test(v))) {
      throw new UsageError(`grid.vary.${name} must list its values (${name}: [1, 2])`)
    }
  }
  const m = study.mixed
  if (m && (m.query_rate === undefined || m.queries === undefined || m.slo === undefined)) {
    throw new UsageError('mixed: needs queries:, query_rate: and slo: (find-capacity --workload mixed)')
  }
  if (m) queriesFile(m.queries, 'mixed.queries')
  const s = study.sustained
  return {
    cluster,
    shapes: nodes,
    ...(targets ? { targets } : {}),
    ...keepTablesOf(study, Boolean(targets)),
    // The grid's and the mixed search's own keys are handed to their builders as given (sweep/grid/config.js,
    // sweep/capacity-config.js), which check them with the plan, before any cluster starts, each in its own words
    // named by this file's key: one rule a key. Only their form is read here.
    grid: { vary: Object.entries(g.vary).map(([name, values]) => ({ name, values: values.map(String) })),
      repeat: g.repeat === undefined ? 3 : value(g.repeat, 'grid.repeat'),
      duration: durationText(g.duration ?? '10s', 'grid.duration'),
      warmup: g.warmup === undefined ? null : durationText(g.warmup, 'grid.warmup', { zeroIsNone: true }),
      prefill: prefillOf(g.prefill, 'grid.prefill'), slo: optional(g.slo, 'grid.slo'),
      args: strings(g.args, 'grid.args'), precision: optional(g.precision, 'grid.precision'),
      budget: optional(g.budget, 'grid.budget') },
    mixed: m ? { queries: text(m.queries, 'mixed.queries'), queryRate: value(m.query_rate, 'mixed.query_rate'),
      slo: value(m.slo, 'mixed.slo'), duration: value(m.duration ?? '10s', 'mixed.duration'),
      warmup: optional(m.warmup, 'mixed.warmup'), start: optional(m.start, 'mixed.start'),
      edgeRepeat: m.edge_repeat === undefined ? 3 : value(m.edge_repeat, 'mixed.edge_repeat'),
      maxSteps: optional(m.max_steps, 'mixed.max_steps'), args: strings(m.args, 'mixed.args') } : null,
    sustained: s ? { duration: durationText(s.duration ?? '10m', 'sustained.duration'),
      prefill: prefillOf(s.prefill, 'sustained.prefill'), args: strings(s.args, 'sustained.args') } : null
  }
}

/**
 * The clusters of a study's targets: (each one a shape, in the order given): clusters the tool does not start, brought
 * up and down by the user's own commands (up:, down:, run by the shell in the study file's folder), reached at their
 * hosts (http:// or https://, certificates verified), as `user` (the password from CRATE_PASSWORD, never the file).
 */
function targetsOf (list) {
  if (!Array.isArray(list) || list.length === 0) throw new UsageError('targets must list one cluster or more')
  const targets = list.map((t, i) => targetOf(t, `targets[${i}]`))
  if (new Set(targets.map((t) => t.name)).size !== targets.length) {
    throw new UsageError('targets: two have the same name')
  }
  return targets
}

/** One cluster of the user's own, under `key` (targets[0], contenders[1]): its keys checked. */
function targetOf (t, key) {
  if (!t || typeof t !== 'object' || Array.isArray(t)) throw new UsageError(`${key} must be a mapping of keys`)
  for (const k of Object.keys(t)) {
    if (!KEYS.target.includes(k)) {
      throw new UsageError(`unknown key ${key}.${k} in the study file (known under a target: ` +
        `${KEYS.target.join(', ')})`)
    }
  }
  const name = text(t.name ?? '', `${key}.name`)
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/.test(name)) {
    throw new UsageError(`${key}.name must be letters, digits, _, . and - (a folder of the study is named by it; ` +
      `got ${JSON.stringify(name)})`)
  }
  const hosts = [].concat(t.hosts ?? []).map((h) => text(h, `${key}.hosts`))
  if (hosts.length === 0) throw new UsageError(`${key}.hosts must list the cluster's HTTP address or more`)
  for (const h of hosts) {
    let url = null
    try {
      url = new URL(h)
    } catch { /* named below */ }
    if (!url || !['http:', 'https:'].includes(url.protocol) || url.username || url.password || url.pathname !== '/') {
      throw new UsageError(`${key}.hosts: '${h}' is no http:// or https:// address of a node (no user or password ` +
        'in it: the user is user:, the password CRATE_PASSWORD)')
    }
  }
  const command = (value, k) => (value === undefined ? null : text(value, `${key}.${k}`))
  return { name, hosts, nodes: t.nodes === undefined ? hosts.length : wholeNumber(t.nodes, `${key}.nodes`,
    { max: 1000 }), user: t.user === undefined ? null : text(t.user, `${key}.user`),
  pgPort: t.pg_port === undefined ? null : wholeNumber(t.pg_port, `${key}.pg_port`, { max: 65_535 }),
  up: command(t.up, 'up'), down: command(t.down, 'down'),
  wait: durationText(t.wait ?? '10m', `${key}.wait`) }
}

/** The clusters of the user's own a study names: its targets, or its contenders that are targets. */
const ownClustersOf = (study) => study.targets ?? (study.contenders || []).map((c) => c.target).filter(Boolean)

/**
 * The targets' up: and down: run with the tool's user and environment: a file that names them must be one only that
 * user (or root) could have written, in a folder the same (a stranger's study.yml in /tmp is refused, one line).
 */
function trustHooks (file, targets) {
  if (targets.some((t) => t.up || t.down)) checkTrustedSource(file, { what: 'up:/down: commands' })
}

/** The query file of `key`: a file there is (its queries are read by the mixed search, after the grid). */
function queriesFile (value, key) {
  const file = text(value, key)
  let stat
  try {
    stat = fs.statSync(file)
  } catch {
    throw new UsageError(`${key}: ${file} does not exist`)
  }
  if (!stat.isFile()) throw new UsageError(`${key}: ${file} is not a file`)
}

/**
 * A cluster of the file checked as the provisioner checks one before it starts (`nodes` its largest shape): the
 * distribution (a version of a release, a tarball that is there, a SHA-256), the heap, the settings, the port.
 */
function checkCluster (cluster, nodes, key) {
  underKey(`${key}.sha256`, () => checkSha256(cluster.sha256))
  if (cluster.version !== null) underKey(`${key}.version`, () => parseVersion(cluster.version))
  if (cluster.tarball !== null && !/^https?:\/\//.test(cluster.tarball)) {
    let stat = null
    try {
      stat = fs.statSync(cluster.tarball)
    } catch { /* named below */ }
    if (!stat || !stat.isFile()) throw new UsageError(`${key}.tarball: ${cluster.tarball} is no file`)
  }
  underKey(key, () => clusterSpec({ ...cluster, nodes, settings: cluster.settings }))
}

/** The distribution and shape of one cluster: `c` from the file, `key` where it stands in it. */
function clusterOf (c, key) {
  if ((c.version === undefined) === (c.tarball === undefined)) {
    throw new UsageError(`${key}: give the distribution: version: X.Y.Z or tarball: PATH|URL (one of them)`)
  }
  if (c.settings !== undefined && (typeof c.settings !== 'object' || Array.isArray(c.settings) || !c.settings)) {
    throw new UsageError(`${key}.settings must be a mapping of CrateDB settings (key: value)`)
  }
  return { version: c.version === undefined ? null : text(c.version, `${key}.version`),
    tarball: c.tarball === undefined ? null : text(c.tarball, `${key}.tarball`),
    sha256: c.sha256 === undefined ? null : text(c.sha256, `${key}.sha256`),
    heap: c.heap === undefined ? '1g' : text(c.heap, `${key}.heap`),
    settings: Object.entries(c.settings || {}).map(([k, v]) => `${k}=${v}`),
    httpPort: c.http_port === undefined ? undefined : Number(c.http_port),
    runAs: c.run_as === undefined ? undefined : text(c.run_as, `${key}.run_as`) }
}

/**
 * A comparison: contenders (each a cluster: name, distribution, nodes, heap, settings), forks (each fork starts each
 * contender fresh, in alternating order) and the run (ingest or query, with the benchmark's options).
 */
function contendersOf (study) {
  for (const key of ['cluster', 'grid', 'mixed', 'sustained']) {
    if (study[key] !== undefined) {
      throw new UsageError(`${key}: is a sizing's; a comparison has contenders:, forks:, run:`)
    }
  }
  if (!Array.isArray(study.contenders) || study.contenders.length < 2) {
    throw new UsageError('contenders: must list two clusters or more (each with name:, and version: or tarball:, or ' +
      'hosts: for a cluster of your own)')
  }
  // A contender with hosts: is a cluster of the user's own (a target); all or none are (a comparison of a cluster
  // started here against one on machines of their own would measure the machines as much as the clusters).
  const own = study.contenders.map((c) => Boolean(c && typeof c === 'object' && c.hosts !== undefined))
  if (own.some(Boolean) && !own.every(Boolean)) {
    throw new UsageError('contenders: give every one hosts: (clusters of your own) or none (clusters the tool starts ' +
      'here): one of each would compare this machine with other machines as much as the clusters')
  }
  if (own[0] && study.duet) {
    throw new UsageError('duet: runs the contenders at once on this machine so that its moment falls on each alike; ' +
      'clusters on machines of their own share no moment: leave duet: out (paired forks, each contender in turn)')
  }
  const contenders = study.contenders.map((c, i) => {
    if (own[i]) {
      const target = targetOf(c, `contenders[${i}]`)
      return { name: target.name, nodes: target.nodes, target }
    }
    checkKeys(c, 'contender')
    const name = c.name === undefined ? null : text(c.name, `contenders[${i}].name`)
    if (!name || !/^[A-Za-z0-9_.-]+$/.test(name)) {
      throw new UsageError(`contenders[${i}].name must be a name of letters, digits, _ . - (got ` +
        `${JSON.stringify(c.name)})`)
    }
    const nodes = c.nodes === undefined ? 1 : wholeNumber(c.nodes, `contenders[${i}].nodes`, { max: MAX_NODES })
    const cluster = clusterOf(c, `contenders[${i}]`)
    checkCluster(cluster, nodes, `contenders[${i}]`)
    return { name, nodes, ...cluster }
  })
  if (new Set(contenders.map((c) => c.name)).size !== contenders.length) {
    throw new UsageError('contenders: two have the same name')
  }
  const precision = precisionOf(study.precision, 'precision')
  const cpuPrecision = precisionOf(study.cpu_precision, 'cpu_precision')
  if (cpuPrecision !== null && precision === null) {
    throw new UsageError('cpu_precision: goes with precision: (the throughput ratio\'s, which every comparison ' +
      'judges first)')
  }
  const budget = budgetOf(study.budget, 'budget')
  // Forks added until a precision or a budget: forks: is then the least, three by default (a first interval).
  const sequential = precision !== null || budget !== null
  const forks = study.forks === undefined ? (sequential ? 3 : 5)
    : wholeNumber(study.forks, 'forks', { min: sequential ? 2 : 1, max: MAX_FORKS })
  const run = study.run || {}
  checkKeys(run, 'run')
  const workload = run.workload === undefined ? 'ingest' : text(run.workload, 'run.workload')
  if (!['ingest', 'query'].includes(workload)) {
    throw new UsageError(`run.workload must be ingest or query (got '${workload}')`)
  }
  // run.lengthen: false keeps a precision's runs at the --duration given (kept only when given: a study folder of a
  // file without it resumes as before).
  const lengthen = run.lengthen === undefined ? {} : { lengthen: flagOf(run.lengthen, 'run.lengthen') }
  return { contenders, forks, run: { workload, args: strings(run.args, 'run.args'), ...lengthen },
    duet: flagOf(study.duet, 'duet'),
    precision, ...(cpuPrecision !== null ? { cpu_precision: cpuPrecision } : {}), budget,
    calibrate: flagOf(study.calibrate, 'calibrate'), ...keepTablesOf(study, own[0]) }
}

/**
 * keep_tables: true keeps the tables a study made in clusters of the user's own (each named with its DROP statement);
 * kept only when given, so that a study folder of a file without it resumes as before. Clusters the tool starts
 * are removed whole: it goes with targets only.
 */
function keepTablesOf (study, own) {
  if (study.keep_tables === undefined) return {}
  if (!own) {
    throw new UsageError('keep_tables: goes with clusters of your own (targets:, or contenders with hosts:); a ' +
      'cluster the tool starts is removed whole')
  }
  return { keep_tables: flagOf(study.keep_tables, 'keep_tables') }
}

module.exports = { readStudy, ownClustersOf, KEYS }
