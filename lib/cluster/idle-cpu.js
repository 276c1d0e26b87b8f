'use strict'

const { systemClock } = require('../base/clock')
const { visible } = require('../base/format')
const { percentFigure } = require('./monitor')

// A node's CPU before a run sent anything: busy only if it stays busy. CrateDB's process CPU is its share of the
// machine since the stats were last refreshed (each second), so readings a second apart each cover their own second.
// The tail of a load that has just ended falls within two seconds: on a 2-core 6.4.3 node 92%, 19%, then 0% a second
// apart after a 45,000 rows/s ingest, and a grid's next cell, started a second after the last one ended, read 87–94%
// once. Another client's CPU-bound queries kept the node at 84–97% at every reading.

// A node's CrateDB process at this share of its machine's CPU while the load generator had sent nothing was busy with
// other work: an idle 6.4.3 node reads 0–1%.
const BUSY_IDLE_CPU_PCT = 50
// Readings a second apart while a node reads busy, the first included: three seconds of busy, not one second's tail.
const MAX_READINGS = 4
const READING_INTERVAL_MS = 1000
const CPU_SQL = "SELECT name, process['cpu']['percent'] AS cpu_pct FROM sys.nodes"

const isBusy = (cpu) => typeof cpu === 'number' && cpu >= BUSY_IDLE_CPU_PCT

/**
 * While a node of `nodes` reads busy (`cpu_pct_before_run`), reads the nodes' CPU again a second later, up to
 * MAX_READINGS in all, and keeps each node's lowest: a node is busy before the run only if every reading said so.
 * Returns the seconds the readings spanned (0: one reading, nobody busy). A reading that fails ends the readings.
 */
async function confirmBusyCpu (client, nodes, { sleep = systemClock.sleep } = {}) {
  let readings = 1
  while (readings < MAX_READINGS && nodes.some((n) => isBusy(n.cpu_pct_before_run))) {
    await sleep(READING_INTERVAL_MS)
    let answer
    try {
      answer = await client.sql(CPU_SQL)
    } catch {
      break
    }
    readings++
    const byName = new Map((answer.rows || []).map(([name, cpu]) => [visible(name), percentFigure(cpu)]))
    for (const node of nodes) {
      const cpu = byName.get(node.name)
      if (cpu !== null && cpu !== undefined && node.cpu_pct_before_run !== null) {
        node.cpu_pct_before_run = Math.min(node.cpu_pct_before_run, cpu)
      }
    }
  }
  return ((readings - 1) * READING_INTERVAL_MS) / 1000
}

module.exports = { BUSY_IDLE_CPU_PCT, CPU_SQL, MAX_READINGS, confirmBusyCpu, isBusy }
