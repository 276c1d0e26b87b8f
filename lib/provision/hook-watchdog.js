'use strict'

// The watchdog of a user's command (a target's up: or down:): a small process of its own that holds a pipe from the
// tool. When the pipe ends without LET_GO (the tool was killed outright while the command ran, SIGKILL included), it
// ends the command's process group: SIGTERM, then SIGKILL after the grace. A command that ended in time is let go:
// what it left running in the background (the user's server) is not the tool's to end.
//   node lib/provision/hook-watchdog.js PGID GRACE_MS   (stdin: the pipe the tool holds)

const fs = require('node:fs')
const { statFields } = require('../base/processes')

const LET_GO = 'let go\n'
const POLL_MS = 200

/**
 * Whether any process of group `pgid` still runs. From /proc where there is one: a member that ended and is not yet
 * reaped by whoever inherited it (a zombie) runs no more, though a signal 0 to the group still finds it. Elsewhere, a
 * signal 0 to the group.
 */
function groupRuns (pgid, { procRoot = '/proc' } = {}) {
  let names
  try {
    names = fs.readdirSync(procRoot)
  } catch {
    names = null
  }
  if (names === null) {
    try {
      process.kill(-pgid, 0)
      return true
    } catch (error) {
      return error.code === 'EPERM'
    }
  }
  return names.some((name) => {
    if (!/^[0-9]+$/.test(name)) return false
    const fields = statFields(name, procRoot)
    return Boolean(fields) && Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X'
  })
}

function signalGroup (pgid, name) {
  try {
    process.kill(-pgid, name)
  } catch {
    // Gone.
  }
}

/** Ends group `pgid`: SIGTERM, then SIGKILL once `graceMs` have passed with any of it left; then `done()`. */
function endGroup (pgid, graceMs, done) {
  signalGroup(pgid, 'SIGTERM')
  const deadline = Date.now() + graceMs
  const poll = setInterval(() => {
    if (groupRuns(pgid) && Date.now() < deadline) return
    clearInterval(poll)
    if (groupRuns(pgid)) signalGroup(pgid, 'SIGKILL')
    done()
  }, POLL_MS)
}

function main (argv) {
  const pgid = Number(argv[0])
  const graceMs = Number(argv[1])
  if (!Number.isSafeInteger(pgid) || pgid <= 1 || !Number.isFinite(graceMs)) process.exit(2)
  let heard = ''
  process.stdin.on('error', () => {})
  process.stdin.setEncoding('utf8')
  process.stdin.on('data', (text) => { heard += text })
  process.stdin.on('end', () => {
    if (heard.includes(LET_GO)) process.exit(0)
    endGroup(pgid, graceMs, () => process.exit(0))
  })
  process.stdin.resume()
  // It ends the command only when its tool is gone, never on a signal meant for the tool's process group.
  for (const signal of ['SIGINT', 'SIGHUP']) process.on(signal, () => {})
}

if (require.main === module) main(process.argv.slice(2))

module.exports = { LET_GO, endGroup, groupRuns, signalGroup }
