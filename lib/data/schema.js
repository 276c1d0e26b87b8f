'use strict'

const { UsageError } = require('../base/errors')

// Unquoted CrateDB identifiers fold to lower case; accepting only this shape means the name the
// user typed is the name they will query, and nothing else can reach the SQL text.
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,254}$/
const RESERVED_SCHEMAS = new Set(['sys', 'information_schema', 'pg_catalog', 'blob'])

function parseTableName (text, flag = 'table') {
  const parts = String(text).split('.')
  if (parts.length > 2 || !parts.every((p) => IDENTIFIER.test(p))) {
    throw new UsageError(
      `--${flag} '${text}' is not a valid table name: use [schema.]table with lower-case letters, digits and _`
    )
  }
  const [schema, table] = parts.length === 2 ? parts : ['doc', parts[0]]
  if (RESERVED_SCHEMAS.has(schema)) throw new UsageError(`--${flag} '${text}': schema '${schema}' is a system schema`)
  return { schema, table, sql: `"${schema}"."${table}"`, display: `${schema}.${table}` }
}

// number_of_replicas is a number or an auto-expand range such as '0-1' or '1-all'.
function parseReplicas (value) {
  const text = String(value).trim()
  if (!/^(\d{1,3})(-(\d{1,3}|all))?$/.test(text)) {
    throw new UsageError(`--replicas must be a number or a range such as 0-1 or 1-all (got '${text}')`)
  }
  const [low, high] = text.split('-')
  if (high !== undefined && high !== 'all' && Number(high) < Number(low)) {
    throw new UsageError(`--replicas range '${text}' has its upper bound below its lower bound`)
  }
  return text
}

function quoteIdentifier (name) {
  if (!IDENTIFIER.test(name)) throw new Error(`refusing to quote identifier '${name}'`)
  return `"${name}"`
}

/**
 * CREATE TABLE IF NOT EXISTS for a column list. DDL takes no parameters, so every piece that
 * reaches this text is validated first: identifiers above, shards as an integer, replicas by pattern.
 */
function createTableSql ({ table, columns, shards, replicas, extraSettings = {} }) {
  if (!Number.isSafeInteger(shards) || shards < 1) throw new Error(`invalid shard count ${shards}`)
  const settings = { number_of_replicas: `'${parseReplicas(replicas)}'`, ...extraSettings }
  const withClause = Object.entries(settings).map(([k, v]) => `${k} = ${v}`).join(', ')
  return `CREATE TABLE IF NOT EXISTS ${table.sql} (\n  ${columns.join(',\n  ')}\n) CLUSTERED INTO ${shards} SHARDS ` +
    `WITH (${withClause})`
}

function insertSql (table, columnNames) {
  const columns = columnNames.map(quoteIdentifier).join(', ')
  const placeholders = columnNames.map(() => '?').join(', ')
  return `INSERT INTO ${table.sql} (${columns}) VALUES (${placeholders})`
}

module.exports = { parseTableName, parseReplicas, quoteIdentifier, createTableSql, insertSql }
