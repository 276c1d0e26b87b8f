'use strict'

const { mergeIntervalEntries } = require('../results/merge-timelines')
const { checkSteeredRate } = require('../data/load-profile')
const { round } = require('../base/format')
const { readEventStream } = require('./event-stream')

/**
 * The live page of `crate-bench fleet --ui`: the generators of this machine as one run. Each generator serves its
 * own live view on a loopback port; this one reads their event streams and merges them as the fleet's report does:
 * counts added, each second's percentiles from the generators' merged histograms (a second is shown merged once
 * every generator has closed it, as it stands before), the nodes as one generator's monitor saw them, every event
 * named by its generator. Steering goes to every generator, each taking its share. The interface of LiveView.
 */
class FleetView {
  /** @param {{ members: number }} settings the number of generators, each followed once its page is up */
  constructor ({ workload, options, members, stages = null, fetchImpl = fetch }) {
    this.workload = workload
    this.options = options
    this.fetch = fetchImpl
    this.stages = stages
    this.phase = 'starting'
    this.members = Array.from({ length: members }, (_, i) => ({
      url: null, index: i, state: null, series: [], provisional: [], nodes: [], events: [], now: null, done: false
    }))
    this.series = []
    this.nodes = []
    this.events = []
    this.mergedThrough = -1
    this.sent = { nodes: 0, events: 0 }
  }

  /** A generator's live page is up (its URL printed): follow its event stream. */
  follow (index, url) {
    const member = this.members[index]
    if (member.url) return
    member.url = url
    this.stream(member).catch(() => { member.done = true })
  }

  async stream (member) {
    const res = await this.fetch(new URL('/events', member.url))
    await readEventStream(res.body, (event, data) => this.receive(member, event, data))
    member.done = true
  }

  receive (member, event, data) {
    if (event === 'done') member.done = true
    if (event === 'hello') member.state = data
    if (event === 'hello' || event === 'tick') {
      member.series.push(...data.series)
      member.provisional = data.provisional || []
      member.nodes.push(...data.nodes)
      member.events.push(...data.events)
      member.now = data.now
    }
    if (member.now && member.now.phase === 'running') this.phase = 'running'
  }

  tick () {
    const following = this.members.filter((m) => m.state)
    const fresh = { series: [], nodes: [], events: [] }
    // A second is merged once every generator has closed it (or ended).
    const closedThrough = Math.min(...following.map((m) => (m.done ? Infinity : lastT(m.series))))
    const seconds = new Set(following.flatMap((m) => m.series.map((e) => e.t_s)))
    for (const t of [...seconds].filter((s) => s > this.mergedThrough && s <= closedThrough).sort((a, b) => a - b)) {
      fresh.series.push({ t_s: t, ...mergeIntervalEntries(following.map((m) => m.series.find((e) => e.t_s === t))
        .filter(Boolean)) })
      this.mergedThrough = t
    }
    const watcher = following.reduce((best, m) => (best === null || m.nodes.length > best.nodes.length ? m : best),
      null)
    if (watcher) {
      fresh.nodes = watcher.nodes.slice(this.sent.nodes)
      this.sent.nodes = watcher.nodes.length
    }
    const events = following.flatMap((m) => m.events.map((e) => ({ ...e, detail: `generator ${m.index + 1}: ` +
      `${e.detail ?? ''}`.trim() }))).sort((a, b) => a.at_s - b.at_s)
    fresh.events = events.slice(this.sent.events)
    this.sent.events = events.length
    this.series.push(...fresh.series)
    this.nodes.push(...fresh.nodes)
    this.events.push(...fresh.events)
    return { ...fresh, provisional: this.provisional(following), now: this.current() }
  }

  /** The seconds not merged yet, as they stand: every generator's entries for them added. */
  provisional (following) {
    const pending = new Map()
    for (const m of following) {
      for (const e of [...m.series, ...m.provisional]) {
        if (e.t_s <= this.mergedThrough) continue
        if (!pending.has(e.t_s)) pending.set(e.t_s, new Map())
        pending.get(e.t_s).set(m.index, e)
      }
    }
    return [...pending].sort((a, b) => a[0] - b[0]).map(([t, byMember]) => ({ t_s: t,
      ...mergeIntervalEntries([...byMember.values()]) }))
  }

  whole () {
    const following = this.members.filter((m) => m.state)
    return {
      ...this.describe(), series: this.series, provisional: this.provisional(following), nodes: this.nodes,
      events: this.events, now: this.current()
    }
  }

  describe () {
    return {
      run_id: this.options.runId,
      workload: this.workload.name,
      unit: this.workload.unit,
      phase: this.phase,
      generators: this.members.length,
      queries: this.members.find((m) => m.state)?.state.queries,
      stages: this.stages,
      warmup_s: this.members.find((m) => m.state)?.state.warmup_s ?? 0,
      groups: this.groups()
    }
  }

  /** The fleet's groups: steerable when every generator's is, the target the sum of their shares. */
  groups () {
    const all = this.members.map((m) => (m.now && m.now.groups) || (m.state && m.state.groups) || [])
    if (all.some((g) => g.length === 0)) return []
    return all[0].map((g) => {
      const same = all.map((groups) => groups.find((x) => x.role === g.role)).filter(Boolean)
      const steerable = same.length === all.length && same.every((x) => x.steerable)
      const target = steerable ? round(same.reduce((total, x) => total + x.target_per_sec, 0)) : null
      return { ...g, steerable, target_per_sec: target }
    })
  }

  current () {
    const nows = this.members.map((m) => m.now).filter(Boolean)
    if (nows.length === 0) return { phase: this.phase }
    const sum = (key) => nows.reduce((total, n) => total + (n[key] ?? 0), 0)
    return {
      phase: this.phase,
      elapsed_s: Math.max(...nows.map((n) => n.elapsed_s ?? 0)),
      duration_s: nows[0].duration_s ?? null,
      sent: sum('sent'),
      limit: nows.every((n) => n.limit) ? sum('limit') : null,
      ok: sum('ok'),
      failed: sum('failed'),
      in_doubt: sum('in_doubt'),
      per_sec: nows.every((n) => n.per_sec === null) ? null : round(sum('per_sec')),
      groups: this.groups()
    }
  }

  /**
   * Steering for the page and the API: each generator gets its share, each answer bounded by STEER_TIMEOUT_MS; the
   * answer is the fleet's, naming the generators that took the change and those that did not (502 when none did).
   */
  steering () {
    return {
      setRate: async (role, value, by) => {
        const checked = checkSteeredRate(value)
        if (checked.error) return { ok: false, status: 400, error: checked.error }
        const from = (this.groups().find((g) => g.role === role) || {}).target_per_sec ?? null
        const share = checked.rate / this.members.length
        // A generator that cannot answer in time is told the change is void past then: the page's word stands.
        const { took, missed, refused } = await this.toEach('/api/rate', { group: role, rate: share, by,
          not_after: Date.now() + STEER_TIMEOUT_MS })
        if (took.length === 0) return refused
        const first = took[0].answer.event
        const detail = `${first.what} ${from} -> ${checked.rate} over ${this.members.length} generators (${by})` +
          missedText(missed, `the fleet runs ${round(share * took.length)} of it`)
        return { ok: true, event: { ...first, from, to: checked.rate, detail }, ...who(took, missed) }
      },
      stop: async (by) => {
        const { took, missed, refused } = await this.toEach('/api/stop', { by })
        if (took.length === 0) return refused
        return { ok: true, ...who(took, missed), detail: `stopping${missedText(missed, 'the others run on')}` }
      }
    }
  }

  /** The request to every generator at once, each within STEER_TIMEOUT_MS: { took, missed, refused }. */
  async toEach (path, body) {
    const answers = await Promise.all(this.members.map(async (m) => {
      const generator = m.index + 1
      if (!m.url) {
        return { generator, ok: false, status: 409, error: `generator ${generator} has not started its load yet` }
      }
      const abandon = new AbortController()
      const timer = setTimeout(() => abandon.abort(new Error(`no answer within ${STEER_TIMEOUT_MS / 1000} s`)),
        STEER_TIMEOUT_MS)
      try {
        const res = await this.fetch(new URL(path, m.url), {
          method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
          signal: abandon.signal
        })
        const answer = await res.json()
        if (res.ok) return { generator, ok: true, answer }
        return { generator, ok: false, status: res.status, error: answer.error }
      } catch (error) {
        return { generator, ok: false, status: 502, error: `generator ${generator}: ${error.message}` }
      } finally {
        clearTimeout(timer)
      }
    }))
    const took = answers.filter((a) => a.ok)
    const missed = answers.filter((a) => !a.ok)
    const refused = missed.length === 0 ? null : { ok: false, status: missed[0].status,
      error: [...new Set(missed.map((a) => a.error))].join('; '), ...who(took, missed) }
    return { took, missed, refused }
  }
}

// A generator that does not answer a change within this (stopped, swapping) is named, not waited for.
const STEER_TIMEOUT_MS = 2000

const who = (took, missed) => ({ took: took.map((a) => a.generator),
  missed: missed.map((a) => ({ generator: a.generator, error: a.error })) })

function missedText (missed, consequence) {
  if (missed.length === 0) return ''
  return `; not taken by ${missed.map((a) => a.error).join('; ')}: ${consequence}`
}

const lastT = (series) => (series.length ? series[series.length - 1].t_s : -1)

module.exports = { FleetView }
