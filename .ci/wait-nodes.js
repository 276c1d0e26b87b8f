'use strict'

// node .ci/wait-nodes.js SINCE_TICKS [SECONDS]: .ci/run's last step. The CrateDB nodes the tests started end by
// their own watchdogs once the tests are gone, seconds after them: CI returns only once every node of this tool
// (a CrateDB JVM of a crate-bench-* cluster) started since SINCE_TICKS (the script's own start time, in clock ticks
// after boot as /proc/PID/stat gives it) is gone, waiting at most SECONDS (default 60). It ends none of them: those
// left are named, exit 1. PROC_ROOT stands in for /proc in its test.

const fs = require('node:fs')
const { processStartTime } = require('../lib/base/processes')
const { CRATE_MAIN_CLASS } = require('../lib/base/listeners')

const procRoot = process.env.PROC_ROOT || '/proc'

/** The nodes of this tool started since `since`: [{ pid, cluster }]. */
function nodesSince (since) {
  const nodes = []
  for (const pid of fs.readdirSync(procRoot).filter((p) => /^[0-9]+$/.test(p))) {
    let args
    try {
      args = fs.readFileSync(`${procRoot}/${pid}/cmdline`, 'utf8').split('\0')
    } catch {
      continue
    }
    const cluster = args.find((a) => a.startsWith('-Ccluster.name=crate-bench-'))
    const started = processStartTime(pid, { procRoot })
    if (args.includes(CRATE_MAIN_CLASS) && cluster && started !== null && Number(started) >= since) {
      nodes.push({ pid: Number(pid), cluster: cluster.slice('-Ccluster.name='.length) })
    }
  }
  return nodes
}

async function main ([sinceText, secondsText = '60']) {
  const since = Number(sinceText)
  const deadline = Date.now() + Number(secondsText) * 1000
  let left = nodesSince(since)
  while (left.length && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250))
    left = nodesSince(since)
  }
  if (left.length) {
    console.error(`CrateDB nodes still running after ${secondsText} s: ${left.map((n) => `${n.cluster} (pid ` +
      `${n.pid})`).join(', ')}`)
    return 1
  }
  return 0
}

main(process.argv.slice(2)).then((code) => { process.exitCode = code })
