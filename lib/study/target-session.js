'use strict'

const path = require('node:path')
const { runCommand, waitForTarget, recordTarget, nodesOf } = require('../provision/external')
const { replaceFile } = require('../provision/owned-paths')
const { parseDuration } = require('../base/values')

// A target (a cluster of the user's own) held for a part of a study: a sizing's shape or a comparison's fork. Its up:
// command, the wait until it answers with every node, its record from sys.nodes; then the part, told after each of its
// runs whether a node left the cluster; then its down: command, however the part ended. Nothing of it runs here.

/**
 * `use({ record, lost })` with `target` up and recorded (into `recordFile`); its down: after, always. `lost(part)`:
 * the why of a part during which a node left the cluster (each named on `log`), or null. Returns what `use` returns,
 * or { failed, unavailable, why } (its up: failed, or it was not reachable) or { interrupted }.
 */
async function withTarget (target, { dir, cwd, recordFile, env, signals, log, head }, use) {
  const waitMs = parseDuration(target.wait, 'wait')
  const password = env.CRATE_PASSWORD ?? ''
  const command = async (which) => {
    log(`${head} ${which}: ${target[which]}`)
    return runCommand(target[which], { cwd, log: (line) => log(`  ${which}: ${line}`),
      logFile: logOf(dir, recordFile, which), timeoutMs: waitMs, signals })
  }
  try {
    if (target.up) {
      const up = await command('up')
      if (up.interrupted || signals.interrupted) return { interrupted: true }
      if (up.code !== 0) {
        const how = up.timedOut ? `took longer than its wait: (${target.wait})` : `failed (${up.signal ??
          `exit ${up.code}`})`
        return { failed: true, unavailable: true, why: `its up: command ${how}; its output: ` +
          `${logOf(dir, recordFile, 'up')}` }
      }
    }
    log(`${head} waiting for its ${target.nodes} node${target.nodes === 1 ? '' : 's'} at ${target.hosts.join(', ')} ` +
      `(at most ${target.wait})`)
    let record
    try {
      await waitForTarget(target, { password, waitMs, log, signals })
      record = await recordTarget(target, { password })
    } catch (error) {
      if (signals.interrupted) return { interrupted: true }
      log(`${head} not reachable: ${error.message}`)
      return { failed: true, unavailable: true, why: `not reachable: ${error.message}` }
    }
    replaceFile(recordFile, `${JSON.stringify(record, null, 1)}\n`)
    log(`${head} found CrateDB ${record.version} (build ${record.build_hash ?? 'unknown'}): ${record.nodes} node` +
      `${record.nodes === 1 ? '' : 's'} (${record.node_list.map((n) => `${n.name} on ${n.hostname}, ${n.cores} ` +
        'cores').join('; ')}); its CPU per row from sys.nodes (its nodes are not on this machine)`)
    return await use({ record, lost: (part) => nodesLeft(target, record, part, { password, log }) })
  } finally {
    if (target.down) {
      const down = await command('down')
      if (down.code !== 0) {
        log(`${head} warning: its down: command ${down.timedOut ? 'took longer than its wait:' : `failed (${down.signal
          ?? `exit ${down.code}`})`}; its output: ${logOf(dir, recordFile, 'down')}`)
      }
    }
  }
}

/** A part's up: or down: log, beside its record: up.log for a shape's cluster-record.json, 2-b-up.log for a fork's. */
function logOf (dir, recordFile, which) {
  const base = path.basename(recordFile)
  const prefix = base === 'cluster-record.json' ? '' : base.replace(/cluster-record\.json$/, '')
  return path.join(dir, `${prefix}${which}.log`)
}

/**
 * After a part: the why of a part during which a node of `record` no longer answered in its cluster (left, or its
 * host cut off; each named on `log`), or its node count changed; null when every node is there.
 */
async function nodesLeft (target, record, part, { password, log }) {
  let names = []
  try {
    names = await nodesOf(target, { password })
  } catch (error) {
    return `no host answered after the ${part} (${error.message})`
  }
  const gone = record.node_list.filter((n) => !names.includes(n.name))
  for (const n of gone) {
    log(`warning: ${n.name} (on ${n.hostname}) of ${target.name} no longer answers in its cluster after the ${part}: ` +
      'a node lost or cut off (its host\'s own logs say which)')
  }
  if (gone.length) return `${gone.map((n) => n.name).join(', ')} left the cluster during the ${part}`
  if (names.length !== record.nodes) {
    return `its node count changed during the ${part} (${record.nodes} → ${names.length})`
  }
  return null
}

module.exports = { withTarget, nodesLeft }
