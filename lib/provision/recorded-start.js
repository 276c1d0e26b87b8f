'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { Target } = require('./target')
const { replaceFile } = require('./owned-paths')

// A cluster a study starts, written once: started, its record written where the study's runs read it
// (--started_by_study FILE), and stopped however what ran on it ended. A sweep, a grid, a capacity search, each shape
// of a sizing study and each fork of a comparison start theirs through here.

/**
 * @typedef {object} RecordedCluster
 * @property {Target} target the handle on its nodes: ports, hosts, nodes that died, the stop
 * @property {import('../results/provisioned').ProvisionedRecord} record what each run's result keeps of it
 * @property {string} recordFile where the record is, for the runs: --started_by_study FILE
 */

/** A start that failed (or was interrupted): apart from what failed on the cluster once it ran. */
class ClusterStartError extends Error {
  constructor (cause) {
    super(cause.message)
    this.cause = cause
    // A start refused for its options is still a usage error (exit 2).
    if (cause.exitCode !== undefined) this.exitCode = cause.exitCode
  }
}

/**
 * Starts the cluster `options` describe and writes its record to `recordFile` ('by' the study). Throws
 * ClusterStartError when it does not start (nothing of it is left running).
 * @returns {Promise<RecordedCluster>}
 */
async function startRecorded (options, { recordFile, by = 'the study', log, signals, env }) {
  let target
  try {
    target = await Target.start(options, { log, signals, env })
  } catch (error) {
    throw new ClusterStartError(error)
  }
  const record = target.record(by)
  try {
    fs.mkdirSync(path.dirname(recordFile), { recursive: true })
    replaceFile(recordFile, `${JSON.stringify(record, null, 1)}\n`)
  } catch (error) {
    await target.stop().catch(() => {})
    throw error
  }
  return { target, record, recordFile }
}

/** Stops `started` (its nodes' logs kept with `keepLogs`); resolves the error of a stop that failed, else null. */
const stopRecorded = (started, { keepLogs = false } = {}) => started.target.stop({ keepLogs }).then(() => null,
  (error) => error)

/**
 * `body(started)` on the cluster started and recorded (startRecorded), stopped after it whatever it returns or
 * throws; `stopped(error|null, started)` told how the stop went.
 */
async function withRecordedCluster (options, context, body) {
  const started = await startRecorded(options, context)
  try {
    return await body(started)
  } finally {
    const error = await stopRecorded(started, context)
    if (context.stopped) context.stopped(error, started)
  }
}

module.exports = { startRecorded, stopRecorded, withRecordedCluster, ClusterStartError }
