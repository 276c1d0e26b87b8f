'use strict'

// What the generator tests give a row generator unless a test says otherwise: one worker of one, 10 hosts, rows
// every 10 s from the start of 2016.

const START = Date.UTC(2016, 0, 1)

const generatorSettings = (over = {}) => ({
  seed: 1,
  scale: 10,
  workerIndex: 0,
  workerCount: 1,
  startMs: START,
  intervalMs: 10_000,
  ...over
})

module.exports = { START, generatorSettings }
