'use strict'

// What a message of the wire protocol carries, read or written at the byte level: a value in the text format, a
// CommandComplete's count, whether it says one row stored, and the MD5 password answer.

// A row of a batch stored: CommandComplete "INSERT 0 1".
const INSERT_OK = Buffer.from('INSERT 0 1\0')

/** A value as the text format carries it: objects as JSON (OBJECT columns), everything else as its string. */
function textValue (value) {
  if (value === null || value === undefined) return null
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

/** Whether the CommandComplete from `at` to `end` says INSERT 0 1. */
function isInsertOk (data, at, end) {
  if (end - at !== 5 + INSERT_OK.length) return false
  for (let i = 0; i < INSERT_OK.length; i++) if (data[at + 5 + i] !== INSERT_OK[i]) return false
  return true
}

/** "INSERT 0 1" → 1, "INSERT 0 -3" → -3, "SELECT 5" → 5. */
function commandCount (text) {
  const match = /(-?\d+)$/.exec(text || '')
  return match ? Number(match[1]) : null
}

function md5Password (user, password, salt) {
  const crypto = require('node:crypto')
  const inner = crypto.createHash('md5').update(password + user).digest('hex')
  return `md5${crypto.createHash('md5').update(Buffer.concat([Buffer.from(inner), salt])).digest('hex')}`
}

module.exports = { textValue, isInsertOk, commandCount, md5Password }
