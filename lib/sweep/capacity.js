'use strict'

const { round } = require('../base/format')
const { busyMachineLine } = require('../reports/cluster-limits')

// find-capacity: the highest open-model rate (--rate) the cluster serves within its SLO. Pure: the
// benchmark runs behind `runStep`, so the search is tested with a fake one.

/**
 * Whether one step passed, and why not: achieved at least `minAchievedPct` of its target, p99
 * (from the scheduled start: coordinated omission corrected) within the SLO, at most `maxFailed`
 * units failed or in doubt, no new write or search rejections in sys.nodes, and a load generator
 * that was not saturated. A run that ended partial fails too.
 */
function judgeStep (result, { sloP99Ms, maxFailed = 0, minAchievedPct = 99, clientCheck = true, workload = null }) {
  if (workload === 'mixed') return judgeMixedStep(result, { sloP99Ms, maxFailed, minAchievedPct, clientCheck })
  const unit = result.workload === 'ingest' ? 'rows' : 'queries'
  const figures = {
    achieved: result.rate ? result.rate.achieved_per_sec : null,
    achieved_pct: result.rate ? result.rate.achieved_pct : null,
    p99_ms: result.latency_ms ? result.latency_ms.p99 : null,
    failed: (result[`${unit}_failed`] || 0) + (result[`${unit}_in_doubt`] || 0),
    rejections: result.cluster ? (result.cluster.write_rejected || 0) + (result.cluster.search_rejected || 0) : null,
    client_saturated: Boolean(result.client && result.client.saturated),
    // Nodes busy beyond this load or before it: the step's verdict is not the cluster's alone.
    busy: busyMachineLine(result)
  }
  const reasons = []
  if (result.partial) reasons.push(`partial run: ${(result.partial_reasons || []).join('; ')}`)
  // Measuring began before the load was steady: its backlog of answers lands in the measured window.
  if (result.warmup && !(result.warmup.requests > 0)) {
    reasons.push(`no answer arrived during the ${result.warmup.seconds} s warm-up: the load was not steady when ` +
      'measuring began (raise --warmup)')
  }
  const shortfall = rateShortfall(result.rate, minAchievedPct)
  if (shortfall) reasons.push(shortfall)
  if (figures.p99_ms === null || figures.p99_ms > sloP99Ms) {
    reasons.push(`p99 ${figures.p99_ms} ms over the SLO of ${sloP99Ms} ms`)
  }
  if (figures.failed > maxFailed) reasons.push(`${figures.failed} ${unit} failed or in doubt (at most ${maxFailed})`)
  if (figures.rejections > 0) reasons.push(`${figures.rejections} thread-pool rejections in sys.nodes`)
  if (clientCheck && figures.client_saturated) reasons.push('the load generator was saturated: add --processes')
  return { ...figures, passed: reasons.length === 0, reason: reasons.join('; ') || null }
}

/**
 * A step of a mixed search: the ingest beside the query mix is what was stepped, so the step passes when the ingest
 * held its rate without failures and the queries, at their fixed rate, held theirs and met the SLO. Its figures are
 * the ingest's (achieved rows/s) beside the queries' p99.
 */
function judgeMixedStep (result, options) {
  const queries = judgeStep(result, { ...options, workload: null })
  const ingest = result.ingest || null
  const reasons = queries.reason ? queries.reason.split('; ').map((r) => `queries: ${r}`) : []
  const achievedPct = ingest && ingest.rate ? ingest.rate.achieved_pct : null
  if (!ingest) reasons.push('no ingest beside the queries in the result')
  else {
    const shortfall = rateShortfall(ingest.rate, options.minAchievedPct)
    if (shortfall) reasons.push(`ingest: ${shortfall}`)
  }
  const ingestFailed = ingest ? (ingest.rows_failed || 0) + (ingest.rows_in_doubt || 0) : 0
  if (ingestFailed > options.maxFailed) reasons.push(`ingest: ${ingestFailed} rows failed or in doubt`)
  return { ...queries, achieved: ingest && ingest.rate ? ingest.rate.achieved_per_sec : null,
    achieved_pct: achievedPct, queries_achieved_pct: queries.achieved_pct,
    // The ingest's own latency at the rate: the SLO judges the queries', but a buyer plans the writes' too.
    ingest_p99_ms: ingest && ingest.latency_ms ? ingest.latency_ms.p99 ?? null : null,
    failed: queries.failed + ingestFailed, passed: reasons.length === 0, reason: reasons.join('; ') || null }
}

/**
 * Why a rate was not held, or null: the share of the target achieved over the measured window, unless every request
 * due in that window went out on its time and none was left unsent. Then the shortfall is the window's own (it
 * includes the wait for the last answers: 21 queries at 2/s, every one on time, read 96.5%), not the cluster's; the
 * answers are judged by the SLO (p99 from each request's scheduled start) and the failures.
 */
function rateShortfall (rate, minAchievedPct) {
  const achievedPct = rate ? rate.achieved_pct ?? null : null
  if (achievedPct !== null && achievedPct >= minAchievedPct) return null
  const due = rate && typeof rate.late_requests === 'number'
  if (due && rate.late_requests === 0 && (rate.dropped_requests ?? 0) === 0) return null
  return `achieved ${achievedPct}% of the target rate (needs ${minAchievedPct}%${due ? `; ${rate.late_requests} ` +
    `requests late, ${rate.dropped_requests ?? 0} never sent` : ''})`
}

/** The next rate: doubling until a step misses, then halfway between the last pass and the first miss. */
function nextRate ({ lastPass, firstMiss, rate }) {
  if (firstMiss === null) return rate * 2
  return round((lastPass + firstMiss) / 2, 3)
}

/** Whether the search is over: it failed at the start, or pass and miss are within the precision. */
function searchDone ({ lastPass, firstMiss, precisionPct }) {
  if (firstMiss === null) return false
  if (lastPass === null) return true
  return ((firstMiss - lastPass) / lastPass) * 100 <= precisionPct
}

/**
 * The search: `runStep(rate)` resolves { result } or { stop: reason } (the benchmark could not
 * run, or the search was interrupted). Then the edge, the last passing and the first missing rate, each run again
 * until it has `edgeRepeat` runs: one run a step cannot tell a step from the noise; a first step that misses is run
 * again as the edge is. Where the runs of the edge (or of the start) disagree, the search goes on below until a rate
 * passes every one of its runs: "at least X (every run passed), below Y", a lower bound. Returns every step, the edge
 * and the capacity (null when no rate passed every run; `capacity_kind` 'edge' or 'lower_bound').
 */
async function searchCapacity ({ start, precisionPct = 5, maxSteps = 30, edgeRepeat = 1, runStep, judge }) {
  const steps = []
  let lastPass = null
  let firstMiss = null
  let rate = start
  let stopped = null
  const run = async (at, repeat) => {
    const outcome = await runStep(at)
    if (outcome.stop) {
      stopped = outcome.stop
      return null
    }
    const step = { rate: at, ...(repeat ? { repeat } : {}), ...judge(outcome.result) }
    steps.push(step)
    return step
  }
  while (steps.length < maxSteps) {
    const step = await run(rate)
    if (!step) break
    if (step.passed) lastPass = Math.max(lastPass ?? 0, rate)
    else firstMiss = Math.min(firstMiss ?? Infinity, rate)
    if (searchDone({ lastPass, firstMiss, precisionPct })) break
    rate = nextRate({ lastPass, firstMiss, rate })
  }
  // Cut by --max_steps between a pass and a miss: the edge is as wide as the steps left it, not the precision asked.
  let limit = stopped ? 'stopped' : firstMiss === null ? 'max_steps' : lastPass === null ? 'fails_at_start'
    : searchDone({ lastPass, firstMiss, precisionPct }) ? 'precision' : 'max_steps_before_precision'
  if (limit === 'fails_at_start' && edgeRepeat > 1) {
    // The start judged on as many runs as the edge: a miss of one run may be the noise.
    for (let repeat = 2; repeat <= edgeRepeat && !stopped; repeat++) await run(start, repeat)
    if (!stopped && steps.some((s) => s.rate === start && s.passed)) limit = 'disputed_start'
  }
  if (limit === 'precision' && edgeRepeat > 1) {
    // Alternated, so that a drift of the cluster meets both edges alike.
    for (let repeat = 2; repeat <= edgeRepeat && !stopped; repeat++) {
      for (const edgeRate of [lastPass, firstMiss]) {
        if (!(await run(edgeRate, repeat))) break
      }
    }
  }
  const edge = limit === 'precision' ? edgeOf(steps, lastPass, firstMiss) : null
  const disputed = limit === 'disputed_start' ? start : edge && !edge.pass_held ? lastPass : null
  const below = disputed !== null && !stopped ? await lowerBound({ disputed, steps, edgeRepeat, maxSteps, run })
    : null
  const capacity = below ? below.rate : edge && !edge.pass_held ? null : limit === 'disputed_start' ? null : lastPass
  return {
    capacity,
    capacity_kind: below ? 'lower_bound' : capacity === null ? null : 'edge',
    capacity_below: below ? below.below : null,
    first_miss: firstMiss,
    edge: below && edge ? { ...edge, range: { low: below.rate, high: below.below } } : edge,
    steps,
    stopped,
    limit: stopped ? 'stopped' : limit,
    // Between the last rate that passed and the first that missed: how wide the search left the edge, in %.
    edge_width_pct: lastPass !== null && firstMiss !== null && lastPass > 0
      ? round(((firstMiss - lastPass) / lastPass) * 100, 1) : null
  }
}

// How far below a disputed rate the search goes at the most: halvings after the rates that passed before.
const MAX_HALVINGS = 4

/**
 * Below a rate whose runs disagreed: the rates that passed before (highest first), then halvings of the lowest, each
 * run until it has `edgeRepeat` runs or one of them misses. The first that passes every run is a lower bound:
 * { rate, below } (below: the lowest rate above it that missed in any run), or null.
 */
async function lowerBound ({ disputed, steps, edgeRepeat, maxSteps, run }) {
  const passedBefore = [...new Set(steps.filter((s) => s.passed && s.rate < disputed).map((s) => s.rate))]
    .sort((a, b) => b - a)
  const rates = [...passedBefore]
  let lowest = rates.length ? rates[rates.length - 1] : disputed
  for (let i = 0; i < MAX_HALVINGS; i++) rates.push(lowest = round(lowest / 2, 3))
  const budget = maxSteps + edgeRepeat * (rates.length + 2)
  for (const rate of rates) {
    let held = true
    for (let n = steps.filter((s) => s.rate === rate).length; n < Math.max(edgeRepeat, 1) && held; n++) {
      if (steps.length >= budget) return null
      const step = await run(rate, n + 1)
      if (!step) return null
      held = step.passed
    }
    const runs = steps.filter((s) => s.rate === rate)
    if (held && runs.every((s) => s.passed)) {
      const missedAbove = steps.filter((s) => s.rate > rate && !s.passed).map((s) => s.rate)
      return { rate, below: missedAbove.length ? Math.min(...missedAbove) : disputed }
    }
  }
  return null
}

/**
 * The edge as its runs saw it: how many runs of the last passing and of the first missing rate passed, and the
 * capacity as a range: between the two when each held its verdict in every run; below the last pass when it did not
 * (the noise is larger than a step); reaching the first miss when that passed too.
 */
function edgeOf (steps, lastPass, firstMiss) {
  const runsAt = (rate) => steps.filter((s) => s.rate === rate)
  const pass = runsAt(lastPass)
  const miss = runsAt(firstMiss)
  const passed = (list) => list.filter((s) => s.passed).length
  const edge = { pass_rate: lastPass, pass_runs: pass.length, pass_passed: passed(pass), miss_rate: firstMiss,
    miss_runs: miss.length, miss_passed: passed(miss) }
  edge.pass_held = edge.pass_passed === edge.pass_runs
  edge.range = edge.pass_held ? { low: lastPass, high: firstMiss } : { low: null, high: lastPass }
  edge.noisy = !edge.pass_held || edge.miss_passed > 0
  return edge
}

/** Steps the search takes: doublings from `start` to the first miss, then bisections to the precision. */
function expectedSteps ({ start, capacity, precisionPct }) {
  let rate = start
  let steps = 0
  let lastPass = null
  let firstMiss = null
  for (;;) {
    steps++
    if (rate <= capacity) lastPass = Math.max(lastPass ?? 0, rate)
    else firstMiss = Math.min(firstMiss ?? Infinity, rate)
    if (searchDone({ lastPass, firstMiss, precisionPct })) return steps
    rate = nextRate({ lastPass, firstMiss, rate })
  }
}

module.exports = { judgeStep, searchCapacity, expectedSteps, rateShortfall }
