'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { forksDecision, duetNotes, calibrationLine, overlapShare, stoppingOf, positionOf, unsteadyWarmupLine,
  perForkOf } = require('../../lib/study/precision')
const { compareContenders, forkState } = require('../../lib/study/comparison')
const { tempDir } = require('../helpers/temp-files')
const { memoryStream } = require('../helpers/memory-stream')
const { timelineResult, DEFAULT_START } = require('../helpers/timeline-results')

/** Forks of contenders a and b at these rows/s, each fork `wallS` long; their states as study.json keeps them. */
function forksOf (dir, rates, wallS = 60, cpu = () => null) {
  fs.mkdirSync(path.join(dir, 'forks'), { recursive: true })
  const forks = {}
  rates.forEach(([a, b], i) => {
    for (const [name, perSec] of [['a', a], ['b', b]]) {
      const msPer1000 = cpu(name, i)
      fs.writeFileSync(path.join(dir, 'forks', `${i + 1}-${name}.json`), JSON.stringify({ workload: 'ingest',
        options: { run_id: `${i + 1}-${name}` }, rows_per_sec: perSec, rows_failed: 0, rows_in_doubt: 0,
        latency_ms: { p50: 10, p99: 40, p999: 50 }, client: { saturated: name === 'b' && i === 0 },
        ...(msPer1000 === null ? {} : { cluster_cpu: { ms_per_1000: msPer1000 } }) }))
      forks[`${i + 1}-${name}`] = { status: 'done', exit_code: 0, wall_s: wallS / 2 }
    }
  })
  return forks
}

const contenders = [{ name: 'a' }, { name: 'b' }]

test('forks are added until the throughput ratio is within the precision asked, or the budget is spent', (t) => {
  const dir = tempDir(t)
  // The machine swings ±30% from fork to fork; b is 5% below a within each, give or take 0.3%.
  const swing = [1, 0.7, 1.3, 0.85]
  const forks = forksOf(dir, swing.map((m, i) => [10_000 * m, 10_000 * m * (0.95 + [0.003, -0.003, 0.001, 0][i])]))
  const study = { precision: '2%', budget: '20m', forks: 3 }
  const decided = forksDecision({ study, contenders, forks, dir, fork: 5 })
  assert.equal(decided.stop, true)
  assert.equal(decided.reason, 'precision')
  assert.match(decided.text, new RegExp('^the throughput ratio\'s 95% interval is within ±0\\.\\d+ points of the ' +
    'change against a \\(±2% asked, on that scale\\) after 4 forks$'))
  // Resumed: six forks done, the loop's first decision at fork 4 counts the six, not three.
  const resumedDir = tempDir(t)
  const six = forksOf(resumedDir, [...swing, 1.1, 0.9].map((m) => [10_000 * m, 10_000 * m * 0.95]))
  assert.match(forksDecision({ study, contenders, forks: six, dir: resumedDir, fork: 4 }).text, / after 6 forks$/)
  // Two forks of a noisy ratio: not within 2%, and 2 × 60 s of a 3-minute budget leave room for another.
  const noisyDir = tempDir(t)
  const noisyForks = forksOf(noisyDir, [[10_000, 9000], [10_000, 10_500]])
  assert.deepEqual(forksDecision({ study: { precision: '2%', budget: '3m' }, contenders, forks: noisyForks,
    dir: noisyDir, fork: 3 }), { stop: false, reachable: null }, 'two pairs: no spread to project yet')
  const spent = forksDecision({ study: { precision: '2%', budget: '2m' }, contenders, forks: noisyForks,
    dir: noisyDir, fork: 3 })
  assert.equal(spent.reason, 'budget')
  assert.match(spent.text, /^the budget of 2m is spent \(2m of 2 forks; another would take about 1m\); the widest /)
  assert.match(spent.text,
    /the widest of the throughput ratio's intervals is ±[\d.]+ points of the change against a \(±2% asked, /)
  // What would have reached it: two forks 15% apart leave it out of a hundred forks' reach.
  assert.match(spent.text, /\(±2% asked, on that scale\): at this spread, ±2% would take more than 100 forks$/)
  const nearer = forksDecision({ study: { precision: '20%', budget: '2m' }, contenders, forks: noisyForks,
    dir: noisyDir, fork: 3 })
  // At a minute a fork: as many minutes as forks.
  const taken = nearer.text.match(/: at this spread, ±20% would take about (\d+) forks, a budget of about (\d+)m$/)
  assert.ok(taken, nearer.text)
  assert.ok(Number(taken[1]) > 2 && Number(taken[1]) < 100, taken[1])
  assert.equal(taken[2], taken[1])
  // The JSON keeps it for a script to give next time.
  assert.deepEqual(nearer.needed, [{ figure: 'precision', forks: Number(taken[1]), budget: `${taken[1]}m` }])
  assert.deepEqual(spent.needed, [{ figure: 'precision', forks: null, budget: null }])
  assert.deepEqual(stoppingOf({ precision: '20%', budget: '2m' }, noisyForks, nearer).needed, nearer.needed)
  // What the page and the JSON keep of it.
  const stopping = stoppingOf({ precision: '2%', budget: '2m' }, noisyForks, spent)
  assert.deepEqual([stopping.precision, stopping.budget, stopping.forks, stopping.spent_s, stopping.reason],
    ['2%', '2m', 2, 120, 'budget'])
  assert.match(stopping.line, /^forks: the budget of 2m is spent .*; the forks took 2m \(asked: ±2% on the throughput /)
  assert.equal(stoppingOf({ forks: 3 }, noisyForks, null).needed, undefined, 'nothing asked, nothing short')
  assert.equal(stoppingOf({ forks: 3 }, noisyForks, null).line, 'forks: 2 forks, as the study file asks; the forks ' +
    'took 2m')
})

test('a lengthened comparison stops for its precision only over forks: forks compared, its pilot not one', (t) => {
  const dir = tempDir(t)
  // Three forks of a steady ratio; fork 1 was the pilot of runs lengthened from fork 2 (its state has no duration).
  const forks = forksOf(dir, [[10_000, 9500], [10_000, 9510], [10_000, 9490]])
  for (const key of ['2-a', '2-b', '3-a', '3-b']) forks[key].duration = '70s'
  const study = { precision: '3%', budget: '20m', forks: 3 }
  assert.equal(forksDecision({ study, contenders, forks, dir, fork: 4 }).stop, false, 'two forks compared, not three')
  assert.equal(forksDecision({ study: { ...study, forks: 2 }, contenders, forks, dir, fork: 4 }).reason, 'precision')
})

test('a duet\'s position: who started second against who started first, paired by duet; a bias is warned', (t) => {
  const dir = tempDir(t)
  // b started first in forks 1 and 3, a in 2 and 4; whoever started second was 20% slower.
  const rates = [[8000, 10_000], [10_000, 8000], [8100, 10_100], [10_050, 8050]]
  const forks = forksOf(dir, rates)
  rates.forEach(([a, b], i) => {
    forks[`${i + 1}-a`].position = a < b ? 2 : 1
    forks[`${i + 1}-b`].position = a < b ? 1 : 2
  })
  const position = positionOf(dir, contenders, forks)
  assert.equal(position.forks, 4)
  assert.ok(position.change_pct < -19 && position.change_pct > -21, JSON.stringify(position))
  assert.match(position.line, /^duet position: the contender started second measured -(19\.\d|20)% against the one /)
  assert.match(position.warning, /this machine favours a position/)
  // No order recorded (paired forks, or duets of an older study): nothing said.
  assert.equal(positionOf(dir, contenders, forksOf(tempDir(t), rates)), null)
})

test('a duet says what its ratio cannot see: one disk shared, a run whose load generator was the limit', (t) => {
  const dir = tempDir(t)
  for (const name of ['a', 'b']) fs.mkdirSync(path.join(dir, 'forks', `1-${name}-cluster`), { recursive: true })
  const notes = duetNotes(dir, contenders, [{ options: { run_id: '1-b' }, client: { saturated: true } },
    { options: { run_id: '1-a' }, client: { saturated: false } }])
  assert.match(notes[0], /^duet: the contenders ran at once on this machine, sharing its cores and memory and one /)
  assert.match(notes[1], /^duet: 1 run had the load generator as the limit \(1-b\): the ratio of such a duet measures /)
})

test('calibration: the A/A study\'s smallest visible change on the terminal and in the comparison; an A/A that ' +
  'finds a difference is a warning', (t) => {
  const dir = tempDir(t)
  const forks = forksOf(dir, [[10_000, 10_050], [7000, 6980], [13_000, 13_020], [8500, 8510], [12_000, 11_970]])
  const stderr = memoryStream()
  const calibration = compareContenders({ out: dir, study: { duet: false } }, { dir, contenders, forks, stderr,
    calibrationOf: true })
  const line = calibrationLine(calibration, { duet: false })
  assert.match(line, /^calibration: an A\/A study of a \(5 forks, paired\): this study could see changes of [\d.]+% /)
  assert.match(line, /or more in rows\/s \(its A\/A interval -[\d.]+% \.\. [\d.]+%\)$/)
  const warned = calibrationLine([{ base: 'a', forks: [1, 2, 3], figures: [{ figure: 'rows/s', verdict: 'worse',
    detectable_pct: 1, ci_pct: [-10.5, -9.5] }] }], { duet: true })
  assert.match(warned, /^calibration: WARNING: an A\/A study of a \(3 forks, duets\) found the same cluster worse /)
})

test('a duet whose runs measured at different moments says so, fork by fork; one whose windows overlap does not',
  (t) => {
    const dir = tempDir(t)
    const write = (fork, name, startedAt, seconds, warmupS = 40) => fs.writeFileSync(path.join(dir, 'forks',
      `${fork}-${name}.json`), JSON.stringify({ workload: 'ingest', started_at: startedAt, seconds,
      warmup: { seconds: warmupS }, rows_per_sec: 1 }))
    fs.mkdirSync(path.join(dir, 'forks'), { recursive: true })
    // Fork 1 side by side (60 ms apart); fork 2's b began its load 12 s after a's, in 30-s windows: 60% together.
    write(1, 'a', '2026-11-28T08:00:00.000Z', 30)
    write(1, 'b', '2026-11-28T08:00:00.060Z', 30)
    write(2, 'a', '2026-11-28T08:10:00.000Z', 30)
    write(2, 'b', '2026-11-28T08:10:12.000Z', 30)
    // Fork 3: steady warm-ups of 20 and 30 s that ended at one instant (started_at is the measured window's start,
    // after the warm-up): side by side.
    write(3, 'a', '2026-11-28T08:20:00.000Z', 30, 20)
    write(3, 'b', '2026-11-28T08:20:00.040Z', 30, 30)
    const notes = duetNotes(dir, contenders, [], [1, 2, 3])
    assert.equal(notes.length, 2, notes.join('\n'))
    assert.match(notes[1], /^duet: the measured windows of fork 2 overlapped 60% of the longer one: /)
    assert.equal(overlapShare([{ started_at: '2026-11-28T08:00:00Z', seconds: 10 }, { started_at: null }]), null,
      'a run without its window: nothing said of it')
  })

test('a duet\'s fork counts once against the budget: its contenders ran at the same time', () => {
  // Five duets of 106 s each, as measured on this machine: 8.8 minutes of a 20-minute budget, room for more.
  const forks = {}
  for (let fork = 1; fork <= 5; fork++) {
    for (const name of ['a', 'b']) forks[`${fork}-${name}`] = forkState({ done: true, code: 0 }, 106, 2)
  }
  assert.deepEqual(forks['1-a'], { status: 'done', exit_code: 0, wall_s: 53 })
  const decided = forksDecision({ study: { budget: '20m', forks: 3 }, contenders, forks, dir: '/nonexistent', fork: 6 })
  assert.equal(decided.stop, false, decided.text)
  assert.deepEqual(forkState({ failed: true, why: 'a node died' }, 106, 2), { status: 'failed', why: 'a node died' })
})

test('a precision the budget cannot reach at the spread measured is said, with how far it reaches', (t) => {
  const dir = tempDir(t)
  fs.mkdirSync(path.join(dir, 'forks'), { recursive: true })
  const forks = {}
  // Four forks of 100 s each; b's ratio to a spreads ±7% (1.00, 0.93, 1.07, 1.00): a 20-minute budget holds 8 more.
  const ratios = [1, 0.93, 1.07, 1]
  ratios.forEach((ratio, i) => {
    for (const [name, rate] of [['a', 10_000], ['b', 10_000 * ratio]]) {
      fs.writeFileSync(path.join(dir, 'forks', `${i + 1}-${name}.json`), JSON.stringify({ workload: 'ingest',
        rows_per_sec: rate }))
      forks[`${i + 1}-${name}`] = { status: 'done', exit_code: 0, wall_s: 50 }
    }
  })
  const asked = (precision) => forksDecision({ study: { precision, budget: '20m', forks: 3 }, contenders, forks, dir,
    fork: 5 })
  const short = asked('1%')
  assert.equal(short.stop, false)
  assert.equal(short.reachable.forks, 12)
  assert.ok(short.reachable.points > 1 && short.reachable.points < 7, JSON.stringify(short.reachable))
  assert.match(short.reachable.text, /^at the spread of these 4 forks, the budget's 12 reach about ±[\d.]+ points of /)
  assert.match(short.reachable.text, /not the ±1% asked \(at this spread, ±1% would take more than 100 forks\): /)
  assert.match(short.reachable.text, /: these runs give neither a timeline nor a count of requests to tell where/)
  // ±3%: out of the budget's 12 forks, within a hundred. Each fork took 100 s, four of them 400 s: the forks that
  // reach it at this spread, and the budget that holds them.
  const three = asked('3%').reachable
  assert.ok(three.needed > 12 && three.needed < 100, JSON.stringify(three))
  const budgetMinutes = Math.ceil((400 + (three.needed - 4) * 100) / 60)
  assert.match(three.text, new RegExp(`\\(at this spread, ±3% would take about ${three.needed} forks, a budget of ` +
    `about ${budgetMinutes}m\\): `))
  const enough = asked('6%')
  assert.equal(enough.stop, false, 'the interval is not yet within 6%')
  assert.equal(enough.reachable.text, null, 'the budget reaches it: nothing to say')
  // Runs that say their count: a count of 1,000 requests takes almost none of the width (the spread from fork to
  // fork does: more forks narrow it, and longer windows); one of 3 takes most of it (a longer window would narrow it).
  const withRequests = (requests) => {
    for (const [key] of Object.entries(forks)) {
      const file = path.join(dir, 'forks', `${key}.json`)
      fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), requests }))
    }
    return asked('1%').reachable.text
  }
  const many = withRequests(1000)
  assert.match(many, /100 forks\): the spread from fork to fork is the most of that \(each run's count /)
  assert.match(many, /count of 1,000 requests or more takes under ±0\.1 points of it\), which more forks narrow, and /)
  assert.match(withRequests(3), /100 forks\): each run's count of requests \(3 in the fewest\) is the most of that /)
})

test('a precision out of reach says whether the windows\' own movement or each fork\'s nodes make the spread', (t) => {
  // Four duets of 20-s windows (100 s a fork). `blocks`: b's rate over each 5-s block of its window against a's
  // steady 10,000 rows/s.
  const forksOfBlocks = (dir, blocks) => {
    fs.mkdirSync(path.join(dir, 'forks'), { recursive: true })
    const forks = {}
    blocks.forEach((multipliers, i) => {
      const b = multipliers.flatMap((m) => Array(5).fill(Math.round(10_000 * m)))
      for (const [name, perSecond] of [['a', Array(20).fill(10_000)], ['b', b]]) {
        fs.writeFileSync(path.join(dir, 'forks', `${i + 1}-${name}.json`),
          JSON.stringify(timelineResult({ perSecond, startedAt: DEFAULT_START + i * 100_000 })))
        forks[`${i + 1}-${name}`] = { status: 'done', exit_code: 0, wall_s: 50 }
      }
    })
    return forksDecision({ study: { precision: '1%', budget: '20m', forks: 3, duet: true }, contenders, forks, dir,
      fork: 5 }).reachable.text
  }
  // Steady within each window, apart from fork to fork (1.00, 0.93, 1.07, 1.00): the nodes of each fork differ.
  const apart = forksOfBlocks(tempDir(t), [[1, 1, 1, 1], [0.93, 0.93, 0.93, 0.93], [1.07, 1.07, 1.07, 1.07],
    [1, 1, 1, 1]])
  assert.match(apart, /: the forks differ by more than their windows' own movement explains \(it takes under ±0\.1 /)
  assert.match(apart, /which only more forks narrow \(not longer windows\)/)
  // b swings ±30% from block to block within every window; its windows' means differ by that swing's chance.
  const swinging = forksOfBlocks(tempDir(t), [[1.3, 0.7, 1.3, 0.9], [0.7, 1.3, 0.7, 1.1], [1.3, 0.7, 0.9, 1.3],
    [0.7, 0.7, 1.3, 1.1]])
  assert.match(swinging, /: the ratio's movement within each run's window is the most of that \(±[\d.]+ points of /)
  assert.match(swinging, /which longer windows narrow: a longer duration; /)
})

test('with cpu_precision the forks stop only when the CPU per row\'s interval is within it too', (t) => {
  // The throughput ratio is tight (b 5% below a, ±0.1%); the CPU per row of b swings ±4% around a's.
  const rates = [1, 0.9, 1.1, 1, 1.05].map((m) => [10_000 * m, 10_000 * m * 0.95])
  const swing = [1.04, 0.96, 1.03, 0.97, 1]
  const study = { precision: '2%', cpu_precision: '1%', budget: '20m', forks: 3 }
  const wideDir = tempDir(t)
  const wideForks = forksOf(wideDir, rates, 60, (name, i) => (name === 'a' ? 60 : 60 * swing[i]))
  const open = forksDecision({ study, contenders, forks: wideForks, dir: wideDir, fork: 6 })
  assert.equal(open.stop, false, 'the throughput ratio is within 2%, the CPU per row\'s is not within 1%')
  assert.match(open.reachable.text, /points of the CPU per row ratio, not the ±1% asked/)
  assert.match(open.reachable.text, /: the spread from fork to fork is all of it \(each fork's nodes spend their own /)
  const tightDir = tempDir(t)
  const tightForks = forksOf(tightDir, rates, 60, (name) => (name === 'a' ? 60 : 57))
  const done = forksDecision({ study, contenders, forks: tightForks, dir: tightDir, fork: 6 })
  assert.equal(done.stop, true)
  assert.match(done.text, /^the throughput ratio's 95% interval is within ±[\d.]+ points .*, and the CPU per row /)
  // Runs that give no CPU per row (nodes elsewhere): said, and the forks end at the budget.
  const noneDir = tempDir(t)
  const none = forksDecision({ study, contenders, forks: forksOf(noneDir, rates), dir: noneDir, fork: 6 })
  assert.equal(none.stop, false)
  assert.match(none.unmeasured, /^the CPU per row ratio is in none of these runs .*: cpu_precision cannot be reached/)
  assert.match(stoppingOf(study, tightForks, done).line, /\(asked: ±2% on the throughput ratio, ±1% on the CPU per /)
})

test('runs whose steady warm-up ended at its cap with the rate still climbing are said after the first fork', (t) => {
  const dir = tempDir(t)
  fs.mkdirSync(path.join(dir, 'forks'), { recursive: true })
  const write = (name, warmup) => fs.writeFileSync(path.join(dir, 'forks', `1-${name}.json`),
    JSON.stringify({ workload: 'ingest', rows_per_sec: 12_000, warmup }))
  // As measured in an A/A duet of a user's options beside a busy core: both nodes still climbing at 60 s.
  write('a', { seconds: 60, until: 'steady', max_seconds: 60, steady: false, change_pct: 50 })
  write('b', { seconds: 60, until: 'steady', max_seconds: 60, steady: false, change_pct: 52.4 })
  assert.equal(unsteadyWarmupLine({ contenders, dir, fork: 1 }), 'fork 1\'s runs were still climbing when the ' +
    'warm-up\'s cap of 60 s ended it (from one window to the next: a +50%, b +52.4%): their figures are of nodes not ' +
    'yet warm; --warmup steady:2m in run.args gives them longer')
  write('a', { seconds: 41, until: 'steady', max_seconds: 60, steady: true, change_pct: 2 })
  write('b', { seconds: 10, rows_ok: 1 })
  assert.equal(unsteadyWarmupLine({ contenders, dir, fork: 1 }), null, 'steady, or a warm-up of a fixed time')
})

test('a fork\'s time for the budget is that of the forks at the runs\' length now, once they were lengthened', () => {
  // Fork 1 at the 20 s given (130 s a duet), forks 2 and 3 lengthened to 90 s (200 s): another fork takes 200 s, not
  // the 177 s of all three.
  const forks = { '1-a': { status: 'done', wall_s: 130 }, '2-a': { status: 'done', wall_s: 195, duration: '90s' },
    '3-a': { status: 'done', wall_s: 205, duration: '90s' }, '4-a': { status: 'started' } }
  assert.equal(perForkOf(forks), 200)
  // Paired forks: each contender's share of its fork, added up.
  assert.equal(perForkOf({ '1-a': { status: 'done', wall_s: 60 }, '1-b': { status: 'done', wall_s: 60 } }), 120)
  assert.equal(perForkOf({}), 0)
})
