'use strict'

const fs = require('node:fs')
const { fmt, round } = require('../base/format')
const { formatMs } = require('../base/values')
const { DEFAULT_BUDGET, MAX_FORKS, budgetSeconds, fitsBudget, budgetSpentText } = require('../sweep/budget')
const { pairedRatio, halfWidthPct } = require('../reports/compare/paired')
const { studentTQuantile } = require('../reports/compare/welch')
const { forkKey, forkResult, pairedForks, forkPath } = require('./forks')
const { countPoints, noisePoints, resultsOf } = require('./run-length')
const { fewestIn, windowVarianceOf } = require('./window-noise')

// What a comparison's precision rests on: when to add a fork (its throughput ratio's interval against the precision
// asked, its time against the budget), what a duet cannot see, and what an A/A calibration says the study can see.

// A query run's rate is queries/s, an ingest's rows/s.
const rateOf = (result) => (result ? result[`${result.workload === 'ingest' ? 'rows' : 'queries'}_per_sec`] : null)

// The cluster's CPU per 1,000 units of a run (lib/results/cpu-cost.js), where the run could tell it.
const cpuOf = (result) => (result && result.cluster_cpu && typeof result.cluster_cpu.ms_per_1000 === 'number'
  ? result.cluster_cpu.ms_per_1000 : null)

// The figures a comparison's forks may be asked a precision of: the study file's key, how its lines name it, and
// how a run's result gives it.
const FIGURES = [
  { key: 'precision', name: 'the throughput ratio', of: rateOf },
  { key: 'cpu_precision', name: 'the CPU per row ratio', of: cpuOf }
]

/** Each contender's ratio to the first of `of` (a run's figure) over the forks both have done. */
function ratiosOf ({ contenders, forks, dir, of = rateOf }) {
  const [base, ...others] = contenders
  return others.map((other) => {
    const pairs = pairedForks(dir, [base.name, other.name], forks)
      .map((f) => [of(forkResult(dir, f, base.name)), of(forkResult(dir, f, other.name))])
      .filter(([b, n]) => b > 0 && n > 0)
    return { name: other.name, ratio: pairedRatio(pairs), forks: pairs.length }
  })
}

/**
 * Each figure the study asks a precision of (FIGURES): its widest ratio's half-width over the contenders (points of
 * the change, Infinity before an interval), the fewest pairs, and its words.
 */
function askedFigures ({ study, contenders, forks, dir }) {
  return FIGURES.filter((f) => study[f.key]).map((f) => {
    const ratios = ratiosOf({ contenders, forks, dir, of: f.of })
    const widest = ratios.reduce((a, r) => Math.max(a, r.ratio ? halfWidthPct(r.ratio) : Infinity), 0)
    const paired = ratios.reduce((a, r) => Math.min(a, r.forks), Infinity)
    const precision = Number.parseFloat(study[f.key])
    const width = `±${Number.isFinite(widest) ? fmt(round(widest, 1)) : '∞'} points of the change against ` +
      `${contenders[0].name} (±${study[f.key]} asked, on that scale)`
    return { ...f, widest, paired, precision, width, within: widest <= precision }
  })
}

/**
 * Whether to run fork `fork` of a comparison that adds forks: { stop: false, reachable, unmeasured } or { stop: true,
 * reason, text } when every figure asked a precision of (the throughput ratio, and the CPU per row with
 * cpu_precision:) has its 95% interval within it over at least `forks:` forks compared, when another fork would
 * pass the budget (at the forks' mean time so far), or at MAX_FORKS. `unmeasured` says an asked figure the runs do
 * not give (the CPU per row of nodes not on this machine): its precision can never be reached.
 */
function forksDecision ({ study, contenders, forks, dir, fork }) {
  const ran = forksRun(forks)
  if (fork > MAX_FORKS) {
    return { stop: true, reason: 'forks', forks: ran, text: `${MAX_FORKS} forks, the most a comparison runs` }
  }
  const figures = askedFigures({ study, contenders, forks, dir })
  const throughput = figures.find((f) => f.key === 'precision') ?? null
  const widestPoints = throughput && Number.isFinite(throughput.widest) ? round(throughput.widest, 1) : null
  // forks: is the least compared: a lengthened comparison's pilot (forks.js pairedForks) is not among them.
  if (figures.length && figures.every((f) => f.within && f.paired >= study.forks)) {
    return { stop: true, reason: 'precision', forks: ran, widest_points: widestPoints,
      text: `${figures.map((f) => `${f.name}'s 95% interval is within ${f.width}`).join(', and ')} after ` +
        `${Math.min(...figures.map((f) => f.paired))} forks` }
  }
  const budgetS = budgetSeconds(study.budget)
  const spentS = spentOf(forks)
  const perForkS = perForkOf(forks)
  if (!fitsBudget({ budgetS, spentS, walls: ran ? [perForkS] : [] })) {
    const short = figures.map((f) => ({ figure: f, need: shortOf(f, { spentS, perForkS, ran }) }))
    return { stop: true, reason: 'budget', forks: ran, widest_points: widestPoints,
      // What each figure short of its precision would have taken at its spread: for a script to give it next time.
      needed: short.filter(({ need }) => need).map(({ figure, need }) => ({ figure: figure.key, forks: need.needed,
        budget: need.budget })),
      text: budgetSpentText({ budget: study.budget ?? DEFAULT_BUDGET, spentS, of: `${ran} forks`, nextS: perForkS }) +
      short.map(({ figure, need }) => `; the widest of ${figure.name}'s intervals is ${figure.width}` +
        (need ? `: ${need.text}` : '')).join('') }
  }
  const unmeasured = figures.find((f) => f.key !== 'precision' && ran >= 2 && f.paired === 0)
  const compared = pairedForks(dir, contenders.map((c) => c.name), forks)
  // Each compared fork's results, read once: the latest's count, and every window's own movement.
  const results = compared.map((fork) => resultsOf({ contenders, dir, fork }))
  const fewest = results.length ? fewestIn(results[results.length - 1]) : null
  const windowVariance = windowVarianceOf(results, { together: Boolean(study.duet) })
  const reached = figures.map((f) => reachableOf({ ...f, budgetS, spentS, perForkS, ran,
    requests: f.key === 'precision' && fewest ? fewest.requests : null, windowVariance })).filter(Boolean)
  return { stop: false, reachable: reached.find((r) => r.text) ?? reached[0] ?? null,
    ...(unmeasured ? { unmeasured: `${unmeasured.name} is in none of these runs (the nodes' CPU is read from this ` +
      `machine's /proc: nodes elsewhere, or another user's, give none): ${unmeasured.key} cannot be reached, and ` +
      'the forks stop at the budget' } : {}) }
}

/**
 * What the budget can reach at the spread measured so far: a figure's widest ratio's half-width (points) after every
 * fork the budget still holds, by Student's t over the pairs (its width shrinks as t(n - 1) / √n). Null before three
 * pairs (no spread to project). { forks, points, needed, text } with a text only when that falls short of the
 * precision asked: then the options cannot carry the study's promise, and the line says how many forks (and what
 * budget) would at this spread, and where the width comes from, for the throughput: `windowVariance`, what the
 * compared forks' windows hold of it (window-noise.js windowVarianceOf), or else `requests`, the fewest a run of the
 * latest fork measured (their count alone). A longer window narrows only that part; the rest is each fork's own.
 */
function reachableOf ({ key, name, widest, paired, budgetS, spentS, perForkS, precision, ran, requests = null,
  windowVariance = null }) {
  if (!Number.isFinite(widest) || paired < 3 || !(perForkS > 0)) return null
  const more = Math.max(0, Math.floor((budgetS - spentS) / perForkS))
  const n = paired + more
  const points = round(widthAt({ widest, paired }, n), 1)
  if (points <= precision) return { forks: ran + more, points, needed: null, text: null }
  const { needed, text: take } = neededOf({ widest, paired, precision, spentS, perForkS, ran })
  const head = `at the spread of these ${paired} forks, the budget's ${ran + more} reach about ±${fmt(points)} ` +
    `points of ${name}, not the ±${precision}% asked (${take}): `
  return { forks: ran + more, points, needed, text: head + whyOf({ key, points, n, requests, windowVariance }) }
}

/**
 * The half-width (points) a ratio whose interval over `paired` forks is ±`widest` would have over `forks` at the same
 * spread: an interval narrows as t(n - 1) / √n.
 */
const widthAt = ({ widest, paired }, forks) => widest * Math.sqrt(paired / forks) *
  studentTQuantile(0.975, forks - 1) / studentTQuantile(0.975, paired - 1)

/** What a figure short of its precision would have taken, after the budget (neededOf), or null. */
function shortOf (figure, { spentS, perForkS, ran }) {
  if (figure.within || !Number.isFinite(figure.widest) || figure.paired < 2 || !(perForkS > 0)) return null
  return neededOf({ ...figure, spentS, perForkS, ran })
}

/**
 * The forks a precision takes at the spread of `paired` forks compared (`widest` points), counted as the forks run
 * are (a lengthened comparison's pilot among them), and the budget that holds them at `perForkS` a fork from
 * `spentS`: { needed, budget, text }, needed and budget null past MAX_FORKS.
 */
function neededOf ({ widest, paired, precision, spentS, perForkS, ran }) {
  let compared = null
  for (let forks = paired + 1; forks <= MAX_FORKS && compared === null; forks++) {
    if (widthAt({ widest, paired }, forks) <= precision) compared = forks
  }
  if (compared === null) {
    return { needed: null, budget: null,
      text: `at this spread, ±${precision}% would take more than ${MAX_FORKS} forks` }
  }
  const minute = 60_000
  const budget = formatMs(Math.ceil((spentS + (compared - paired) * perForkS) * 1000 / minute) * minute)
  const needed = compared + ran - paired
  return { needed, budget, text: `at this spread, ±${precision}% would take about ${needed} forks, a budget of ` +
    `about ${budget}` }
}

/**
 * Where a projected width (`points` over `n` forks) comes from. Variances add: a part's share of the width's square
 * is its share of the spread.
 */
function whyOf ({ key, points, n, requests, windowVariance }) {
  const most = (part) => part ** 2 >= points ** 2 / 2
  const share = (part) => (part < 0.1 ? 'under ±0.1' : `±${fmt(round(part, 1))}`)
  if (key !== 'precision') {
    return 'the spread from fork to fork is all of it (each fork\'s nodes spend their own CPU per row), which ' +
      'more forks narrow: more budget, a quieter machine, or ask less'
  }
  if (windowVariance !== null) {
    const inWindows = noisePoints(windowVariance, n)
    return most(inWindows)
      ? `the ratio's movement within each run's window is the most of that (${share(inWindows)} points of it), ` +
        'which longer windows narrow: a longer duration; more budget, or ask less'
      : `the forks differ by more than their windows' own movement explains (it takes ${share(inWindows)} ` +
        'points of it): what differs is each fork\'s own (its nodes, the share of the machine they got), for the ' +
        'whole fork, which only more forks narrow (not longer windows): more budget, a quieter machine, or ask less'
  }
  const count = requests > 0 ? countPoints(requests, n) : null
  if (count === null) {
    return 'these runs give neither a timeline nor a count of requests to tell where it comes from: more budget, ' +
      'a longer duration, a quieter machine, or ask less'
  }
  return most(count)
    ? `each run's count of requests (${fmt(requests)} in the fewest) is the most of that (${share(count)} ` +
      'points of it): a longer duration, or smaller batches; more budget, or ask less'
    : `the spread from fork to fork is the most of that (each run's count of ${fmt(requests)} requests or more ` +
      `takes ${share(count)} points of it), which more forks narrow, and longer windows where the ratio moves ` +
      'within them (the runs\' length is set after fork 1): more budget, a longer duration, a quieter machine, ' +
      'or ask less'
}

/**
 * Whether fork `fork`'s runs ended a steady warm-up at its cap with their rate still moving: the line that says so,
 * with a cap that gives them longer, or null. Their figures measure nodes that were not warm: two fresh nodes on
 * one shared machine (a duet beside other work) climb for longer than one alone.
 */
function unsteadyWarmupLine ({ contenders, dir, fork }) {
  const unsteady = contenders.map((c) => ({ name: c.name, result: forkResult(dir, fork, c.name) }))
    .filter(({ result }) => result && result.warmup && result.warmup.until === 'steady' && !result.warmup.steady)
  if (unsteady.length === 0) return null
  const capS = Math.max(...unsteady.map(({ result }) => result.warmup.max_seconds))
  const moves = unsteady.map(({ name, result }) => (typeof result.warmup.change_pct === 'number'
    ? `${name} ${result.warmup.change_pct > 0 ? '+' : ''}${fmt(result.warmup.change_pct)}%` : name)).join(', ')
  return `fork ${fork}'s runs were still climbing when the warm-up's cap of ${fmt(capS)} s ended it (from one ` +
    `window to the next: ${moves}): their figures are of nodes not yet warm; --warmup ` +
    `steady:${formatMs(capS * 2000)} in run.args gives them longer`
}

/** The forks that ran whole (every contender's run done or failed after its time was spent): how many. */
const forksRun = (forks) => new Set(Object.entries(forks).filter(([, f]) => typeof f.wall_s === 'number')
  .map(([key]) => key.split('-')[0])).size

/**
 * A fork's time at the runs' length now: the mean over the forks that measured as long as the last did (forks of a
 * comparison whose runs were lengthened after the first take longer from then on), 0 before any ran.
 */
function perForkOf (forks) {
  const byFork = new Map()
  for (const [key, f] of Object.entries(forks).filter(([, f]) => typeof f.wall_s === 'number')) {
    const fork = Number(key.split('-')[0])
    const one = byFork.get(fork) ?? { wallS: 0, duration: f.duration ?? null }
    one.wallS += f.wall_s
    byFork.set(fork, one)
  }
  if (byFork.size === 0) return 0
  const last = byFork.get(Math.max(...byFork.keys())).duration
  const same = [...byFork.values()].filter((f) => f.duration === last)
  return same.reduce((a, f) => a + f.wallS, 0) / same.length
}

/** The time the forks took, each fork's once (its contenders' shares of it added up). */
const spentOf = (forks) => Object.values(forks).filter((f) => typeof f.wall_s === 'number')
  .reduce((a, f) => a + f.wall_s, 0)

/**
 * What a comparison's page and JSON say of how its forks were decided: the precision asked, the budget, why they
 * stopped, how many ran and how long they took. { precision, budget, forks, spent_s, reason, line }.
 */
function stoppingOf (study, forks, stop) {
  const sequential = Boolean(study.precision || study.budget)
  const ran = forksRun(forks || {})
  const spentS = Math.round(spentOf(forks || {}))
  const took = `the forks took ${formatMs(spentS * 1000)}`
  const why = stop ? stop.text : sequential ? `${ran} forks run so far` : `${ran} forks, as the study file asks`
  const asked = [study.precision ? `±${study.precision} on the throughput ratio` : null,
    study.cpu_precision ? `±${study.cpu_precision} on the CPU per row ratio` : null,
    `a budget of ${study.budget ?? DEFAULT_BUDGET}`].filter(Boolean).join(', ')
  return { precision: study.precision ?? null, cpu_precision: study.cpu_precision ?? null,
    budget: sequential ? study.budget ?? DEFAULT_BUDGET : null,
    forks: ran, spent_s: spentS, reason: stop ? stop.reason : sequential ? null : 'forks',
    ...(stop && stop.needed && stop.needed.length ? { needed: stop.needed } : {}),
    line: `forks: ${why}; ${took}${sequential ? ` (asked: ${asked})` : ''}` }
}

/**
 * Whether a duet's position moved its figures: the throughput of the contender started second against the one
 * started first, paired by fork (positions balanced over the duets: forks.js duetOrder). { change_pct, low_pct,
 * high_pct, forks, line, warning } or null before two duets recorded their order.
 */
function positionOf (dir, contenders, forks) {
  const pairs = []
  for (const fork of pairedForks(dir, contenders.map((c) => c.name), forks)) {
    const at = (position) => contenders.find((c) => (forks[forkKey(fork, c)] || {}).position === position)
    const [first, second] = [at(1), at(2)]
    if (!first || !second) continue
    const [b, n] = [rateOf(forkResult(dir, fork, first.name)), rateOf(forkResult(dir, fork, second.name))]
    if (b > 0 && n > 0) pairs.push([b, n])
  }
  const ratio = pairedRatio(pairs)
  if (!ratio) return null
  const [change, low, high, detectable] = [ratio.change_pct, ratio.low_pct, ratio.high_pct, ratio.detectable_pct]
    .map((x) => round(x, 1))
  const span = `${fmt(low)}% .. ${fmt(high)}%`
  const biased = ratio.low_pct > 0 || ratio.high_pct < 0
  const seen = biased ? 'a position effect' : `no position effect seen (a change under ${fmt(detectable)}% would ` +
    'not have been)'
  return { change_pct: change, low_pct: low, high_pct: high, detectable_pct: detectable, forks: pairs.length,
    line: `duet position: the contender started second measured ${fmt(change)}% against the one started first (95% ` +
      `interval ${span}, ${pairs.length} duets, each contender started first in turn): ${seen}`,
    warning: biased ? `duet: the contender started second was measured ${fmt(change)}% (${span}) ` +
      'against the one started first: this machine favours a position; each contender taking each position in ' +
      'turn cancels it in the mean ratio, but it widens the intervals' : null }
}

// A duet whose runs' measured windows overlap less than this share of the longer one met different moments.
const DUET_OVERLAP_SHARE = 0.9

/**
 * A run's measured window in ms since the epoch, [from, to]: as long as its rates' window, from its started_at (the
 * measured window's start: after the warm-up, however long that took).
 */
function measuredWindow (result) {
  if (!result || !result.started_at || !(result.seconds > 0)) return null
  const from = Date.parse(result.started_at)
  return Number.isFinite(from) ? [from, from + result.seconds * 1000] : null
}

/** The share of the longest of the results' measured windows during which all of them measured; null if unknown. */
function overlapShare (results) {
  const windows = results.map(measuredWindow)
  if (windows.length < 2 || windows.some((w) => w === null)) return null
  const overlap = Math.min(...windows.map((w) => w[1])) - Math.max(...windows.map((w) => w[0]))
  return Math.max(0, overlap) / Math.max(...windows.map((w) => w[1] - w[0]))
}

/**
 * What a duet's ratio cannot see, said on its page: the contenders share this machine (one disk: a change of disk
 * traffic slows both), a run whose load generator was the limit measured the generator, and a fork (of
 * `forkNumbers`) whose runs measured at different moments is less of a duet.
 */
function duetNotes (dir, contenders, results, forkNumbers = []) {
  const notes = []
  const devices = contenders.map((c) => {
    try {
      return fs.statSync(forkPath(dir, `1-${c.name}`, '-cluster')).dev
    } catch {
      return null
    }
  })
  const shared = devices.every((d) => d !== null && d === devices[0])
  notes.push(`duet: the contenders ran at once on this machine, sharing its cores and memory${shared
    ? ` and one disk (device ${devices[0]})` : ''}: its ratio holds for a change of the contender's own work (a ` +
    'setting, a build); a change in disk or memory traffic slows the other contender too, and the ratio shows part ' +
    'of it only')
  const bound = results.filter((r) => r.client && r.client.saturated)
  if (bound.length) {
    notes.push(`duet: ${bound.length} run${bound.length === 1 ? '' : 's'} had the load generator as the limit (` +
      `${bound.map((r) => (r.options && r.options.run_id) || 'a run').join(', ')}): the ratio of such a duet ` +
      'measures the generators sharing the machine, not the clusters: give fewer requests in flight, or --rate')
  }
  const apart = forkNumbers.map((fork) => ({ fork, share: overlapShare(contenders.map((c) => forkResult(dir, fork,
    c.name))) })).filter((f) => f.share !== null && f.share < DUET_OVERLAP_SHARE)
  if (apart.length) {
    notes.push(`duet: the measured windows of ${apart.map((f) => `fork ${f.fork} overlapped ${Math.round(f.share *
      100)}%`).join(', ')} of the longer one: those contenders met partly different moments of the machine (one ` +
      'took longer to start its load): the ratio of such a fork holds less of the duet\'s protection')
  }
  return notes
}

/**
 * "calibration: an A/A study of a (5 forks, paired): this study could see changes of 4% or more in rows/s (its A/A
 * interval −2.1% .. +1.8%)", from the calibration's comparison; a difference found in an A/A said as the warning it is.
 */
function calibrationLine (comparisons, study) {
  const c = comparisons[0]
  const rate = c && c.figures.find((f) => f.figure.endsWith('/s'))
  const how = `${c ? c.forks.length : 0} forks, ${study.duet ? 'duets' : 'paired'}`
  if (!rate || rate.detectable_pct === null || !rate.ci_pct) {
    return `calibration: an A/A study of ${c ? c.base : 'the first contender'} (${how}): too few forks to say what ` +
      'this study can see'
  }
  const aa = `its A/A interval ${fmt(rate.ci_pct[0])}% .. ${fmt(rate.ci_pct[1])}%`
  if (rate.verdict !== 'no significant difference') {
    return `calibration: WARNING: an A/A study of ${c.base} (${how}) found the same cluster ${rate.verdict} than ` +
      `itself (${aa}): the machine drifted more than the forks catch; read every verdict below with that in mind`
  }
  return `calibration: an A/A study of ${c.base} (${how}): this study could see changes of ` +
    `${fmt(rate.detectable_pct)}% or more in ${rate.figure} (${aa})`
}

module.exports = { forksDecision, duetNotes, calibrationLine, ratiosOf, overlapShare, stoppingOf, positionOf,
  unsteadyWarmupLine, perForkOf }
