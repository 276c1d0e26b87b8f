'use strict'

// Passwords never reach the terminal, a log, a report or a chart. Two nets: credentials in a host (user:password@)
// are masked by their shape wherever a host may be shown, and every password the tool has parsed is registered
// here and replaced wherever it appears, in any form a message might carry it (raw, URL-encoded, JSON-escaped).

const secrets = new Set()

// A password of one or two characters would mask letters of ordinary words; it is masked by shape only.
const MIN_REGISTERED_LENGTH = 3

function addSecret (value) {
  if (value === undefined || value === null) return
  const text = String(value)
  if (text.length < MIN_REGISTERED_LENGTH) return
  secrets.add(text)
  let encoded = text
  try {
    encoded = decodeURIComponent(text)
  } catch { /* not URL-encoded */ }
  for (const form of [encoded, encodeURIComponent(text), JSON.stringify(text).slice(1, -1)]) {
    if (form.length >= MIN_REGISTERED_LENGTH) secrets.add(form)
  }
}

// [scheme://]user:password@host: the password may hold '/', ':' or '@' (the host never holds '@'), so it runs to
// the last '@' before the end of the token. A token ends at white space, a quote or a comma.
const USERINFO = /((?:[a-z][a-z0-9+.-]*:\/\/)?[^\s:/@'",=]*):[^\s'",]*@(?=[^\s@'",]+)/gi

/** Credentials in any host in `text` replaced by user:***@. */
function maskCredentials (text) {
  return String(text).replace(USERINFO, '$1:***@')
}

/** `text` with every registered password, and every user:password@ in it, masked. */
function redact (text) {
  let out = maskCredentials(text)
  // Longest first, so that a password that contains another is masked whole.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(secret).join('***')
  return out
}

module.exports = { addSecret, maskCredentials, redact }
