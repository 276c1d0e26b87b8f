'use strict'

// The watchdog of a cluster started for one benchmark or study: a small process of its own that holds a pipe from the
// tool and, when the pipe ends (the tool finished, or was killed outright, SIGKILL included), stops whatever of the
// cluster still runs, as `cluster stop` would. Its nodes never outlive the tool that started them.
//   node lib/provision/watchdog.js DIR     (stdin: the pipe the tool holds)

const { stopNodes } = require('./stop')

function main ([dir]) {
  process.stdin.on('error', () => {})
  process.stdin.resume()
  process.stdin.on('end', () => {
    stopNodes(dir, { remove: true, quietIfGone: true }).catch(() => {}).finally(() => process.exit(0))
  })
  // A watchdog stops only when its tool is gone, never on a signal meant for the tool's process group.
  for (const signal of ['SIGINT', 'SIGHUP']) process.on(signal, () => {})
}

if (require.main === module) main(process.argv.slice(2))

module.exports = { main }
