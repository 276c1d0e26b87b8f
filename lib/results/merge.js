'use strict'

const { encodeHistogram, ErrorGroups, mergedSummary } = require('./stats')
const { round, perSecond } = require('../base/format')
const { mergeTimelines } = require('./merge-timelines')
const { driftOf, latencyOfEntries } = require('./drift')
const { mergedStageResults } = require('./stages')
const { unitOfWorkload } = require('./result')
const { cpuCostOf } = require('./cpu-cost')

/**
 * One result from the results of several load generators of one run (each machine's --json, or
 * its row in --results_table): units added, the window from the earliest start to the latest
 * end, and percentiles from the merged HdrHistograms — exact, never averaged.
 */
function mergeResults (unordered, { fleet = null } = {}) {
  if (unordered.length === 0) throw new Error('no results to merge')
  // A fleet's generators in their order (1, 2, 3), whatever order their rows came in.
  const results = [...unordered].sort((a, b) => generatorIndex(a) - generatorIndex(b))
  const workload = results[0].workload
  if (results.some((r) => r.workload !== workload)) {
    throw new Error(
      `the results are of different workloads: ${[...new Set(results.map((r) => r.workload))].join(', ')}`
    )
  }
  const unit = unitOfWorkload(workload)
  const sum = (key) => results.reduce((total, r) => total + (r[key] || 0), 0)
  // On the server's clock where the fleet measured each generator's offset: one clock for every machine.
  const offsetOf = clockOffsets(results, fleet)
  const startOf = (r, i) => Date.parse(r.started_at) + offsetOf[i]
  const timed = results.map((r, i) => [r, i]).filter(([r]) => r.started_at)
  const started = timed.map(([r, i]) => startOf(r, i))
  const ended = timed.map(([r, i]) => startOf(r, i) + r.seconds * 1000)
  const sendingEnded = timed.map(([r, i]) => startOf(r, i) + (r.sending_seconds ?? r.seconds) * 1000)
  const seconds = started.length ? round((Math.max(...ended) - Math.min(...started)) / 1000, 3) : 0
  const sendingSeconds = started.length ? round((Math.max(...sendingEnded) - Math.min(...started)) / 1000, 3) : null
  const ok = sum(`${unit}_ok`)
  const errors = new ErrorGroups()
  for (const r of results) errors.merge(r.errors || [])
  const latency = mergedLatency(
    results.map((r) => r.histograms && r.histograms.latency),
    results.map((r) => r.latency_ms)
  )
  const server = mergedLatency(
    results.map((r) => r.histograms && r.histograms.server),
    results.map((r) => r.server_ms)
  )
  const merged = {
    workload,
    options: mergedOptions(results),
    started_at: started.length ? new Date(Math.min(...started)).toISOString() : null,
    seconds,
    sending_seconds: sendingSeconds,
    drain_seconds: sendingSeconds === null ? null : round(Math.max(0, seconds - sendingSeconds), 3),
    [`${unit}_sent`]: sum(`${unit}_sent`),
    [`${unit}_ok`]: ok,
    [`${unit}_failed`]: sum(`${unit}_failed`),
    [`${unit}_in_doubt`]: sum(`${unit}_in_doubt`),
    [`${unit}_per_sec`]: perSecond(ok, seconds),
    requests: sum('requests'),
    requests_failed: sum('requests_failed'),
    warmup: mergedWarmup(results, unit),
    latency_ms: latency.summary,
    server_ms: server.summary,
    errors: errors.toJSON(),
    workers: mergedWorkers(results, unit),
    rate: mergedRate(results, ok, seconds),
    // Every generator watched the same cluster: the first one's view (the steward's, in a fleet) stands for all.
    cluster: (results.find((r) => r.cluster && r.cluster.nodes && r.cluster.nodes.length > 0) || {}).cluster ?? null,
    cluster_cpu: mergedClusterCpu(results, ok, unit),
    // What happened to each generator (a host lost, a rate changed on the fleet's page), named by its generator.
    events: mergedEvents(results, started.length ? Math.min(...started) : null),
    timeline: mergeTimelines(results, started.length ? Math.min(...started) : 0, results.map((r, i) => offsetOf[i]),
      { keepHistograms: true }),
    environment: mergedEnvironment(results),
    client: mergedClient(results, unit),
    histograms: { latency: latency.encoded, server: server.encoded, labels: Object.create(null) },
    load_generators: results.map((r) => ({
      name: r.environment ? r.environment.load_generator : null,
      started_at: r.started_at,
      seconds: r.seconds,
      [`${unit}_ok`]: r[`${unit}_ok`],
      generator: r.options.generator ?? null
    })),
    partial: results.some((r) => r.partial),
    partial_reasons: results.flatMap((r, i) =>
      (r.partial_reasons || []).map((reason) => `load generator ${i + 1}: ${reason}`)
    )
  }
  if (workload === 'analytical') merged.queries = mergedQueries(results, seconds, merged.histograms)
  if (workload === 'ingest') Object.assign(merged, mergedIngest(results, seconds))
  // The table was filled once, by the generator that prepared it: its prefill is the fleet's.
  const prefilled = results.find((r) => r.prefill)
  if (prefilled) merged.prefill = prefilled.prefill
  if (fleet) addFleet(merged, results, fleet, unit, started)
  const staged = mergedStageResults(results, merged, unit)
  if (staged) {
    merged.stages = staged.stages
    merged.first_stage_not_kept_up = staged.first_not_kept_up
  }
  // The drift of the whole fleet, its windows' latency from the merged intervals' histograms; they stay in the
  // result only where its stages were judged on them.
  merged.drift = driftOf({ timeline: merged.timeline, group: workload, unit, loadEndS: sendingSeconds ?? 0,
    latencyIn: latencyOfEntries(merged.timeline.series, workload) })
  if (!staged) for (const entry of merged.timeline.series) if (entry[workload]) delete entry[workload].latency_hist
  return merged
}

/**
 * The fleet's options: the generators' shared flags, with the fleet's own rate (the sum of their shares, where each
 * had one) and the fleet's size instead of one generator's index.
 */
function mergedOptions (results) {
  const first = results[0].options
  const options = { ...first, load_generators: results.length }
  const generator = first.generator
  if (generator && typeof generator === 'object') options.generator = { count: generator.count ?? results.length }
  const rates = results.map((r) => r.options && r.options.rate)
  if (rates.every((rate) => typeof rate === 'number')) options.rate = round(rates.reduce((a, b) => a + b, 0), 3)
  return options
}

/** Every generator's events on the fleet's clock (from the earliest start), each with the generator it came from. */
function mergedEvents (results, originMs) {
  return results.flatMap((r, i) => {
    const shiftS = r.started_at && originMs !== null ? (Date.parse(r.started_at) - originMs) / 1000 : 0
    return (r.events || []).map((e) => ({ ...e, at_s: typeof e.at_s === 'number' ? round(e.at_s + shiftS, 3) : e.at_s,
      generator: generatorName(r, i) }))
  }).sort((a, b) => (a.at_s ?? 0) - (b.at_s ?? 0))
}

const generatorIndex = (r) => (r.options && r.options.generator ? r.options.generator.index : 0)

/**
 * The cluster's CPU per 1,000 units of the whole fleet: every generator measured the same cluster over nearly the
 * same window, so the CPU time is the longest any of them counted (one from the same source), over all the units.
 */
function mergedClusterCpu (results, ok, unit) {
  const costs = results.map((r) => r.cluster_cpu).filter((c) => c && typeof c.cpu_s === 'number')
  if (costs.length === 0 || costs.some((c) => c.source !== costs[0].source)) return null
  const longest = costs.reduce((a, c) => (c.cpu_s > a.cpu_s ? c : a))
  // Its cost and bound are made again, over the fleet's units.
  return cpuCostOf(longest, ok, unit)
}

/** A generator's name in a merged report: K/N and its machine, or the machine alone outside a fleet. */
function generatorName (r, i) {
  const machine = r.environment ? r.environment.load_generator : null
  const g = r.options && r.options.generator
  if (g && g.count > 1) return `${g.index + 1}/${g.count}${machine ? ` on ${machine}` : ''}`
  return machine ?? `generator ${i + 1}`
}

/** Every worker of every generator, named by its generator ("1/3 on vm w0"): a fleet has many machines' w0. */
function mergedWorkers (results, unit) {
  return results.flatMap((r, i) => (r.workers && r.workers.length > 0 ? r.workers : [{ worker: null }]).map((w) => ({
    worker: `${generatorName(r, i)}${w.worker === null || w.worker === undefined ? '' : ` w${w.worker}`}`,
    [`${unit}_ok`]: w.worker === null ? r[`${unit}_ok`] : w[`${unit}_ok`],
    [`${unit}_failed`]: w.worker === null ? r[`${unit}_failed`] : w[`${unit}_failed`],
    requests: w.worker === null ? r.requests : w.requests,
    seconds: w.worker === null ? r.seconds : w.seconds,
    [`${unit}_per_sec`]: w.worker === null ? r[`${unit}_per_sec`] : w[`${unit}_per_sec`],
    stop_reason: w.stop_reason ?? (r.partial ? 'partial' : 'completed'),
    stop_detail: w.stop_detail ?? null
  })))
}

/** The warm-up of every generator, added up; null when none had one. */
function mergedWarmup (results, unit) {
  const warm = results.map((r) => r.warmup).filter(Boolean)
  if (warm.length === 0) return null
  const sum = (key) => warm.reduce((total, w) => total + (w[key] || 0), 0)
  return {
    seconds: Math.max(...warm.map((w) => w.seconds)),
    [`${unit}_ok`]: sum(`${unit}_ok`),
    [`${unit}_failed`]: sum(`${unit}_failed`),
    [`${unit}_in_doubt`]: sum(`${unit}_in_doubt`),
    requests: sum('requests')
  }
}

/** Each result's clock offset against the server, as its fleet row says; 0 without a fleet. */
function clockOffsets (results, fleet) {
  const offsets = new Map((fleet ? fleet.generators : []).map((g) => [g.generator, g.detail.clock_offset_ms || 0]))
  return results.map((r) => offsets.get(r.options.generator ? r.options.generator.index : -1) || 0)
}

/** Tool, machines and cluster: every generator's machine, the cluster as the first that saw it. */
function mergedEnvironment (results) {
  const envs = results.map((r) => r.environment).filter(Boolean)
  if (envs.length === 0) return null
  const first = (key) => envs.map((e) => e[key]).find((v) => v !== null && v !== undefined) ?? null
  // Generators that share a machine share its CPUs: each machine counted once.
  const byMachine = new Map()
  for (const e of envs) {
    const seen = byMachine.get(e.load_generator)
    byMachine.set(e.load_generator, { cpus: e.cpus || 0, generators: (seen ? seen.generators : 0) + 1 })
  }
  const machines = [...byMachine].map(([name, m]) =>
    `${name} (${m.cpus} CPUs${m.generators > 1 ? `, ${m.generators} generators` : ''})`)
  return {
    tool_version: [...new Set(envs.map((e) => e.tool_version))].join(', '),
    node_version: [...new Set(envs.map((e) => e.node_version))].join(', '),
    load_generator: `${envs.length} generator${envs.length === 1 ? '' : 's'} on ${byMachine.size} machine` +
      `${byMachine.size === 1 ? '' : 's'}: ${machines.join(', ')}`,
    cpus: [...byMachine.values()].reduce((sum, m) => sum + m.cpus, 0),
    cpu_model: [...new Set(envs.map((e) => e.cpu_model).filter(Boolean))].join(', ') || null,
    cratedb_version: first('cratedb_version'),
    cratedb_nodes: first('cratedb_nodes'),
    // Every generator measured the same cluster: the first that read its shape stands for all.
    cluster: first('cluster'),
    generators: envs.map((e) => ({ name: e.load_generator, cpus: e.cpus, cpu_model: e.cpu_model }))
  }
}

/** Rows per table and the field values of the whole fleet over its window. */
function mergedIngest (results, seconds) {
  const tables = new Map()
  for (const r of results) {
    for (const t of r.tables || []) {
      const fieldsPerRow = t.rows_ok > 0 ? t.field_values_per_sec / t.rows_per_sec : 0
      const entry = tables.get(t.name) || { name: t.name, rows_ok: 0, rows_failed: 0, field_values: 0 }
      entry.rows_ok += t.rows_ok
      entry.rows_failed += t.rows_failed
      entry.field_values += t.rows_ok * (Number.isFinite(fieldsPerRow) ? fieldsPerRow : 0)
      tables.set(t.name, entry)
    }
  }
  const merged = [...tables.values()].map((t) => ({
    name: t.name,
    rows_ok: t.rows_ok,
    rows_failed: t.rows_failed,
    rows_per_sec: perSecond(t.rows_ok, seconds),
    field_values_per_sec: perSecond(Math.round(t.field_values), seconds),
    latency_ms: null
  }))
  const extra = {
    model: results[0].model,
    tables: merged,
    field_values_per_sec: round(merged.reduce((sum, t) => sum + t.field_values_per_sec, 0)),
    table_count: null,
    table_count_matches: null,
    reconciliation: null
  }
  if (results[0].metrics_per_sec !== undefined) {
    extra.metrics_per_sec = round(perSecond(merged.reduce((s, t) => s + t.rows_ok, 0), seconds) * 10)
  }
  return extra
}

/**
 * A fleet's run: its generators as the fleet table saw them, the start skew, the reconciliation the steward made
 * once for all, and every generator that died (no result) named, its acknowledged rows counted and the rest in doubt.
 */
function addFleet (merged, results, fleet, unit, started) {
  const reported = new Set(results.map((r) => (r.options.generator ? r.options.generator.index : 0)))
  const reconciled = fleet.reconciled ? fleet.reconciled.detail : null
  const dead = fleet.generators.filter((g) => !reported.has(g.generator))
  const judged = new Map(((reconciled && reconciled.generators) || []).map((g) => [g.generator, g]))
  for (const g of dead) {
    const verdict = judged.get(g.generator) || {}
    // The counts the finisher judged it by (its row may have been written since, by a generator that came back).
    const c = verdict.counts || g.detail.counts || { sent: 0, ok: 0, failed: 0 }
    const noticed = verdict.noticed_after_s
    const who = `generator ${g.generator + 1}${g.host ? ` (${g.host})` : ''} died (${g.state}, no result` +
      `${noticed != null ? `, judged dead after ${noticed} s of silence` : ''})`
    merged.partial = true
    if (verdict.stored_in_table !== undefined) {
      // Its rows counted in the table by their keys: stored or not, none in doubt.
      const found = Math.max(0, verdict.stored_in_table - c.ok)
      merged[`${unit}_sent`] += c.ok + c.failed + found
      merged[`${unit}_ok`] += c.ok + found
      merged[`${unit}_failed`] += c.failed
      merged[`${unit}_found_in_table`] = (merged[`${unit}_found_in_table`] || 0) + found
      merged.partial_reasons.push(`${who}: its ${unit} counted in the table by their keys, ` +
        `${verdict.stored_in_table} stored (${c.ok} acknowledged by its last report, ${found} found in the table ` +
        'since), none in doubt')
      continue
    }
    // What it may have sent after its last heartbeat, as the finisher bounded it, is in doubt too.
    const unreported = verdict.unreported_bound || 0
    merged[`${unit}_sent`] += c.sent + unreported
    merged[`${unit}_ok`] += c.ok
    merged[`${unit}_failed`] += c.failed
    merged[`${unit}_in_doubt`] += Math.max(0, c.sent - c.ok - c.failed) + unreported
    merged.partial_reasons.push(`${who}: the ${c.ok} ${unit} acknowledged by its last report are counted, the rest ` +
      `it sent${unreported ? ` (and up to ${unreported} more after its last report)` : ''} are in doubt`)
  }
  if (dead.length > 0) merged[`${unit}_per_sec`] = perSecond(merged[`${unit}_ok`], merged.seconds)
  if (reconciled && reconciled.reconciliation) {
    Object.assign(merged, {
      table_count: reconciled.table_count,
      table_count_matches: reconciled.table_count_matches,
      reconciliation: reconciled.reconciliation
    })
  } else if (!reconciled) {
    merged.partial = true
    merged.partial_reasons.push('the fleet was not reconciled: no generator finished the fleet (every one that ' +
      'could have died before it)')
  }
  merged.fleet = {
    generators: fleet.generators.map((g) => ({
      generator: g.generator + 1,
      host: g.host,
      state: reported.has(g.generator) ? g.state : `${g.state}, no result`,
      clock_offset_ms: g.detail.clock_offset_ms ?? null
    })),
    start_skew_ms: started.length > 1 ? Math.round(Math.max(...started) - Math.min(...started)) : 0,
    steward: fleet.prepare ? fleet.prepare.detail.generator + 1 : null,
    finished_by: reconciled && reconciled.finished_by != null ? reconciled.finished_by + 1 : null
  }
}

/**
 * The merged histogram, encoded, and its percentiles, decoded once; the maximum is the largest
 * exact maximum of any result.
 */
function mergedLatency (encodedList, summaries) {
  const { histogram, summary } = mergedSummary(encodedList, summaries.map((s) => s && s.max))
  return { summary, encoded: encodeHistogram(histogram) }
}

function mergedQueries (results, seconds, histograms) {
  return results[0].queries.map((q) => {
    const same = results.map((r) => (r.queries || []).find((x) => x.name === q.name)).filter(Boolean)
    const latency = mergedLatency(
      results.map((r) => r.histograms && r.histograms.labels && r.histograms.labels[q.name]),
      same.map((x) => x.latency_ms)
    )
    histograms.labels[q.name] = latency.encoded
    const count = same.reduce((total, x) => total + x.count, 0)
    const failed = same.reduce((total, x) => total + x.failed, 0)
    return {
      name: q.name,
      ratio: q.ratio,
      count,
      failed,
      queries_per_sec: perSecond(count - failed, seconds),
      latency_ms: latency.summary,
      server_ms: { mean: null, p99: null }
    }
  })
}

function mergedRate (results, ok, seconds) {
  if (!results.every((r) => r.rate)) return null
  const target = results.reduce((total, r) => total + r.rate.target_per_sec, 0)
  const achieved = perSecond(ok, seconds)
  return {
    target_per_sec: target,
    achieved_per_sec: achieved,
    achieved_pct: round((achieved / target) * 100, 1),
    late_requests: results.reduce((t, r) => t + r.rate.late_requests, 0),
    request_max_ms: Math.max(0, ...results.map((r) => r.rate.request_max_ms || 0)),
    dropped_requests: results.reduce((t, r) => t + (r.rate.dropped_requests || 0), 0),
    dropped_units: results.reduce((t, r) => t + (r.rate.dropped_units || 0), 0),
    withdrawn_requests: results.reduce((t, r) => t + (r.rate.withdrawn_requests || 0), 0),
    withdrawn_units: results.reduce((t, r) => t + (r.rate.withdrawn_units || 0), 0),
    latency_from: 'scheduled start'
  }
}

function mergedClient (results, unit) {
  const per = `cpu_us_per_${unit === 'rows' ? 'row' : 'query'}`
  const cpuSeconds = results.reduce((total, r) => total + ((r.client && r.client.cpu_seconds) || 0), 0)
  const sent = results.reduce((total, r) => total + (r[`${unit}_sent`] || 0), 0)
  return {
    cpu_seconds: round(cpuSeconds, 3),
    [per]: sent > 0 ? round((cpuSeconds * 1e6) / sent, 3) : null,
    max_rss_mb_per_process: Math.max(...results.map((r) => (r.client && r.client.max_rss_mb_per_process) || 0))
  }
}

module.exports = { mergeResults }
