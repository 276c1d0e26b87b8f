'use strict'

const { UsageError } = require('../base/errors')
const { MIN_LOAD_S } = require('./drift')

/** The stages judged and kept up (lib/results/stages.js writes kept_up; read here to spare a cycle of requires). */
function stagesKeptUp (stages) {
  if (!Array.isArray(stages)) return null
  const judged = stages.filter((s) => s.kept_up && s.kept_up.kept !== null)
  return { kept: judged.filter((s) => s.kept_up.kept).length, judged: judged.length }
}

// --threshold "p99<250ms", "failed=0", "rows_per_sec>=40000", per query or table with a prefix:
// "latest CPU metrics of a host:p99<50ms". The run's report ends with a pass/fail table, and a
// run that misses one exits with its own code.

const LATENCY = ['p50', 'p90', 'p95', 'p99', 'p999', 'max', 'mean']
const COUNTS = ['failed', 'in_doubt', 'dropped']
const RATES = ['per_sec', 'rows_per_sec', 'queries_per_sec', 'achieved_pct']
// What changed from the first to the last tenth of the load (result.drift), in percent: "drift_throughput_pct>-10".
const DRIFT = { drift_throughput_pct: 'throughput_change_pct', drift_p99_pct: 'p99_change_pct' }
const OPERATORS = {
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
  '=': (a, b) => a === b,
  '==': (a, b) => a === b
}
const THRESHOLD = /^(\w+)\s*(<=|>=|==|<|>|=)\s*(-?[\d.]+)\s*(ms|s)?$/

// "stages_kept_up=all": with --stages, every stage judged kept up (a knee misses it).
const STAGES_KEPT_UP = /^stages_kept_up\s*=\s*all$/

function parseThreshold (text) {
  const raw = String(text)
  if (STAGES_KEPT_UP.test(raw.trim())) {
    return { text: raw, label: null, metric: 'stages_kept_up', op: '=', limit: 'all' }
  }
  const colon = raw.lastIndexOf(':')
  const label = colon >= 0 ? raw.slice(0, colon).trim() : null
  const m = THRESHOLD.exec(raw.slice(colon + 1).trim())
  const fail = (why) =>
    new UsageError(
      `--threshold '${raw}': ${why} (e.g. "p99<250ms", "failed=0", "rows_per_sec>=40000", "query name:p99<50ms")`
    )
  if (!m) throw fail('not <metric><operator><value>')
  const [, metric, op, number, unit] = m
  const known = [...LATENCY, ...COUNTS, ...RATES, ...Object.keys(DRIFT), 'stages_kept_up (=all)']
  if (!known.includes(metric)) throw fail(`unknown metric '${metric}'; known: ${known.join(', ')}`)
  if (unit && !LATENCY.includes(metric)) throw fail(`'${metric}' takes no unit`)
  const value = Number(number)
  if (!Number.isFinite(value)) throw fail(`'${number}' is not a number`)
  if (label === '') throw fail('an empty name before the colon')
  if (label !== null && (metric === 'achieved_pct' || DRIFT[metric])) throw fail(`${metric} is for the whole run`)
  if (number.startsWith('-') && !DRIFT[metric]) throw fail(`'${metric}' cannot be negative`)
  return { text: raw, label, metric, op, limit: unit === 's' ? value * 1000 : value }
}

/** The value a threshold checks, from the result, the query or the table it names. */
function actualOf ({ label, metric }, result, unit) {
  let scope = result
  if (label !== null) {
    // The ingest beside a query mix (--ingest_rate) is judged as "ingest:…", or by its table's name.
    const companion = result.ingest && result.ingest.workload === 'ingest' ? result.ingest : null
    scope = (result.queries || []).find((q) => q.name === label) || (result.tables || []).find((t) => t.name === label)
    if (!scope && companion && label === 'ingest') return actualOf({ label: null, metric }, companion, 'rows')
    if (!scope && companion) scope = (companion.tables || []).find((t) => t.name === label)
    if (!scope) return undefined
  }
  if (DRIFT[metric]) return result.drift ? result.drift[DRIFT[metric]] : null
  if (LATENCY.includes(metric)) return scope.latency_ms ? scope.latency_ms[metric] : null
  if (metric === 'achieved_pct') return result.rate ? result.rate.achieved_pct : null
  if (metric === 'failed') return label === null ? result[`${unit}_failed`] : scope.failed ?? scope.rows_failed
  if (metric === 'in_doubt') return label === null ? result[`${unit}_in_doubt`] : null
  if (metric === 'dropped') return label === null && result.rate ? result.rate.dropped_requests ?? 0 : null
  return label === null ? result[`${unit}_per_sec`] : scope.queries_per_sec ?? scope.rows_per_sec
}

/** Each threshold with the value it met and whether it passed; a value missing is a miss. */
function evaluateThresholds (thresholds, result, unit) {
  return thresholds.map((t) => {
    if (t.metric === 'stages_kept_up') {
      const stages = stagesKeptUp(result.stages)
      return { threshold: t.text, label: null, metric: t.metric, op: t.op, limit: t.limit,
        actual: stages ? `${stages.kept} of ${stages.judged} kept up` : null,
        passed: stages !== null && stages.kept === stages.judged }
    }
    const actual = actualOf(t, result, unit)
    const passed = typeof actual === 'number' && OPERATORS[t.op](actual, t.limit)
    return {
      threshold: t.text,
      label: t.label,
      metric: t.metric,
      op: t.op,
      limit: t.limit,
      actual: actual ?? null,
      passed
    }
  })
}

/** A threshold that names a query or table the run does not have is a usage error before the run. */
/** achieved_pct compares with a target: without --rate there is none, and the check could only fail after the run. */
function requireRateForAchieved (thresholds, rate) {
  const needsRate = thresholds.find((t) => t.metric === 'achieved_pct')
  if (needsRate && (rate === null || rate === undefined)) {
    throw new UsageError(`--threshold '${needsRate.text}': achieved_pct needs a target rate: give --rate`)
  }
}


/**
 * A drift threshold on a run whose --duration is under a minute could only fail after it ("n/a"): refused before.
 * Without --duration (a count ends the run) the run may be long enough; its threshold says so when it is not.
 */
function requireLoadForDrift (thresholds, durationMs) {
  const drift = thresholds.find((t) => DRIFT[t.metric])
  // A drift compares the first and last tenth of a load of MIN_LOAD_S or more: a shorter one has none.
  if (drift && typeof durationMs === 'number' && durationMs > 0 && durationMs < MIN_LOAD_S * 1000) {
    throw new UsageError(`--threshold '${drift.text}': a drift needs a load of a minute or more (the first and last ` +
      `tenth compared); --duration is ${durationMs / 1000} s`)
  }
}

function requireKnownLabels (thresholds, labels) {
  for (const t of thresholds) {
    if (t.label !== null && !labels.includes(t.label)) {
      throw new UsageError(
        `--threshold '${t.text}': no query or table named '${t.label}' (there are: ${labels.join(', ')})`
      )
    }
  }
}

module.exports = { parseThreshold, evaluateThresholds, requireKnownLabels, requireRateForAchieved,
  requireLoadForDrift }
