'use strict'

// The watchdog of a cluster started for one benchmark or study: a small process of its own that holds a pipe from the
// tool and, when the pipe ends (the tool finished, or was killed outright, SIGKILL included), stops whatever of the
// cluster still runs, as `cluster stop` would. Its nodes never outlive the tool that started them.
//   node lib/provision/watchdog.js DIR             (stdin: the pipe the tool holds)
//   node lib/provision/watchdog.js DIR --pid PID   (cluster start --stop_with PID: until that process ends)

const { stopNodes } = require('./stop')
const { processRuns } = require('../base/processes')

// With --pid, the process it outlives not: polled this often (a CI script's $$, which holds no pipe to it).
const PID_POLL_MS = 1000

function main ([dir, flag, pid]) {
  const stop = () => stopNodes(dir, { remove: true, quietIfGone: true }).catch(() => {}).finally(() => process.exit(0))
  if (flag === '--pid') {
    const timer = setInterval(() => {
      if (processRuns(Number(pid))) return
      clearInterval(timer)
      stop()
    }, PID_POLL_MS)
  } else {
    process.stdin.on('error', () => {})
    process.stdin.resume()
    process.stdin.on('end', stop)
  }
  // A watchdog stops only when its tool is gone, never on a signal meant for the tool's process group.
  for (const signal of ['SIGINT', 'SIGHUP']) process.on(signal, () => {})
}

if (require.main === module) main(process.argv.slice(2))

module.exports = { main }
