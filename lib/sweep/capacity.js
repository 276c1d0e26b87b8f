'use strict'

const { round } = require('../base/format')

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
    client_saturated: Boolean(result.client && result.client.saturated)
  }
  const reasons = []
  if (result.partial) reasons.push(`partial run: ${(result.partial_reasons || []).join('; ')}`)
  // Measuring began before the load was steady: its backlog of answers lands in the measured window.
  if (result.warmup && !(result.warmup.requests > 0)) {
    reasons.push(`no answer arrived during the ${result.warmup.seconds} s warm-up: the load was not steady when ` +
      'measuring began (raise --warmup)')
  }
  if (figures.achieved_pct === null || figures.achieved_pct < minAchievedPct) {
    reasons.push(`achieved ${figures.achieved_pct}% of the target rate (needs ${minAchievedPct}%)`)
  }
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
  else if (achievedPct === null || achievedPct < options.minAchievedPct) {
    reasons.push(`ingest: achieved ${achievedPct}% of its rate (needs ${options.minAchievedPct}%)`)
  }
  const ingestFailed = ingest ? (ingest.rows_failed || 0) + (ingest.rows_in_doubt || 0) : 0
  if (ingestFailed > options.maxFailed) reasons.push(`ingest: ${ingestFailed} rows failed or in doubt`)
  return { ...queries, achieved: ingest && ingest.rate ? ingest.rate.achieved_per_sec : null,
    achieved_pct: achievedPct, queries_achieved_pct: queries.achieved_pct,
    failed: queries.failed + ingestFailed, passed: reasons.length === 0, reason: reasons.join('; ') || null }
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
 * until it has `edgeRepeat` runs: one run a step cannot tell a step from the noise. Returns every step, the edge and
 * the capacity: the last passing rate when every run of it passed, else null (the edge says why).
 */
async function searchCapacity ({ start, precisionPct = 5, maxSteps = 30, edgeRepeat = 1, runStep, judge }) {
  const steps = []
  let lastPass = null
  let firstMiss = null
  let rate = start
  let stopped = null
  while (steps.length < maxSteps) {
    const outcome = await runStep(rate)
    if (outcome.stop) {
      stopped = outcome.stop
      break
    }
    const verdict = judge(outcome.result)
    steps.push({ rate, ...verdict })
    if (verdict.passed) lastPass = Math.max(lastPass ?? 0, rate)
    else firstMiss = Math.min(firstMiss ?? Infinity, rate)
    if (searchDone({ lastPass, firstMiss, precisionPct })) break
    rate = nextRate({ lastPass, firstMiss, rate })
  }
  const limit = stopped ? 'stopped' : firstMiss === null ? 'max_steps' : lastPass === null ? 'fails_at_start'
    : 'precision'
  if (limit === 'precision' && edgeRepeat > 1) {
    // Alternated, so that a drift of the cluster meets both edges alike.
    for (let repeat = 2; repeat <= edgeRepeat && !stopped; repeat++) {
      for (const edgeRate of [lastPass, firstMiss]) {
        const outcome = await runStep(edgeRate)
        if (outcome.stop) {
          stopped = outcome.stop
          break
        }
        steps.push({ rate: edgeRate, repeat, ...judge(outcome.result) })
      }
    }
  }
  const edge = limit === 'precision' ? edgeOf(steps, lastPass, firstMiss) : null
  return {
    capacity: edge && !edge.pass_held ? null : lastPass,
    first_miss: firstMiss,
    edge,
    steps,
    stopped,
    limit: stopped ? 'stopped' : limit
  }
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

module.exports = { judgeStep, searchCapacity, expectedSteps }
