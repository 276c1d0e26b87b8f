'use strict'

// A column of a multi-row insert as one PostgreSQL array (--pg_insert unnest): its type from its values, its values
// as an array literal in text format.

/** The array type of a column for UNNEST, from the first row's value (the request holds values, not a schema). */
function arrayTypeOf (value) {
  if (value !== null && typeof value === 'object') return 'object'
  if (typeof value === 'number') return Number.isInteger(value) ? 'bigint' : 'double precision'
  if (typeof value === 'boolean') return 'boolean'
  return 'text'
}

/** A column's values as a PostgreSQL array literal in text format: {"…","…"}, objects as their JSON. */
function arrayText (values) {
  return `{${values.map((v) => {
    if (v === null || v === undefined) return 'NULL'
    const text = typeof v === 'object' ? JSON.stringify(v) : String(v)
    return `"${text.replace(/["\\]/g, (c) => `\\${c}`)}"`
  }).join(',')}}`
}

module.exports = { arrayTypeOf, arrayText }
