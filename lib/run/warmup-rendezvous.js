'use strict'

const fs = require('node:fs')
const path = require('node:path')

// The runs of a study's duet end their steady warm-ups together: a duet is worth its pairing only when its runs
// measure the same moment of the machine, and two fresh nodes settle seconds apart. Measured on this machine (an A/A
// duet beside a busy core): runs whose warm-ups ended 10 s apart differed by 22.6%, and by 0% over the seconds both
// measured. Each run says it is steady with a file of its own in the folder the study gave both (created exclusively,
// so that nothing of another's is ever overwritten or followed), and ends its warm-up once every peer has said so.

const MARK = /^\d+\.steady$/

class WarmupRendezvous {
  /** `dir`: the folder the study made for this fork's runs; `peers`: how many runs of the duet say they are steady. */
  constructor ({ dir, peers, name = String(process.pid) }) {
    this.dir = dir
    this.peers = peers
    this.file = path.join(dir, `${name}.steady`)
  }

  /** This run is steady: said once; a folder that cannot be written leaves this run to its own cap. */
  arrive (detail) {
    try {
      fs.writeFileSync(this.file, `${JSON.stringify(detail)}\n`, { flag: 'wx', mode: 0o600 })
      return true
    } catch {
      return false
    }
  }

  /** How many of the duet's runs have said they are steady (this one among them). */
  arrived () {
    try {
      return fs.readdirSync(this.dir).filter((name) => MARK.test(name)).length
    } catch {
      return 0
    }
  }
}

module.exports = { WarmupRendezvous }
