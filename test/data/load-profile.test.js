'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { parseStages, checkSteeredRate, LoadProfile } = require('../../lib/data/load-profile')
const { UsageError } = require('../../lib/base/errors')

const close = (actual, expected, what) => assert.ok(Math.abs(actual - expected) < 1e-6,
  `${what}: ${actual} != ${expected}`)

test('stages: holds and linear ramps, in order, with whole-second durations', () => {
  assert.deepEqual(parseStages('2m:50, 30s:100,1m:0..500,1s:2.5..0.5'), [
    { durationMs: 120_000, from: 50, to: 50 },
    { durationMs: 30_000, from: 100, to: 100 },
    { durationMs: 60_000, from: 0, to: 500 },
    { durationMs: 1000, from: 2.5, to: 0.5 }
  ])
})

test('a malformed stage is one line naming the stage and what is wrong', () => {
  for (const [text, message] of [
    ['', /must be stages such as/],
    ['2m:50,,1m:10', /must be stages such as/],
    ['2m', /stage 1 '2m': write DURATION:RATE/],
    ['2m:50:1', /stage 1 '2m:50:1': write DURATION:RATE/],
    ['2m:1..2..3', /write DURATION:RATE/],
    ['10x:50', /stage 1 '10x:50': its duration must be a positive duration/],
    ['1500ms:50', /its duration must be whole seconds/],
    ['1m:-5', /a rate must be a decimal number >= 0/],
    ['1m:abc', /a rate must be a decimal number >= 0/],
    ['1m:0x10', /a rate must be a decimal number >= 0 of units per second \(got '0x10'\)/],
    ['1m:1e3', /a rate must be a decimal number/],
    ['1m: 12', /a rate must be a decimal number/],
    ['1s:1e-320', /a rate must be a decimal number/],
    ['1s:0.0000001', /a rate is 0 \(a pause\) or at least 0\.001 units\/s/],
    ['1m:1000000000000', /is no load/],
    ['1m:0,30s:0..0', /every stage has rate 0/]
  ]) {
    assert.throws(() => parseStages(text), (e) => e instanceof UsageError && message.test(e.message) &&
      !e.message.includes('\n'), text)
  }
})

test('the units due and the instant each is due invert each other, across holds, ramps and pauses', () => {
  const profile = LoadProfile.ofStages(parseStages('10s:100,10s:100..300,5s:0,10s:0..100'))
  assert.equal(profile.endMs, 35_000)
  close(profile.unitsBy(10_000), 1000, 'hold')
  close(profile.unitsBy(20_000), 1000 + 2000, 'ramp: mean 200 over 10 s')
  close(profile.unitsBy(25_000), 3000, 'pause')
  close(profile.unitsBy(35_000), 3000 + 500, 'ramp from 0')
  close(profile.unitsBy(99_000), 3500, 'nothing after the end')
  close(profile.rateAt(15_000), 200, 'middle of the ramp')
  close(profile.rateAt(22_000), 0, 'pause')
  assert.equal(profile.rateAt(40_000), 0)
  for (const units of [0.5, 1, 999, 1000, 1500, 2999, 3000, 3000.5, 3200, 3500]) {
    const t = profile.timeOfUnits(units)
    close(profile.unitsBy(t), units, `unit ${units}`)
    assert.ok(t < 22_000 || t >= 25_000, `unit ${units} due during the pause (${t})`)
  }
  // The first unit after the pause is due after it, never in it.
  assert.ok(profile.timeOfUnits(3000.01) > 25_000)
  assert.equal(profile.timeOfUnits(3500.01), Infinity)
  assert.equal(LoadProfile.ofStages(parseStages('5s:0,5s:10')).timeOfUnits(0), 5000)
})

test('a constant rate is today\'s timetable: unit k at k / rate', () => {
  const profile = LoadProfile.constant(250)
  for (const k of [0, 1, 10, 12_345]) close(profile.timeOfUnits(k), (k * 1000) / 250, `unit ${k}`)
  assert.equal(profile.endMs, Infinity)
  close(profile.meanRate(0, 60_000), 250, 'mean')
})

test('steering cuts the profile where it happens and holds the new rate to the end', () => {
  const planned = LoadProfile.ofStages(parseStages('10s:100,10s:200'))
  const steered = planned.steered(5000, 400, planned.endMs)
  close(steered.unitsBy(5000), 500, 'what was due before stays')
  close(steered.unitsBy(20_000), 500 + 400 * 15, 'then 400/s to the end')
  assert.equal(steered.endMs, 20_000)
  close(steered.meanRate(10_000, 20_000), 400, 'the second stage asked 400/s in the end')
  // In the middle of a ramp: continuous in units.
  const ramp = LoadProfile.ofStages(parseStages('10s:0..100'))
  const cut = ramp.steered(4000, 10, ramp.endMs)
  close(cut.unitsBy(4000), ramp.unitsBy(4000), 'continuous at the cut')
  close(cut.rateAt(3999.999), ramp.rateAt(3999.999), 'the ramp before the cut')
  close(LoadProfile.constant(50).steered(2000, 80).timeOfUnits(100 + 80), 3000, 'an open --rate run')
})

test('scaled gives each worker its share of every stage', () => {
  const share = LoadProfile.ofStages(parseStages('10s:90..30')).scaled(1 / 3)
  close(share.unitsBy(10_000), 200, 'a third of 600')
})

test('a steered rate is a positive number within bounds, with the reason when not', () => {
  assert.deepEqual(checkSteeredRate(120), { rate: 120 })
  assert.deepEqual(checkSteeredRate(75.5), { rate: 75.5 })
  assert.deepEqual(checkSteeredRate(0.001), { rate: 0.001 })
  assert.match(checkSteeredRate(0).error, /above 0/)
  assert.match(checkSteeredRate(-3).error, /above 0/)
  assert.match(checkSteeredRate(5e-324).error, /at least 0\.001/)
  for (const text of ['75.5', '0x10', ' 12 ', '25', 'x', null, true]) {
    assert.match(checkSteeredRate(text).error, /must be a JSON number such as 250 or 12\.5/, JSON.stringify(text))
  }
  assert.match(checkSteeredRate(1e15).error, /at most/)
})

test('more than 1,000 stages: one line naming the cap', () => {
  const many = Array.from({ length: 1001 }, () => '1s:10').join(',')
  assert.throws(() => parseStages(many), (e) => e instanceof UsageError &&
    /--stages has 1001 stages; at most 1000 \(write a long ramp as one stage/.test(e.message))
  assert.equal(parseStages(many.slice(0, -6)).length, 1000)
})
