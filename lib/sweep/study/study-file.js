'use strict'

const { UsageError } = require('../../base/errors')
const { readStudyFile } = require('../../base/files')

// A study file (YAML): what to start for each cluster shape, and what to run on it. Every key is checked before
// anything starts: an unknown one, a missing distribution, a shape of 0 nodes is one line naming the key (exit 2).

const KEYS = {
  '': ['cluster', 'grid', 'mixed', 'sustained', 'contenders', 'forks', 'run'],
  contender: ['name', 'version', 'tarball', 'sha256', 'nodes', 'heap', 'settings', 'http_port', 'run_as'],
  run: ['workload', 'args'],
  cluster: ['version', 'tarball', 'sha256', 'nodes', 'heap', 'settings', 'http_port', 'run_as'],
  grid: ['vary', 'repeat', 'duration', 'warmup', 'prefill', 'slo', 'args'],
  mixed: ['queries', 'query_rate', 'slo', 'duration', 'warmup', 'start', 'edge_repeat', 'max_steps', 'args'],
  sustained: ['duration', 'prefill', 'args']
}
const DIMENSIONS = ['batch_size', 'concurrent_requests', 'processes', 'shards', 'replicas']

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

const text = (value, key) => {
  if (typeof value !== 'string' && typeof value !== 'number') throw new UsageError(`${key} must be a value`)
  return String(value)
}
const strings = (value, key) => {
  if (value === undefined) return []
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' && typeof v !== 'number')) {
    throw new UsageError(`${key} must be a list of benchmark options (e.g. [--processes, 2])`)
  }
  return value.map(String)
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
  if (study.contenders !== undefined) return contendersOf(study)
  for (const key of ['forks', 'run']) {
    if (study[key] !== undefined) throw new UsageError(`${key}: goes with contenders: (a comparison)`)
  }
  if (!study.cluster) throw new UsageError('the study file needs cluster: (what to start for each shape)')
  if (!study.grid) throw new UsageError('the study file needs grid: (the settings to measure on each shape)')
  for (const section of ['cluster', 'grid', 'mixed', 'sustained']) {
    if (study[section]) checkKeys(study[section], section)
  }
  const c = study.cluster
  const cluster = clusterOf(c, 'cluster')
  const nodes = [].concat(c.nodes ?? 1)
  if (nodes.length === 0 || nodes.some((n) => !Number.isInteger(n) || n < 1)) {
    throw new UsageError(`cluster.nodes must be a list of node counts of at least 1 (got ${JSON.stringify(c.nodes)})`)
  }
  if (new Set(nodes).size !== nodes.length) throw new UsageError('cluster.nodes names a node count twice')
  const g = study.grid
  if (!g.vary || typeof g.vary !== 'object' || Array.isArray(g.vary) || Object.keys(g.vary).length < 2) {
    throw new UsageError('grid.vary must name two settings or more, each with its values (batch_size: [2000, 5000])')
  }
  for (const [name, values] of Object.entries(g.vary)) {
    if (!DIMENSIONS.includes(name)) {
      throw new UsageError(`grid.vary.${name} is no setting a grid varies (${DIMENSIONS.join(', ')})`)
    }
    if (!Array.isArray(values) || values.length < 2) {
      throw new UsageError(`grid.vary.${name} must list two values or more`)
    }
  }
  if (study.mixed && (study.mixed.query_rate === undefined || study.mixed.queries === undefined ||
    study.mixed.slo === undefined)) {
    throw new UsageError('mixed: needs queries:, query_rate: and slo: (find-capacity --workload mixed)')
  }
  return {
    cluster,
    shapes: nodes,
    grid: { vary: Object.entries(g.vary).map(([name, values]) => `${name}=${values.join(',')}`),
      repeat: g.repeat === undefined ? 3 : Number(g.repeat), duration: text(g.duration ?? '10s', 'grid.duration'),
      warmup: g.warmup === undefined ? null : text(g.warmup, 'grid.warmup'),
      prefill: g.prefill === undefined ? null : Number(g.prefill), slo: g.slo === undefined ? null : text(g.slo,
        'grid.slo'), args: strings(g.args, 'grid.args') },
    mixed: study.mixed ? { queries: text(study.mixed.queries, 'mixed.queries'),
      queryRate: Number(study.mixed.query_rate), slo: text(study.mixed.slo, 'mixed.slo'),
      duration: text(study.mixed.duration ?? '10s', 'mixed.duration'),
      warmup: study.mixed.warmup === undefined ? null : text(study.mixed.warmup, 'mixed.warmup'),
      start: study.mixed.start === undefined ? null : Number(study.mixed.start),
      edgeRepeat: study.mixed.edge_repeat === undefined ? 3 : Number(study.mixed.edge_repeat),
      maxSteps: study.mixed.max_steps === undefined ? null : Number(study.mixed.max_steps),
      args: strings(study.mixed.args, 'mixed.args') } : null,
    sustained: study.sustained ? { duration: text(study.sustained.duration ?? '10m', 'sustained.duration'),
      prefill: study.sustained.prefill === undefined ? null : Number(study.sustained.prefill),
      args: strings(study.sustained.args, 'sustained.args') } : null
  }
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
    throw new UsageError('contenders: must list two clusters or more (each with name:, and version: or tarball:)')
  }
  const contenders = study.contenders.map((c, i) => {
    checkKeys(c, 'contender')
    const name = c.name === undefined ? null : text(c.name, `contenders[${i}].name`)
    if (!name || !/^[A-Za-z0-9_.-]+$/.test(name)) {
      throw new UsageError(`contenders[${i}].name must be a name of letters, digits, _ . - (got ` +
        `${JSON.stringify(c.name)})`)
    }
    const nodes = c.nodes === undefined ? 1 : c.nodes
    if (!Number.isInteger(nodes) || nodes < 1) {
      throw new UsageError(`contenders[${i}].nodes must be a node count of at least 1 (got ` +
        `${JSON.stringify(c.nodes)})`)
    }
    return { name, nodes, ...clusterOf(c, `contenders[${i}]`) }
  })
  if (new Set(contenders.map((c) => c.name)).size !== contenders.length) {
    throw new UsageError('contenders: two have the same name')
  }
  const forks = study.forks === undefined ? 5 : study.forks
  if (!Number.isInteger(forks) || forks < 1) {
    throw new UsageError(`forks must be a whole number of at least 1 (got ${JSON.stringify(study.forks)})`)
  }
  const run = study.run || {}
  checkKeys(run, 'run')
  const workload = run.workload === undefined ? 'ingest' : text(run.workload, 'run.workload')
  if (!['ingest', 'query'].includes(workload)) {
    throw new UsageError(`run.workload must be ingest or query (got '${workload}')`)
  }
  return { contenders, forks, run: { workload, args: strings(run.args, 'run.args') } }
}

module.exports = { readStudy, KEYS }
