'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { parseThreshold, evaluateThresholds, requireKnownLabels } = require('../../lib/results/thresholds')
const { UsageError } = require('../../lib/base/errors')

const result = {
  rows_failed: 0,
  rows_in_doubt: 12,
  rows_per_sec: 41_000,
  latency_ms: { p50: 10, p99: 240, max: 300, mean: 20 },
  rate: { achieved_pct: 98.5 },
  queries: [{ name: 'latest: host', failed: 1, queries_per_sec: 5, latency_ms: { p99: 60 } }]
}

test('syntax: metric, operator, value and unit; an optional name before the last colon', () => {
  assert.deepEqual(parseThreshold('p99<250ms'), { text: 'p99<250ms', label: null, metric: 'p99', op: '<', limit: 250 })
  assert.deepEqual(parseThreshold('p99 <= 0.5s'), { text: 'p99 <= 0.5s', label: null, metric: 'p99', op: '<=',
    limit: 500 })
  assert.equal(parseThreshold('latest: host:p99<50ms').label, 'latest: host')
  for (const [bad, why] of [['p99<<3', /not <metric><operator><value>/], ['p98<3', /unknown metric 'p98'/],
    ['failed=0ms', /'failed' takes no unit/], [':p99<3', /an empty name/], ['q:achieved_pct>=99',
      /achieved_pct is for the whole run/]]) {
    assert.throws(() => parseThreshold(bad), (e) => e instanceof UsageError && why.test(e.message), bad)
  }
})

test('each threshold is checked against the run, its query or its table; a value the run lacks is a miss', () => {
  const checked = evaluateThresholds(['p99<250ms', 'failed=0', 'in_doubt=0', 'rows_per_sec>=40000', 'achieved_pct>=99',
    'latest: host:p99<50ms', 'latest: host:failed=1'].map(parseThreshold), result, 'rows')
  assert.deepEqual(checked.map((c) => [c.threshold, c.actual, c.passed]), [
    ['p99<250ms', 240, true],
    ['failed=0', 0, true],
    ['in_doubt=0', 12, false],
    ['rows_per_sec>=40000', 41_000, true],
    ['achieved_pct>=99', 98.5, false],
    ['latest: host:p99<50ms', 60, false],
    ['latest: host:failed=1', 1, true]
  ])
  assert.deepEqual(evaluateThresholds([parseThreshold('p999<1')], { latency_ms: { p999: null } },
    'rows').map((c) => c.passed), [false])
})

test('a name the run does not have is a usage error before the run', () => {
  assert.throws(() => requireKnownLabels([parseThreshold('nope:p99<3')], ['a', 'b']),
    /no query or table named 'nope' \(there are: a, b\)/)
  requireKnownLabels([parseThreshold('a:p99<3')], ['a', 'b'])
})

// Issue 57 (item 10): a drift threshold on a run too short to have a drift is refused before the run.
test('a drift threshold with a --duration under a minute is a usage error before the run; without one it waits', () => {
  const { requireLoadForDrift } = require('../../lib/results/thresholds')
  const drift = [parseThreshold('drift_p99_pct<100')]
  assert.throws(() => requireLoadForDrift(drift, 30_000),
    /--threshold 'drift_p99_pct<100': a drift needs a load of a minute or more .*--duration is 30 s/)
  assert.doesNotThrow(() => requireLoadForDrift(drift, 60_000))
  assert.doesNotThrow(() => requireLoadForDrift(drift, undefined), 'a run that ends at a count may be long enough')
  assert.doesNotThrow(() => requireLoadForDrift([parseThreshold('p99<250ms')], 1000))
})
