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

/**
 * How many arguments a statement takes: its ? placeholders, or the highest $n (a $n may stand twice), outside quoted
 * text and identifiers.
 */
function parameterCount (stmt) {
  let questions = 0
  let highest = 0
  let quote = null
  for (let i = 0; i < stmt.length; i++) {
    const c = stmt[i]
    if (quote) {
      if (c === quote) quote = null
    } else if (c === "'" || c === '"') {
      quote = c
    } else if (c === '?') {
      questions++
    } else if (c === '$') {
      const m = /^[0-9]+/.exec(stmt.slice(i + 1))
      if (m) highest = Math.max(highest, Number(m[0]))
    }
  }
  return questions || highest
}

module.exports = { withDollars, parameterCount }
