'use strict'

// Workers load their workload by name: functions cannot cross the IPC channel.
const WORKLOADS = {
  ingest: () => require('./ingest'),
  analytical: () => require('./analytical')
}

function loadWorkload (name) {
  const load = WORKLOADS[name]
  if (!load) throw new Error(`unknown workload '${name}'`)
  return load()
}

module.exports = { loadWorkload }
