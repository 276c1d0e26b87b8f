'use strict'

const { EventEmitter } = require('node:events')
const { EXIT } = require('../base/errors')

// A closed terminal (SIGHUP) stops a run as Ctrl-C and SIGTERM do: with its report, and the table restored.
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP']
// `kill -TERM -PGID` with `timeout` in the group delivers the same signal twice within microseconds: signals this
// close together are one interruption, not the "twice: abandon everything" a user means by pressing Ctrl-C again.
const SAME_INTERRUPTION_MS = 100
// A process whose study is gone ends within this, whatever holds it.
const PARENT_GONE_GRACE_MS = 10_000

// Per signal target: the signals that arrived while the program was still loading, before its watcher.
const held = new WeakMap()

/**
 * Called first thing by the entry scripts: from then on no signal ends the process with the default handler (exit
 * 130 or 143) before the run's watcher takes over and replays what came meanwhile.
 */
function holdSignals (target = process) {
  if (held.has(target)) return
  const early = { signals: [], hold: (signal) => early.signals.push(signal) }
  held.set(target, early)
  for (const signal of SIGNALS) target.on(signal, early.hold)
}

/**
 * One watcher for Ctrl-C, SIGTERM and SIGHUP over a whole run, from parsing to the last statement: no
 * stage is left with the default handler, which would end the master without a report (exit 130).
 * Emits 'interrupt' ({ signal, count }); each stage decides what the count means for it.
 */
class Interrupts extends EventEmitter {
  /**
   * `parentPipe`: a stream a parent study holds open (the child's stdin, with CRATE_BENCH_STOP_WITH_PARENT set): its
   * end is the parent's death, SIGKILL included, and stops the run as Ctrl-C does, so that nothing of a study keeps
   * loading the cluster after the study is gone.
   */
  constructor ({ target = process, now = Date.now, parentPipe = parentPipeOf(process),
    exit = (code) => process.exit(code), parentGoneGraceMs = PARENT_GONE_GRACE_MS } = {}) {
    super()
    this.target = target
    this.parentPipe = parentPipe
    // The study that started this process is gone (SIGKILL included): nobody waits for what is in flight, and its
    // cluster is being stopped by its watchdog. What is in flight is abandoned at once (as a second Ctrl-C would), the
    // report written as far as it goes, and the process ends within the grace whatever still holds it (a request to a
    // node that is stopping), so that nothing of the study loads a cluster a resumed study starts on the same ports.
    this.onParentGone = () => {
      if (this.parentGone) return
      this.parentGone = true
      this.count = Math.max(this.count, 1)
      this.onSignal('the end of the study that started this run', { abandon: true })
      const deadline = setTimeout(() => exit(EXIT.PARTIAL), parentGoneGraceMs)
      if (typeof deadline.unref === 'function') deadline.unref()
    }
    this.parentGone = false
    this.count = 0
    this.firstSignal = null
    this.lastAt = null
    this.onSignal = (signal, { abandon = false } = {}) => {
      const at = now()
      if (!abandon && this.lastAt !== null && at - this.lastAt < SAME_INTERRUPTION_MS) return
      this.lastAt = at
      this.count++
      if (!this.firstSignal) this.firstSignal = signal
      this.emit('interrupt', { signal, count: this.count })
    }
  }

  install () {
    for (const signal of SIGNALS) this.target.on(signal, this.onSignal)
    if (this.parentPipe) {
      this.parentPipe.on('end', this.onParentGone)
      this.parentPipe.on('error', this.onParentGone)
      this.parentPipe.resume()
      // Watching the pipe never keeps a finished run alive.
      if (typeof this.parentPipe.unref === 'function') this.parentPipe.unref()
    }
    const early = held.get(this.target)
    if (early) {
      for (const signal of SIGNALS) this.target.off(signal, early.hold)
      held.delete(this.target)
      // Replayed once the caller has subscribed; signals while loading are one interruption.
      if (early.signals.length > 0) setImmediate(() => this.onSignal(early.signals[0]))
    }
    return this
  }

  uninstall () {
    for (const signal of SIGNALS) this.target.off(signal, this.onSignal)
    if (this.parentPipe) {
      this.parentPipe.off('end', this.onParentGone)
      this.parentPipe.off('error', this.onParentGone)
    }
  }

  get interrupted () {
    return this.count > 0
  }

  /** An AbortSignal aborted at the first interruption: for work that takes one (a download, an unpack). */
  get abortSignal () {
    if (!this.controller) {
      this.controller = new AbortController()
      if (this.interrupted) this.controller.abort()
      else this.once('interrupt', () => this.controller.abort())
    }
    return this.controller.signal
  }
}

/** The pipe a parent study holds open as this process's stdin, or null (a terminal, or not started by a study). */
function parentPipeOf (proc) {
  if (proc !== process || !process.env.CRATE_BENCH_STOP_WITH_PARENT || process.stdin.isTTY) return null
  return process.stdin
}

module.exports = { Interrupts, holdSignals, SIGNALS }
