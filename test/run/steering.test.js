'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { Steering } = require('../../lib/run/steering')
const { parseStages } = require('../../lib/data/load-profile')

/** Steering over groups whose worker groups record what they were told, on a clock the test moves. */
function steeringOf ({ main = {}, companion = null, deadline = 20_000 } = {}) {
  const clock = { t: 0 }
  const told = []
  const group = (role, name, unit, options) => ({
    role, name, unit, options, workerGroup: { steer: (at, rate) => told.push({ role, at, rate }) }
  })
  const groups = [group('main', 'analytical', 'queries', main)]
  if (companion) groups.push(group('companion', 'ingest', 'rows', companion))
  const steering = new Steering({ groups, startAt: 0, deadline, now: () => clock.t })
  return { steering, clock, told }
}

test('a rate changed by hand reaches the workers and is an event with what it was and what it became', () => {
  const { steering, clock, told } = steeringOf({ main: { rate: 50 }, companion: { rate: 1000 } })
  const seen = []
  steering.on('event', (e) => seen.push(e))
  clock.t = 4000
  const answer = steering.setRate('main', 100, 'page')
  assert.equal(answer.ok, true)
  assert.deepEqual(told, [{ role: 'main', at: 4000, rate: 100 }])
  assert.deepEqual(seen.map((e) => [e.at_s, e.kind, e.what, e.from, e.to, e.by]), [[4, 'rate_change', 'rate', 50, 100,
    'page']])
  assert.match(seen[0].detail, /rate 50 -> 100 queries\/s \(page\)/)
  clock.t = 6000
  assert.equal(steering.setRate('companion', '2500').status, 400, 'a string is no JSON number')
  steering.setRate('companion', 2500)
  assert.deepEqual(steering.events.map((e) => e.what), ['rate', 'ingest_rate'])
  assert.equal(steering.changed('main'), true)
  // What the groups were asked, as it really was: 50 for 4 s then 100 for 16 s.
  assert.equal(steering.profiles().main.meanRate(0, 20_000), (50 * 4 + 100 * 16) / 20)
  assert.deepEqual(steering.describe().map((g) => [g.role, g.target_per_sec, g.flag]),
    [['main', 100, 'rate'], ['companion', 2500, 'ingest_rate']])
})

test('stages: the first change by hand takes the run off its profile, said once', () => {
  const { steering, clock } = steeringOf({ main: { stages: parseStages('10s:50,10s:150') } })
  clock.t = 12_000
  steering.setRate('main', 80)
  clock.t = 15_000
  steering.setRate('main', 90)
  assert.deepEqual(steering.events.map((e) => e.kind), ['off_profile', 'rate_change', 'rate_change'])
  assert.equal(steering.events[1].from, 150)
  assert.equal(steering.profiles().main.rateAt(19_000), 90)
  assert.equal(steering.profiles().main.rateAt(5000), 50, 'the past stays as it was')
})

test('what cannot be changed is refused with the API\'s status and why', () => {
  const closed = steeringOf({ main: {} })
  refused(closed.steering.setRate('main', 10), 409, /as fast as the answers come/)
  refused(closed.steering.setRate('companion', 10), 404, /no load group 'companion'/)
  const open = steeringOf({ main: { rate: 10 } })
  refused(open.steering.setRate('main', 0), 400, /above 0/)
  refused(open.steering.setRate('main', 'fast'), 400, /must be a JSON number/)
  open.clock.t = 25_000
  refused(open.steering.setRate('main', 20), 409, /the load has ended/)
  assert.equal(open.told.length, 0, 'nothing reached the workers')
  assert.equal(open.steering.events.length, 0)
})

test('stop is asked once, as an event, and then no rate changes', () => {
  const { steering, clock } = steeringOf({ main: { rate: 10 } })
  const stops = []
  steering.on('stop', (s) => stops.push(s))
  clock.t = 3000
  assert.deepEqual(steering.stop('page'), { ok: true })
  assert.deepEqual(steering.stop('api'), { ok: true, already: true })
  assert.deepEqual(stops, [{ by: 'page' }])
  assert.deepEqual(steering.stopped, { by: 'page', at: 3000 }, 'when: the verdicts judge the time that ran')
  refused(steering.setRate('main', 20), 409, /stopping/)
  assert.deepEqual(steering.events.map((e) => [e.at_s, e.kind, e.by]), [[3, 'user_stop', 'page']])
})

function refused (answer, status, pattern) {
  assert.equal(answer.ok, false)
  assert.equal(answer.status, status)
  assert.match(answer.error, pattern)
}

test('changes within a second of each other are one event with their count; the events stay bounded',
  () => {
    const { steering, clock } = steeringOf({ main: { rate: 10 } })
    clock.t = 0
    const duration = 10_000_000
    steering.deadline = duration
    const changes = 2200
    for (let i = 0; i < changes; i++) {
      // 2 changes 1 ms apart, then a 2-s pause: a burst a script makes.
      clock.t = Math.floor(i / 2) * 2000 + (i % 2)
      const answer = steering.setRate('main', 100 + (i % 7))
      assert.equal(answer.ok, true)
    }
    assert.equal(steering.events.length, 1000, 'at most 1,000 events kept')
    const first = steering.events[0]
    assert.equal(first.changes, 2)
    assert.equal(first.to, 101)
    assert.match(first.detail, /^rate 10 -> 101 queries\/s \(api, 2 changes until 101\)$/)
    const last = steering.events.at(-1)
    assert.equal(last.changes, 2 * 101, 'past the cap, every change joins the last event')
    assert.equal(last.to, 100 + ((changes - 1) % 7))
    // The target the report judges is still every change exactly.
    assert.equal(steering.profiles().main.rateAt(clock.t), 100 + ((changes - 1) % 7))
    steering.stop('api')
    assert.equal(steering.events.at(-1).kind, 'user_stop', 'the stop is kept past the cap')
  })

test('a rate typed by mistake and taken back within the second: ' +
  'one event that keeps the highest rate it passed through',
  () => {
    const { steering, clock } = steeringOf({ main: { rate: 2000 } })
    clock.t = 5000
    steering.setRate('main', 1e9)
    clock.t = 5026
    steering.setRate('main', 1000)
    assert.equal(steering.events.length, 1)
    const [event] = steering.events
    assert.deepEqual([event.from, event.to, event.highest, event.changes], [2000, 1000, 1e9, 2])
    assert.match(event.detail, /^rate 2000 -> 1000 queries\/s \(api, 2 changes until 1000, up to 1000000000\)$/)
  })
