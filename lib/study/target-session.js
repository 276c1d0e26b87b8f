'use strict'

const path = require('node:path')
const { waitForTarget, recordTarget, nodesOf, targetSql, onThisMachine } = require('../provision/external')
const { checkTargetTables, leaveAsFound } = require('../sweep/target-tables')
const { runHook } = require('../provision/hook')
const { replaceFile } = require('../provision/owned-paths')
const { parseDuration } = require('../base/values')
const { readStudyObject } = require('../base/files')
const { recordChild } = require('./children')

// A target (a cluster of the user's own) held for a part of a study: a sizing's shape or a comparison's fork. Its up:
// command, the wait until it answers with every node, its record from sys.nodes; then the part, told after each of its
// runs whether a node left the cluster; then its down: command, however the part ended. Nothing of it runs here.
// Each command is recorded as the study's child while it runs (a resume waits for it; a watchdog ends its group
// should the study be killed outright), and a target whose up: ran is recorded until its down: has run
// (DIR/targets-up.json): a study killed in between runs that down: when it resumes, before any new up:.

const UP_FILE = 'targets-up.json'

/**
 * `use({ record, lost })` with `target` up and recorded (into `recordFile`); its down: after, always. `lost(part)`:
 * the why of a part during which a node left the cluster (each named on `log`), or null. Returns what `use` returns,
 * or { failed, unavailable, why } (its up: failed, it was not reachable, or a table of the user's is where its runs
 * would write) or { interrupted }.
 */
async function withTarget (target, { out, dir, cwd, recordFile, env, signals, log, head, tables = [],
  keepTables = false, kept = null }, use) {
  const waitMs = parseDuration(target.wait, 'wait')
  const password = env.CRATE_PASSWORD ?? ''
  const sql = targetSql(target, { password })
  let tablePlan = null
  const command = (which) => runTargetCommand(target, which, { out, cwd, logFile: logOf(dir, recordFile, which),
    signals, log, head })
  try {
    if (target.up) {
      if (target.down) markUp(out, target.name, true)
      const up = await command('up')
      if (up.interrupted || signals.interrupted) return { interrupted: true }
      if (up.failed) {
        return { failed: true, unavailable: true, why: `its up: command ${failedHow(up, target.wait)}; its output: ` +
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
        'cores').join('; ')}); ${cpuSourceOf(target)}`)
    // Every table the runs will write, checked before any load: a table of the user's is found now.
    let refused
    try {
      tablePlan = await checkTargetTables(tables, sql)
      refused = tablePlan.refused
    } catch (error) {
      refused = error.message
    }
    if (signals.interrupted) return { interrupted: true }
    if (refused) {
      log(`${head} before any load: ${refused}`)
      // Unavailable as a cluster that is not reachable: every later fork of a comparison would meet it again.
      return { failed: true, unavailable: true, why: `before any load: ${refused}` }
    }
    return await use({ record, lost: (part) => nodesLeft(target, record, part, { password, log }) })
  } finally {
    if (tablePlan) {
      for (const line of await leaveAsFound(tablePlan, sql, { keep: keepTables, where: target.name })) {
        log(`${head} ${line}`)
        if (kept && line.startsWith('kept in')) kept.add(line)
      }
    }
    if (target.down) {
      const down = await command('down')
      if (down.failed) {
        log(`${head} warning: its down: command ${failedHow(down)}; its output: ${logOf(dir, recordFile, 'down')}`)
      }
      markUp(out, target.name, false)
    }
  }
}

/** How a command failed: past its wait: (`wait`, when said), or its signal or exit code. */
const failedHow = (result, wait = null) => (result.timedOut ? `took longer than its wait: (${wait ? `${wait}; ` : ''}` +
  'ended)' : `failed (${result.signal ?? `exit ${result.code}`})`)

/** A target's up: or down: run (bounded by its wait:), recorded as the study's child while it runs. */
async function runTargetCommand (target, which, { out, cwd, logFile, signals, log, head }) {
  log(`${head} ${which}: ${target[which]}`)
  let forget = () => {}
  try {
    return await runHook(target[which], { cwd, log: (line) => log(`  ${which}: ${line}`), logFile,
      timeoutMs: parseDuration(target.wait, 'wait'), signals,
      onStart: ({ pid }) => { forget = recordChild(out, { pid }, `${target.name}'s ${which}: command`) } })
  } finally {
    forget()
  }
}

/** The names of the targets whose up: ran and whose down: has not (DIR/targets-up.json). */
function targetsUp (out) {
  try {
    const saved = readStudyObject(path.join(out, UP_FILE), () => new Error('unreadable'), { nullIfMissing: true })
    return saved && Array.isArray(saved.up) ? saved.up.filter((n) => typeof n === 'string') : []
  } catch {
    return []
  }
}

function markUp (out, name, up) {
  const names = targetsUp(out).filter((n) => n !== name)
  replaceFile(path.join(out, UP_FILE), `${JSON.stringify({ up: up ? [...names, name] : names })}\n`)
}

/**
 * Before a resumed study brings anything up: the down: of each target an earlier study of DIR brought up and never
 * brought down (it was killed outright), so that no second up: starts beside the first. Its log:
 * DIR/<name>-left-down.log. A name the study file no longer has is said and forgotten.
 */
async function bringDownLeftUp (targets, { out, cwd, signals, log }) {
  for (const name of targetsUp(out)) {
    const target = targets.find((t) => t.name === name)
    if (!target || !target.down) {
      log(`warning: the earlier study brought ${name} up and not down; the study file has no down: for it now`)
    } else {
      log(`${name} was brought up by the earlier study and not down: its down: first`)
      const logFile = path.join(out, `${name}-left-down.log`)
      const down = await runTargetCommand(target, 'down', { out, cwd, signals, log, head: `[${name}]`, logFile })
      if (signals.interrupted) return
      if (down.failed) log(`warning: ${name}'s down: command ${failedHow(down)}; its output: ${logFile}`)
    }
    markUp(out, name, false)
  }
}

/** Where a target's CPU per row comes from, as every line that shows the figure says it. */
const cpuSourceOf = (target) => (onThisMachine(target.hosts)
  ? 'its nodes answer at this machine\'s addresses: its CPU per row from their processes here (/proc), where a run ' +
    'finds them listening, else from sys.nodes'
  : 'its CPU per row from sys.nodes, with the ± its sampling carries (its nodes are not on this machine)')

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

module.exports = { withTarget, nodesLeft, bringDownLeftUp, UP_FILE }
