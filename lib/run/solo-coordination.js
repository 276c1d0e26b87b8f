'use strict'

/**
 * @typedef {object} Coordination How the generators of one run agree: the solo one for a plain run, the fleet's
 * (lib/run/fleet-coordination.js) for --generator K/N. The pipeline calls each member at its place and never asks
 * which one it has.
 * @property {boolean} finishesTablesAfterLoad the run restores and counts its own tables right after its load
 *   (solo); a fleet's finisher does it once for all, when every generator is done
 * @property {boolean} resultWaitsForFinish --json waits for leave(), which adds what the fleet's finish says
 * @property {(ctx: object, groups: object[]) => Promise<void>} join after the host check
 * @property {(ctx: object, groups: object[], prepare: () => Promise<void>) => Promise<void>} prepare runs
 *   prepare (or takes what another generator prepared) so that every group holds what it needs
 * @property {(ctx: object) => Promise<number|null>} startAt this machine's wall-clock instant for the load to
 *   start, or null for as soon as every worker is ready
 * @property {(ctx: object, leaving: { result: object, code: number, finishTables: Function }) =>
 *   Promise<{ code: number, result: object }>} leave after the result is stored: the run's exit code, and what
 *   the result keeps of the leaving (a fleet's finish: fleet_finish), as every stage hands back what it made
 * @property {() => void} stop an interrupt ends every wait at once
 * @property {(message: string) => Promise<void>} failed the run failed with this one-line message
 * @property {() => void} close the run is over, whatever happened
 */

/** @type {Coordination} A plain run: nobody to wait for. */
const soloCoordination = {
  finishesTablesAfterLoad: true,
  resultWaitsForFinish: false,
  async join () {},
  async prepare (ctx, groups, prepare) {
    await prepare()
  },
  async startAt () {
    return null
  },
  async leave (ctx, { code }) {
    return { code, result: {} }
  },
  stop () {},
  async failed () {},
  close () {}
}

module.exports = { soloCoordination }
