'use strict'

// A comparison conducted in-process: its study file parsed as the command parses it, its clusters started by a start
// that starts nothing, its runs a scripted benchmark on a fake clock (each run takes a minute's warm-up and its
// --duration). What it checks: runs too short for the precision asked measure longer from fork 2 on, as far as the
// budget holds four more forks; study.json keeps that length and a resume reads it back; a comparison after its
// calibration measures at the calibration's length from its first fork; a duet's contenders start first in turn.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { EventEmitter } = require('node:events')
const { parseArgs } = require('../../lib/study/command')
const { readProgress } = require('../../lib/study/progress')
const { runComparison } = require('../../lib/study/comparison')
const { scriptedResult } = require('../helpers/grid-model')
const { memoryStream } = require('../helpers/memory-stream')
const { tempDir } = require('../helpers/temp-files')

/** Clusters that start nothing: each record written, no node ever lost. */
const fakeClusters = {
  start: async (options, { recordFile }) => {
    const record = { name: options.name, version: '6.4.3', build_hash: 'abc', nodes: 1, heap: '512m', ports: [],
      on: 'this machine', by: 'the study' }
    fs.mkdirSync(path.dirname(recordFile), { recursive: true })
    fs.writeFileSync(recordFile, JSON.stringify(record))
    return { target: { keepLostNodeLogs: () => [] }, record, recordFile }
  },
  stop: async () => null
}

/**
 * The benchmark as a script: a request of 5,000 rows a second (a slow cluster: its rate moves only the ratio, the
 * count of requests decides the runs' length), the second contender's within ±0.5% of the
 * first's; each run moves the clock by a minute's warm-up and its --duration. Records every run's --duration.
 */
function scriptedRuns (clock) {
  const durations = []
  const run = async ({ args, resultFile, logFile }) => {
    const seconds = Number.parseInt(args[args.lastIndexOf('--duration') + 1], 10)
    durations.push({ run: path.basename(resultFile, '.json'), seconds })
    clock.ms += (60 + seconds) * 1000
    const wobble = 1 + ((durations.length * 7) % 11 - 5) / 1000
    fs.writeFileSync(logFile, 'report\n')
    fs.writeFileSync(resultFile, JSON.stringify({ ...scriptedResult({ batch_size: 5000, concurrent_requests: 4 }),
      seconds, requests: seconds, rows_per_sec: 10_000 * wobble, rows_ok: 10_000 * wobble * seconds }))
    return { code: 0, signal: null }
  }
  return { run, durations }
}

async function conduct (t, { calibrate = false, duet = false, dir = tempDir(t) } = {}) {
  const file = path.join(dir, 'study.yml')
  fs.writeFileSync(file, `contenders:
  - {name: a, version: 6.4.3, nodes: 1, http_port: 4900}
  - {name: b, version: 6.4.3, nodes: 1, http_port: 4950}
precision: 3%
budget: 20m
calibrate: ${calibrate}
duet: ${duet}
run:
  workload: ingest
  args: [--batch_size, '5000', --concurrent_requests, '4', --duration, 20s]
`)
  const config = parseArgs([file, '--out', path.join(dir, 'out')], {})
  fs.mkdirSync(config.out, { recursive: true })
  const progress = readProgress(path.join(config.out, 'study.json'), config.study)
  const clock = { ms: 0 }
  const runs = scriptedRuns(clock)
  const stderr = memoryStream()
  const code = await runComparison(config, progress, { stderr, signals: Object.assign(new EventEmitter(),
    { interrupted: false }), run: runs.run, env: {}, random: () => 0, clusters: fakeClusters, now: () => clock.ms })
  return { code, stderr: stderr.text, runs, progress, config, dir }
}

test('runs too short for the precision measure longer from fork 2 on, and a resume keeps that length', async (t) => {
  const { code, stderr, runs, progress, config, dir } = await conduct(t)
  assert.equal(code, 0, stderr)
  // Fork 1: 20 requests in each 20-s window, ±2.7 points over the 7 paired forks of 160 s that 20 minutes hold; at
  // 70 s, 70 requests and ±1.3 points over 4 forks: within half the ±3% asked.
  assert.deepEqual(runs.durations.slice(0, 2).map((d) => d.seconds), [20, 20])
  assert.ok(runs.durations.length > 2, stderr)
  assert.deepEqual([...new Set(runs.durations.slice(2).map((d) => d.seconds))], [70])
  assert.match(stderr, /forks: fork 1's runs measured as few as 20 requests in their 20-s windows: .*; from fork 2 on /)
  assert.match(stderr, /each run measures 70s instead of 20s \(about 70 requests: ±1\.3 points over 4 forks\), and /)
  assert.deepEqual({ duration: progress.run_length.duration, from_fork: progress.run_length.from_fork,
    in: progress.run_length.in }, { duration: '70s', from_fork: 2, in: 'comparison' })
  assert.equal(progress.forks['2-a'].duration, '70s')
  assert.equal(progress.forks['1-a'].duration, undefined)
  const saved = JSON.parse(fs.readFileSync(path.join(config.out, 'comparison.json'), 'utf8'))
  assert.equal(saved.run_length.duration, '70s')
  // Fork 1 was the lengthened runs' pilot: its results stay, its pair is compared no more.
  assert.ok(fs.existsSync(path.join(config.out, 'forks', '1-a.json')))
  assert.deepEqual(saved.comparisons[0].forks, Object.keys(progress.forks).filter((k) => k.endsWith('-a'))
    .map((k) => Number(k.split('-')[0])).filter((f) => f > 1))
  const page = fs.readFileSync(path.join(config.out, 'comparison.html'), 'utf8')
  assert.ok(page.includes('<li>runs: fork 1&#39;s runs measured as few as 20 requests'), 'the page says it')
  // The same command again: every fork done, the length read back, no run made.
  const again = await conduct(t, { dir })
  assert.equal(again.runs.durations.length, 0, again.stderr)
  assert.match(again.stderr, /study: from fork 2 on, the runs measure 70s instead of 20s, as decided after the fork 1/)
  assert.deepEqual(again.progress.run_length, progress.run_length)
})

test('after a calibration that lengthened its runs, the comparison measures at that length from fork 1', async (t) => {
  const { code, stderr, runs, progress, dir } = await conduct(t, { calibrate: true })
  assert.equal(code, 0, stderr)
  const calibration = runs.durations.filter((d) => d.run.startsWith('1-a') || d.run.startsWith('1-b'))
  assert.deepEqual(calibration.slice(0, 2).map((d) => d.seconds), [20, 20], 'the calibration\'s fork 1')
  assert.equal(progress.run_length.in, 'calibration')
  const comparisonRuns = runs.durations.length - Object.keys(progress.calibration.forks).length
  assert.deepEqual([...new Set(runs.durations.slice(-comparisonRuns).map((d) => d.seconds))], [70], stderr)
  assert.match(stderr, /study: every fork's runs measure 70s instead of 20s, as decided after the calibration's fork 1/)
  // The same command again keeps its calibration (study.json holds it): nothing is run again.
  const again = await conduct(t, { calibrate: true, dir })
  assert.equal(again.runs.durations.length, 0, again.stderr)
  assert.match(again.stderr, /^calibration: an A\/A study of a \(\d+ forks, paired\): this study could see /m)
})

test('a duet\'s contenders take each position in turn over the duets compared, whatever the draw says', async (t) => {
  // The draw (random: () => 0) would start b first every time; each two duets compared hold both orders instead,
  // the lengthened comparison's pilot (fork 1) counted in none.
  const { code, stderr, progress, config } = await conduct(t, { duet: true })
  assert.equal(code, 0, stderr)
  const compared = Object.keys(progress.forks).filter((k) => k.endsWith('-a') && progress.forks[k].duration)
    .map((k) => Number(k.split('-')[0])).sort((x, y) => x - y)
  assert.ok(compared.length >= 3, stderr)
  const firstOf = (fork) => (progress.forks[`${fork}-a`].position === 1 ? 'a' : 'b')
  for (let i = 0; i + 1 < compared.length; i += 2) {
    assert.notEqual(firstOf(compared[i]), firstOf(compared[i + 1]), `duets ${compared[i]} and ${compared[i + 1]}`)
  }
  assert.match(stderr, /^\[fork 1: duet\] starting b and a's clusters at once \(in that order: drawn for this first /m)
  assert.match(stderr, /^\[fork 2: duet\] starting a and b's .* \(in that order: a started first the fewest times /m)
  assert.match(stderr, /^\[fork 4: duet\] starting b and a's .* \(in that order: drawn: each started first as often /m)
  const saved = JSON.parse(fs.readFileSync(path.join(config.out, 'comparison.json'), 'utf8'))
  assert.match(saved.position.line, /each contender started first in turn/)
})

test('a fork\'s result edited between forks is refused on resume (its SHA-256 in study.json); an interval past ' +
  '±1,000% is said as unbounded', async (t) => {
  const { rangeText } = require('../../lib/reports/compare/wording')
  const { code, progress, config, dir } = await conduct(t)
  assert.equal(code, 0)
  const file = path.join(config.out, 'forks', '2-b.json')
  assert.match(progress.forks['2-b'].sha256, /^[0-9a-f]{64}$/)
  // The same command again reads its forks as they were written.
  const same = await conduct(t, { dir })
  assert.equal(same.code, 0, same.stderr)
  const result = JSON.parse(fs.readFileSync(file, 'utf8'))
  fs.writeFileSync(file, JSON.stringify({ ...result, rows_per_sec: result.rows_per_sec * 140 }))
  await assert.rejects(conduct(t, { dir }), new RegExp(`^UsageError: ${file} is not the result its fork wrote \\(its ` +
    'SHA-256 in study.json differs\\): restore it, or run the study into a new --out$'))
  assert.equal(rangeText([-100, 945665123456789]), '-100% .. unbounded')
  assert.equal(rangeText([-2.5, 4]), '-2.5% .. +4%')
  assert.equal(rangeText([-1001, 1000]), 'unbounded .. +1,000%')
})
