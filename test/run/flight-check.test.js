'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { FlightCheck, flightWarning } = require('../../lib/run/flight-check')
const { joined } = require('../helpers/patterns')

const delta = (ok, lateRequests) => ({ series: { q: { ok } }, warmupSeries: {}, lateRequests })

test('the first second that served a --rate short with requests late says so once, with the flight that would serve it',
  () => {
  const check = new FlightCheck({ targetAt: () => 50, inFlight: 4, unit: 'queries' })
  assert.equal(check.addDelta(delta(14, 10), 500), null, 'not before a second of load')
  const warning = check.addDelta(delta(14, 12), 1000)
  // 28 queries in 1 s of 50 targeted: 4 × 50 / 28 × 1.1 = 7.9 → 8, as the node needed.
  assert.equal(warning, 'warning: in the first second, 4 requests in flight per process served about 28 queries/s of ' +
    'the 50 targeted, 22 requests due while every one was busy: raise --concurrent_requests to at least 8 (the run ' +
    'goes on; if the latency grows with the flight, the cluster is the limit)')
  assert.equal(check.addDelta(delta(14, 12), 2000), null, 'once')
})

test('no warning when the rate is served, when nothing was late (the answers, not the flight), or with no target',
  () => {
  assert.equal(flightWarning({ targetPerSec: 50, servedPerSec: 49, late: 3, inFlight: 4, unit: 'queries' }), null)
  assert.equal(flightWarning({ targetPerSec: 50, servedPerSec: 20, late: 0, inFlight: 4, unit: 'queries' }), null)
  assert.equal(flightWarning({ targetPerSec: undefined, servedPerSec: 20, late: 9, inFlight: 4, unit: 'rows' }), null)
  assert.equal(flightWarning({ targetPerSec: 50, servedPerSec: 0, late: 9, inFlight: 4, unit: 'queries' }), null,
    'nothing answered yet: no flight to name (the report says the same of a run that served nothing)')
  const rows = flightWarning({ targetPerSec: 200_000, servedPerSec: 50_000, late: 40, inFlight: 2, unit: 'rows' })
  assert.match(rows,
    joined(
      /2 requests in flight per process served about 50,000 rows\/s of the 200,000 targeted, 40 /,
      /requests due while every one was busy: raise --concurrent_requests to at least 9/))
})
