'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { isSaturated, SATURATED_CPU_PCT, SATURATED_LOOP_DELAY_MS } = require('../../lib/results/result')

test('a worker at 90% of a core or with an event-loop delay p99 of 100 ms marks the client as saturated', () => {
  assert.equal(SATURATED_CPU_PCT, 90)
  assert.equal(SATURATED_LOOP_DELAY_MS, 100)
  assert.equal(
    isSaturated([
      { cpu_pct: 63, event_loop_delay_p99_ms: 30 },
      { cpu_pct: 70, event_loop_delay_p99_ms: null }
    ]),
    false
  )
  assert.equal(
    isSaturated([
      { cpu_pct: 63, event_loop_delay_p99_ms: 30 },
      { cpu_pct: 90, event_loop_delay_p99_ms: 5 }
    ]),
    true
  )
  assert.equal(isSaturated([{ cpu_pct: 40, event_loop_delay_p99_ms: 100 }]), true)
  assert.equal(isSaturated([]), false, 'no worker measured (nothing ran): not saturated')
})
