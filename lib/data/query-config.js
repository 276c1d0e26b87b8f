'use strict'

const yaml = require('js-yaml')
const { parameterCount } = require('../base/placeholders')
const { UsageError } = require('../base/errors')
const { visible } = require('../base/format')
const { readRegularFile } = require('../base/files')
const { compileArgs } = require('./generators/query-args')

const RATIO_TOLERANCE = 1e-9
// A query mix is a few kilobytes; anything near these limits is not one.
const MAX_FILE_BYTES = 1024 * 1024
const MAX_VALUES = 100_000

function shortName (query) {
  const text = query.replace(/\s+/g, ' ').trim()
  return text.length > 40 ? `${text.slice(0, 39)}…` : text
}

/** Only a regular file of reasonable size: not /dev/zero, a FIFO, or a directory. */
function readConfigFile (file) {
  return readRegularFile(file, { what: '--queries_config', maxBytes: MAX_FILE_BYTES })
}

/**
 * YAML aliases let a small file stand for an enormous document (nine levels of ten aliases are a
 * billion values): count the values as anything that walks the document would meet them, and
 * stop at a budget instead of expanding it.
 */
function requireModestSize (doc, file) {
  let values = 0
  const walk = (node) => {
    if (++values > MAX_VALUES) {
      throw new UsageError(
        `--queries_config '${visible(file)}' expands to more than ${MAX_VALUES} values (YAML aliases?)`
      )
    }
    if (node && typeof node === 'object') for (const key of Object.keys(node)) walk(node[key])
  }
  walk(doc)
}

/**
 * Reads and validates a queries.yml: a list of {name?, query, ratio or weight, args?}. Each query's share of the mix
 * is its ratio or weight over the sum of them all: ratios that sum to 1 (within 1e-9: 0.7 + 0.2 + 0.1 is
 * 0.9999999999999999 in floating point) are taken as they are; weights as Locust writes them (2, 10, 9…), or ratios
 * that do not sum to 1, are normalised, and `queries.normalised` says how, for the run to say once.
 */
function loadQueryConfig (file, ctx) {
  const text = readConfigFile(file)
  let doc
  try {
    doc = yaml.load(text, { filename: file })
  } catch (error) {
    const line = error.mark ? ` at line ${error.mark.line + 1}, column ${error.mark.column + 1}` : ''
    throw new UsageError(
      `--queries_config '${visible(file)}' is not valid YAML${line}: ${error.reason || error.message}`
    )
  }
  requireModestSize(doc, file)
  if (!Array.isArray(doc) || doc.length === 0) {
    throw new UsageError(`--queries_config '${file}' must be a non-empty list of entries with query and ratio`)
  }
  const names = new Set()
  let shareKey = null
  const queries = doc.map((entry, i) => {
    const where = `${file}: entry ${i + 1}`
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) {
      throw new UsageError(`${where} is not a mapping with query and ratio`)
    }
    const unknown = Object.keys(entry).filter((k) => !['name', 'query', 'ratio', 'weight', 'args'].includes(k))
    if (unknown.length) {
      throw new UsageError(`${where} has unknown key '${unknown[0]}' (allowed: name, query, ratio or weight, args)`)
    }
    if (typeof entry.query !== 'string' || !entry.query.trim()) throw new UsageError(`${where} has no query`)
    requireKnownPlaceholders(entry.query, where)
    const key = shareKeyOf(entry, where)
    if (shareKey !== null && key !== shareKey) {
      throw new UsageError(`${where} has a ${key} where entry 1 has a ${shareKey}: give every entry the same one`)
    }
    shareKey = key
    const share = entry[key]
    if (typeof share !== 'number' || !Number.isFinite(share) || share <= 0) {
      throw new UsageError(`${where}: ${key} must be a positive number (got ${JSON.stringify(share)})`)
    }
    const given = visible(entry.name === undefined ? shortName(entry.query) : String(entry.name))
    let name = given
    for (let n = 2; names.has(name); n++) name = `${given} #${n}`
    names.add(name)
    compileArgs(entry.args, ctx, `${where} (${name})`)
    // Each ? (or $n) takes one argument: a count that differs would reach CrateDB as its error at every request.
    const placeholders = parameterCount(entry.query)
    const args = Array.isArray(entry.args) ? entry.args.length : 0
    if (placeholders !== args) {
      throw new UsageError(`${where} (${name}) takes ${placeholders} argument${placeholders === 1 ? '' : 's'} ` +
        `(its ? or $n placeholders) and has ${args}: give each placeholder one argument`)
    }
    return { name, query: entry.query.trim(), ratio: share, args: entry.args ?? null }
  })
  const sum = queries.reduce((s, q) => s + q.ratio, 0)
  if (shareKey === 'ratio' && Math.abs(sum - 1) <= RATIO_TOLERANCE) return queries
  const normalised = queries.map((q) => ({ ...q, ratio: q.ratio / sum }))
  const given = queries.map((q) => formatShare(q.ratio)).join(', ')
  normalised.normalised = `${shareKey === 'weight' ? 'weights' : 'ratios'} ${given} sum to ${formatShare(sum)}: ` +
    `each query runs its ${shareKey} / ${formatShare(sum)} of the mix (${normalised.map((q) =>
      formatShare(q.ratio, 3)).join(', ')})`
  return normalised
}

/** 'ratio' or 'weight': the key an entry gives its share of the mix with; exactly one of them. */
function shareKeyOf (entry, where) {
  if ('ratio' in entry && 'weight' in entry) throw new UsageError(`${where} has both ratio and weight: give one`)
  if (!('ratio' in entry) && !('weight' in entry)) throw new UsageError(`${where} has no ratio or weight`)
  return 'ratio' in entry ? 'ratio' : 'weight'
}

const formatShare = (value, digits = 6) => String(Number(value.toFixed(digits)))

// {table} in a query stands for --table, quoted as an identifier, so that one file serves any table.
const TABLE_PLACEHOLDER = '{table}'
// A table after FROM, JOIN, INTO or UPDATE; not a table function such as unnest(…).
const IDENTIFIER = '"?[a-z_][a-z0-9_]*"?'
const TABLE_REFERENCE = new RegExp(
  `\\b(?:FROM|JOIN|INTO|UPDATE)\\s+((?:${IDENTIFIER}\\.)?${IDENTIFIER})(?![a-z0-9_".]|\\s*\\()`,
  'gi'
)
const SYSTEM_SCHEMAS = /^"?(sys|information_schema|pg_catalog)"?\./i

// A {word} outside quoted text: a placeholder. An object literal ({a = 1}) has more than a word between its braces.
const PLACEHOLDER = /\{[A-Za-z_][A-Za-z0-9_]*\}/g

/** A misspelt placeholder would reach CrateDB as a ParsingException; it is named here instead. */
function requireKnownPlaceholders (query, where) {
  const unquoted = query.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"/g, '')
  const unknown = (unquoted.match(PLACEHOLDER) || []).find((p) => p !== TABLE_PLACEHOLDER)
  if (unknown) throw new UsageError(`${where} has an unknown placeholder ${unknown} (known: ${TABLE_PLACEHOLDER})`)
}

/** The queries with {table} bound to `table` ({ sql, display } as parseTableName makes it). */
function bindTable (queries, table) {
  return queries.map((q) => ({ ...q, query: q.query.split(TABLE_PLACEHOLDER).join(table.sql) }))
}

/**
 * The tables a query names other than `table`: on a shared cluster a query file written for doc.cpu would read
 * someone else's table while --table says otherwise. One warning per query.
 */
function foreignTableWarnings (queries, table) {
  const warnings = []
  for (const q of queries) {
    const others = new Set()
    for (const [, name] of q.query.matchAll(TABLE_REFERENCE)) {
      if (SYSTEM_SCHEMAS.test(name)) continue
      const parts = name.replace(/"/g, '').toLowerCase().split('.')
      const display = parts.length === 2 ? parts.join('.') : `doc.${parts[0]}`
      if (display !== table.display) others.add(display)
    }
    if (others.size > 0) {
      warnings.push(
        `warning: query '${q.name}' names ${[...others].join(', ')}, not --table ${table.display} ` +
        `(write {table} in the query file to follow --table)`
      )
    }
  }
  return warnings
}

module.exports = { loadQueryConfig, shortName, bindTable, foreignTableWarnings, TABLE_PLACEHOLDER }
