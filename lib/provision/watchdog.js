'use strict'

// The watchdog of a cluster the tool starts: a small process of its own that holds a pipe from the tool and, when the
// pipe ends (the tool finished, or was killed outright, SIGKILL included), stops whatever of the cluster still runs,
// as `cluster stop` would. A cluster meant to stay up (crate-bench cluster start) is let go once it is ready: the tool
// writes LET_GO before it closes the pipe, and the watchdog then ends at once, or, with --pid, watches that process
// instead and stops the cluster when it ends (cluster start --stop_with PID).
//   node lib/provision/watchdog.js DIR [--pid PID] [--keep]   (stdin: the pipe the tool holds)
// --keep: the nodes are stopped, their folders (logs, data) kept: a cluster in a folder the user gave.

const { stopNodes } = require('./stop')
const { processRuns } = require('../base/processes')

// With --pid, the process it does not outlive: polled this often (a CI script's $$, which holds no pipe to it).
const PID_POLL_MS = 1000
const LET_GO = 'let go\n'

function main (argv) {
  const dir = argv[0]
  const at = argv.indexOf('--pid')
  const pid = at > 0 ? Number(argv[at + 1]) : null
  const keep = argv.includes('--keep')
  let stopping = false
  const stop = () => {
    if (stopping) return
    stopping = true
    stopNodes(dir, { remove: !keep, quietIfGone: true }).catch(() => {}).finally(() => process.exit(0))
  }
  let heard = ''
  process.stdin.on('error', () => {})
  process.stdin.setEncoding('utf8')
  process.stdin.on('data', (text) => { heard += text })
  process.stdin.on('end', () => {
    if (!heard.includes(LET_GO)) return stop()
    if (!pid) return process.exit(0)
    setInterval(() => {
      if (!processRuns(pid)) stop()
    }, PID_POLL_MS)
  })
  process.stdin.resume()
  // A watchdog stops only when its tool is gone, never on a signal meant for the tool's process group.
  for (const signal of ['SIGINT', 'SIGHUP']) process.on(signal, () => {})
}

if (require.main === module) main(process.argv.slice(2))

module.exports = { main, LET_GO }
