'use strict'

/**
 * A statement's ? placeholders (the HTTP endpoint's) as $1, $2 … (the PostgreSQL protocol's), outside quoted text
 * and identifiers.
 */
function withDollars (stmt) {
  let n = 0
  let quote = null
  let out = ''
  for (const c of stmt) {
    if (quote) {
      if (c === quote) quote = null
    } else if (c === "'" || c === '"') {
      quote = c
    } else if (c === '?') {
      out += `$${++n}`
      continue
    }
    out += c
  }
  return out
}

module.exports = { withDollars }
