'use strict'

const { EventEmitter } = require('node:events')
const { round } = require('../base/format')

/**
 * The run's view of its hosts, from what every client reports (each worker's and the master's
 * own): a host is down from the first client that finds it down until every client that did
 * finds it up again. Emits 'change' on each transition; toJSON() gives the run's events.
 */
class HostEvents extends EventEmitter {
  constructor ({ hosts }) {
    super()
    this.hosts = hosts
    this.downFor = new Map(hosts.map((h) => [h, new Set()]))
    this.events = []
  }

  /** One client's event: { kind: 'host_down' | 'host_up', host, detail, at }. */
  report (reporter, { kind, host, detail = null, at }) {
    const seenDownBy = this.downFor.get(host)
    if (!seenDownBy) return
    const wasDown = seenDownBy.size > 0
    if (kind === 'host_down') seenDownBy.add(reporter)
    else seenDownBy.delete(reporter)
    const isDown = seenDownBy.size > 0
    if (wasDown === isDown) return
    const event = { at, kind, host, detail }
    this.events.push(event)
    this.emit('change', event)
  }

  /** Follows a client of the master's own (DDL, finish, the monitor). */
  watch (reporter, client) {
    client.on('host-down', (e) => this.report(reporter, { kind: 'host_down', ...e }))
    client.on('host-up', (e) => this.report(reporter, { kind: 'host_up', ...e }))
  }

  /**
   * A host any client finds down is down for `client` too (the master's own statements): what comes after the load
   * must not wait a --timeout on a host a worker saw go silent, for each statement. It is tried again as any host
   * down is (the client's probes).
   */
  shareWith (client) {
    this.on('change', (e) => {
      if (e.kind === 'host_down') client.markHostDown(e.host, e.detail)
    })
  }

  get upCount () {
    let up = 0
    for (const seenDownBy of this.downFor.values()) if (seenDownBy.size === 0) up++
    return up
  }

  /** The events with their time in seconds from `originMs` (the start of the load). */
  toJSON (originMs) {
    return this.events.map((e) => ({
      at_s: round((e.at - originMs) / 1000, 3),
      kind: e.kind,
      host: e.host,
      detail: e.detail
    }))
  }
}

module.exports = { HostEvents }
