'use strict'

const fs = require('node:fs')
const yaml = require('js-yaml')
const { UsageError } = require('./errors')
const { compileArgs } = require('./generators/query-args')

const RATIO_TOLERANCE = 1e-9

function shortName (query) {
  const text = query.replace(/\s+/g, ' ').trim()
  return text.length > 40 ? `${text.slice(0, 39)}…` : text
}

/**
 * Reads and validates a queries.yml: a list of {name?, query, ratio, args?}. Ratios must be
 * positive and sum to 1 within 1e-9 (0.7 + 0.2 + 0.1 is 0.9999999999999999 in floating point).
 */
function loadQueryConfig (file, ctx) {
  let text
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (error) {
    throw new UsageError(`--queries_config '${file}' cannot be read: ${error.code === 'ENOENT' ? 'no such file' : error.message}`)
  }
  let doc
  try {
    doc = yaml.load(text, { filename: file })
  } catch (error) {
    const line = error.mark ? ` at line ${error.mark.line + 1}, column ${error.mark.column + 1}` : ''
    throw new UsageError(`--queries_config '${file}' is not valid YAML${line}: ${error.reason || error.message}`)
  }
  if (!Array.isArray(doc) || doc.length === 0) {
    throw new UsageError(`--queries_config '${file}' must be a non-empty list of entries with query and ratio`)
  }
  const names = new Set()
  const queries = doc.map((entry, i) => {
    const where = `${file}: entry ${i + 1}`
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) throw new UsageError(`${where} is not a mapping with query and ratio`)
    const unknown = Object.keys(entry).filter((k) => !['name', 'query', 'ratio', 'args'].includes(k))
    if (unknown.length) throw new UsageError(`${where} has unknown key '${unknown[0]}' (allowed: name, query, ratio, args)`)
    if (typeof entry.query !== 'string' || !entry.query.trim()) throw new UsageError(`${where} has no query`)
    if (typeof entry.ratio !== 'number' || !Number.isFinite(entry.ratio) || entry.ratio <= 0) {
      throw new UsageError(`${where}: ratio must be a positive number (got ${JSON.stringify(entry.ratio)})`)
    }
    let name = entry.name === undefined ? shortName(entry.query) : String(entry.name)
    for (let n = 2; names.has(name); n++) name = `${entry.name ?? shortName(entry.query)} #${n}`
    names.add(name)
    compileArgs(entry.args, ctx, `${where} (${name})`)
    return { name, query: entry.query.trim(), ratio: entry.ratio, args: entry.args ?? null }
  })
  const sum = queries.reduce((s, q) => s + q.ratio, 0)
  if (Math.abs(sum - 1) > RATIO_TOLERANCE) {
    throw new UsageError(`--queries_config '${file}': ratios sum to ${sum}, not 1`)
  }
  return queries
}

module.exports = { loadQueryConfig, shortName }
