'use strict'

// --stages end to end against the CrateDB test double: the stages' figures add up to the run's, and the first stage
// the double cannot keep up with is named. The exact schedule of each stage and ramp is tested on a fake clock in
// test/run/engine.test.js; here only what holds on any machine, however loaded.

const test = require('node:test')
const assert = require('node:assert/strict')
const { withCrateTestDouble } = require('../helpers/crate-test-double')
const { runTool } = require('../helpers/run-tool')

/**
 * A double that serves `capacity` rows a second: a row arriving when the last second already holds that many is
 * rejected as CrateDB rejects rows of a full write pool (capture 48). A stage at twice the capacity starts to be
 * rejected halfway into it, never in the stage before.
 */
function limitedTo (capacity) {
  const arrivals = []
  return {
    rejectRow: () => {
      const now = Date.now()
      while (arrivals.length && arrivals[0] <= now - 1000) arrivals.shift()
      if (arrivals.length >= capacity) return true
      arrivals.push(now)
      return null
    }
  }
}

const sum = (stages, field) => stages.reduce((total, s) => total + s[field], 0)

/** Whether the load generator fell behind its schedule: its own saturation, requests late, dropped or sent in a stage
 * at rate 0 (a stage's rows that a starved machine sent after its end). */
const clientBehind = (r) => Boolean((r.client && r.client.saturated) || r.rate.late_requests > 0 ||
  r.rate.dropped_units > 0 || r.stages.some((s) => s.target_per_sec === 0 && s.rows_ok > 0))

test('each stage has its own figures, and they add up to the run\'s', () => withCrateTestDouble({}, async (double) => {
  const run = await runTool('appClusterIngest.js', ['--stages', '2s:500,2s:0..1000,1s:0,2s:1000', '--batch_size', '20',
    '--processes', '2', '--monitor_interval', '1s', '--json'], { env: double.env() })
  assert.equal(run.code, 0, run.stderr)
  const r = run.json
  assert.equal(r.stages.length, 4)
  assert.deepEqual(r.stages.map((s) => [s.start_s, s.end_s, s.target_per_sec]), [[0, 2, 500], [2, 4, 500], [4, 5, 0],
    [5, 7, 1000]])
  assert.equal(sum(r.stages, 'rows_ok'), r.rows_ok)
  assert.equal(sum(r.stages, 'rows_failed'), r.rows_failed)
  assert.equal(sum(r.stages, 'rows_in_doubt'), r.rows_in_doubt)
  // What the profile asks: 1000 + 1000 + 0 + 2000 rows, each sent or, on a machine too busy to send them all by the
  // end, still due when it came and counted as never offered (CI under load: 3,540 sent, 460 dropped).
  assert.equal(r.rows_ok + r.rate.dropped_units, 4000, JSON.stringify(r.rate))
  assert.equal(double.bulkRowsReceived, r.rows_ok)
  // Nothing is due in a stage at rate 0: what it sends are the stage before's requests a loaded machine sent late
  // (CI beside a study: 60 rows).
  assert.ok(r.stages[2].rows_ok === 0 || r.rate.late_requests > 0, JSON.stringify(r.rate))
  for (const s of r.stages.filter((s) => s.rows_ok > 0)) {
    assert.ok(s.latency_ms.p50 > 0 && s.latency_ms.p99 >= s.latency_ms.p50, `stage ${s.stage}`)
  }
  assert.equal(r.rate.target_per_sec, 571.43, 'the mean of what the stages asked: 4000 rows over 7 s')
  assert.ok(r.stages.every((s) => s.nodes.length === 1), 'the double\'s one node, sampled in every stage')
  if (r.first_stage_not_kept_up !== null) {
    // A machine too busy to send on time moves a stage's rows into the next (beside four busy loops: stage 2 at
    // 470/s of 500, its last 60 rows sent in the rate-0 stage): a stage short of its rate is named, as it was.
    // Named for a shortfall, a ramp it fell behind or its waiting, and only when the client fell behind: the double
    // failed nothing. A client that was late by a request or two may still have kept every stage.
    assert.ok(clientBehind(r), JSON.stringify(r.first_stage_not_kept_up))
    assert.match(run.stderr,
      /first stage where the cluster stopped keeping up: \d \(\S+\): (achieved|fell behind at|queueing: )/)
  } else {
    assert.match(run.stderr, /the cluster kept up with every stage/)
  }
  assert.match(run.stderr, /--stages 2s:500,2s:0\.\.1000,1s:0,2s:1000 rows\/s over all processes/)
}))

test('the first stage the cluster cannot keep up with is named, with why', () =>
  withCrateTestDouble(limitedTo(3000), async (double) => {
    const run = await runTool('appClusterIngest.js', ['--stages', '2s:1000,2s:2000,2s:6000', '--batch_size', '50',
      '--processes', '1', '--concurrent_requests', '8', '--monitor_interval', '0', '--json'], { env: double.env() })
    assert.equal(run.code, 1, 'rejected rows are failures')
    const r = run.json
    assert.equal(r.stages[0].rows_failed + r.stages[1].rows_failed, 0)
    assert.ok(r.stages[2].rows_failed > 0)
    assert.equal(r.stages[2].kept_up.kept, false)
    if (clientBehind(r)) {
      // A starved machine's generator can fall short of 1,000 or 2,000 rows/s by itself: then an earlier stage is
      // named first, for its shortfall or its waiting, never for failures (it had none).
      const first = r.first_stage_not_kept_up
      if (first.stage < 3) assert.match(first.reason, /^(achieved [\d,.]+\/s, below 95% of the target|queueing: )/)
    } else {
      assert.deepEqual(r.stages.map((s) => s.kept_up.kept), [true, true, false])
      assert.deepEqual(r.first_stage_not_kept_up.stage, 3)
      assert.match(r.first_stage_not_kept_up.reason, /below 95% of the target 6,000\/s/)
      assert.match(run.stderr, /first stage where the cluster stopped keeping up: 3 \(2s:6000\): achieved/)
    }
    assert.equal(sum(r.stages, 'rows_ok'), r.rows_ok)
    assert.equal(sum(r.stages, 'rows_failed'), r.rows_failed)
  }))

test('a --threshold of the run is judged within each stage too', () => {
  // 400 rows/s in batches of 20: the first stage is 40 requests. Every answer after those takes 2 s, so the second
  // stage's p99 misses the threshold and the first's does not (a loaded machine's stalls: p99 445 ms beside a study).
  // 50 in flight carry the rate at that latency.
  let bulks = 0
  return withCrateTestDouble({ fault: ({ bulk }) => (bulk && ++bulks > 40 ? { delayMs: 2000 } : undefined) },
    async (double) => {
      const run = await runTool('appClusterIngest.js', ['--stages', '2s:400,2s:400', '--batch_size', '20',
        '--processes', '1', '--concurrent_requests', '50', '--monitor_interval', '0', '--threshold', 'p99<1000ms',
        '--json'], { env: double.env() })
      const r = run.json
      assert.equal(r.stages[0].kept_up.kept, true, JSON.stringify(r.stages[0]))
      assert.equal(r.stages[1].kept_up.kept, false)
      assert.match(r.first_stage_not_kept_up.reason, /--threshold p99<1000ms missed/)
      assert.equal(run.code, 5, 'the whole run misses it too')
    })
})

test('a stage that met its rate by queueing is not kept up; stages_kept_up=all then fails the run (exit 5)', () => {
  // 100 rows/s in batches of 10: the first 20 batches answer at once, every later one after 300 ms. Ten in flight
  // still serve the rate; stage 2 meets it by waiting.
  let bulks = 0
  return withCrateTestDouble({ fault: ({ bulk }) => (bulk && ++bulks > 20 ? { delayMs: 300 } : undefined) },
    async (double) => {
      const run = await runTool('appClusterIngest.js', ['--stages', '2s:100,2s:100', '--batch_size', '10',
        '--processes', '1', '--concurrent_requests', '10', '--monitor_interval', '0', '--threshold',
        'stages_kept_up=all', '--json'], { env: double.env() })
      const r = run.json
      assert.ok(r.stages[1].achieved_pct >= 95, 'the rate was met')
      assert.deepEqual(r.stages.map((st) => st.kept_up.kept), [true, false])
      assert.match(r.first_stage_not_kept_up.reason, /^queueing: p50 \d+ ms, [\d.]+x stage 1's/)
      assert.deepEqual(r.thresholds.map((t) => [t.threshold, t.actual, t.passed]),
        [['stages_kept_up=all', '1 of 2 kept up', false]])
      assert.equal(run.code, 5)
    })
})

test('bad stages: one line naming the problem, exit 2, nothing sent', () => withCrateTestDouble({}, async (double) => {
  for (const [args, message] of [
    [['--stages', '2m'], /--stages stage 1 '2m': write DURATION:RATE or DURATION:FROM\.\.TO/],
    [['--stages', '1s:10,0.5s:10'], /stage 2 '0\.5s:10': its duration must be whole seconds/],
    [['--stages', '10s:-5'], /a rate must be a decimal number >= 0/],
    [['--stages', '10s:10', '--rate', '5'], /--stages and --rate do not go together: the stages are the rate/],
    [['--stages', '10s:10', '--duration', '5s'], /--stages and --duration do not go together/],
    [['--stages', '10s:0'], /every stage has rate 0/],
    [['--threshold', 'stages_kept_up=all'], /stages_kept_up=all judges the stages of --stages: this run has none/],
    [['--stages', '10s:10', '--queueing_factor', '0.5'], /--queueing_factor: '0\.5' is not 0 \(off\) or a factor/]
  ]) {
    const run = await runTool('appClusterIngest.js', args, { env: double.env() })
    assert.equal(run.code, 2, args.join(' '))
    assert.match(run.stderr, message)
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr)
  }
  assert.equal(double.bulkRowsReceived, 0)
}))

test('a fleet in stages: each generator its share on the fleet\'s one clock, the merged stages the fleet\'s', () =>
  withCrateTestDouble({ trackKeys: true }, async (double) => {
    const run = await runTool('bin/crate-bench.js', ['fleet', '--generators', '2', 'ingest', '--stages',
      '2s:400,2s:800', '--batch_size', '20', '--processes', '1', '--monitor_interval', '0', '--json'],
    { env: double.env(), timeoutMs: 90_000 })
    assert.equal(run.code, 0, run.stderr)
    const m = run.json
    assert.equal(m.options.load_generators, 2)
    assert.deepEqual(m.stages.map((s) => [s.start_s, s.end_s, s.target_per_sec, s.planned]),
      [[0, 2, 400, '2s:400'], [2, 4, 800, '2s:800']])
    assert.equal(m.rows_ok, 2400, 'what the fleet\'s profile asks: 800 + 1600 rows')
    assert.equal(sum(m.stages, 'rows_ok'), m.rows_ok)
    assert.equal(double.keys.size, m.rows_ok)
    assert.deepEqual(m.stages.map((s) => s.kept_up.kept), [true, true])
    assert.match(run.stderr, /this generator's share of the fleet's, over 2/)
  }))

/** Runs the ingest with --ui 0 and `steer(url, post)` once its load runs; resolves with the run. */
async function steered (double, args, steer) {
  const post = (url, path, body) => fetch(new URL(path, url), { method: 'POST',
    headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((res) => res.json())
  const state = async (url) => (await fetch(new URL('/api/state', url))).json()
  let steering = null
  const run = await runTool('appClusterIngest.js', [...args, '--batch_size', '10', '--processes', '1',
    '--monitor_interval', '0', '--ui', '0', '--json'], {
    env: double.env(),
    waitFor: /live: +http/,
    whileRunning: (child, stderr) => {
      steering = (async () => {
        const url = /live: +(http:\/\/\S+)/.exec(stderr)[1]
        while ((await state(url)).phase !== 'running') await new Promise((resolve) => setTimeout(resolve, 50))
        await steer((path, body) => post(url, path, body))
      })().catch((error) => error)
    },
    timeoutMs: 60_000
  })
  const steeringError = await steering
  if (steeringError instanceof Error) throw steeringError
  return run
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

test('stopped through the API in stage 2: stage 2 judged on what ran, 3 and 4 not run, no knee', () =>
  withCrateTestDouble({}, async (double) => {
    // Queueing is judged elsewhere (below): a loaded machine's stall in stage 2 (p99 84 ms against 19.6 in CI beside
    // the suite) is no stop's doing, and this test is about what the stop leaves to judge.
    const run = await steered(double, ['--stages', '3s:200,3s:400,10s:2000,10s:3000', '--queueing_factor', '0'],
      async (post) => {
        await sleep(4500)
        await post('/api/stop', {})
      })
    assert.equal(run.code, 0, run.stderr)
    const r = run.json
    assert.equal(r.stopped_by, 'api')
    assert.ok(r.stopped_at_s > 4 && r.stopped_at_s < 6, `stopped at ${r.stopped_at_s} s`)
    assert.deepEqual(r.stages.map((s) => s.status), ['ran', 'stopped', 'not run', 'not run'])
    assert.deepEqual(r.stages.slice(2).map((s) => s.kept_up.kept), [null, null])
    assert.equal(r.first_stage_not_kept_up, null, JSON.stringify(r.stages.map((s) => s.kept_up)))
    assert.ok(r.rate.achieved_pct > 90, `the target over the time that ran: ${JSON.stringify(r.rate)}`)
    assert.match(run.stderr, /not run: the run was stopped before it/)
    assert.match(run.stderr, /kept up with every stage that ran \(stopped at [\d.]+ s: 2 of 4 stages judged\)/)
  }))

test('a rate raised far beyond what is sent, then lowered: the backlog is withdrawn, the lowered rate holds and is ' +
  'judged', () =>
  withCrateTestDouble({}, async (double) => {
    const run = await steered(double, ['--rate', '400', '--duration', '6s'], async (post) => {
      await sleep(1000)
      await post('/api/rate', { rate: 1e9 })
      await sleep(200)
      await post('/api/rate', { rate: 400 })
    })
    assert.equal(run.code, 0, run.stderr)
    const r = run.json
    // Issue 49: the burst's backlog was withdrawn by the change (the steering's), not dropped (the cluster's).
    assert.ok(r.rate.withdrawn_requests > 0, JSON.stringify(r.rate))
    assert.equal(r.rate.dropped_requests, 0, 'nothing the cluster was offered and missed')
    // From 2 s on, 400 rows/s again: never the backlog of a billion rows a second.
    const after = r.timeline.series.filter((e) => e.t_s >= 2 && e.t_s < 6)
    assert.ok(after.every((e) => e.ingest.ok <= 800), JSON.stringify(after.map((e) => e.ingest.ok)))
    // The verdict judges the target held, not the billion asked for 200 ms; the event keeps that billion.
    assert.ok(r.rate.achieved_pct >= 90, JSON.stringify(r.rate))
    assert.doesNotMatch(run.stderr, /could not keep up/)
    const change = r.events.find((e) => e.kind === 'rate_change')
    assert.equal(change.highest, 1e9, JSON.stringify(change))
    assert.match(change.detail, /400 -> 400 rows\/s \(api, 2 changes until 400, up to 1000000000\)/)
  }))
