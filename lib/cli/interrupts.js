'use strict'

const { EventEmitter } = require('node:events')

const SIGNALS = ['SIGINT', 'SIGTERM']

/**
 * One watcher for Ctrl-C and SIGTERM over a whole run, from parsing to the last statement: no
 * stage is left with the default handler, which would end the master without a report (exit 130).
 * Emits 'interrupt' ({ signal, count }); each stage decides what the count means for it.
 */
class Interrupts extends EventEmitter {
  constructor ({ target = process } = {}) {
    super()
    this.target = target
    this.count = 0
    this.firstSignal = null
    this.onSignal = (signal) => {
      this.count++
      if (!this.firstSignal) this.firstSignal = signal
      this.emit('interrupt', { signal, count: this.count })
    }
  }

  install () {
    for (const signal of SIGNALS) this.target.on(signal, this.onSignal)
    return this
  }

  uninstall () {
    for (const signal of SIGNALS) this.target.off(signal, this.onSignal)
  }

  get interrupted () {
    return this.count > 0
  }
}

module.exports = { Interrupts }
