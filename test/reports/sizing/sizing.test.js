'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { pointOf, sizingOf } = require('../../../lib/reports/sizing')
const { startCrateTestCluster } = require('../../helpers/crate-test-double')
const { runTool } = require('../../helpers/run-tool')
const { tempDir } = require('../../helpers/temp-files')
const { joined } = require('../../helpers/patterns')

const GB = 2 ** 30

/** A result as a run on `nodes` nodes of `cores` would store it. */
function result ({ nodes, cores, perSec, p99 = 50, failed = 0, hostnames = null, replicas = 0, batch = 5000,
  model = 'cpu' }) {
  const list = Array.from({ length: nodes }, (_, i) => ({ name: `n${i}`, hostname: hostnames ? hostnames[i] : `m${i}`,
    cores, heap_max_bytes: 8 * GB }))
  return {
    workload: 'ingest',
    options: { model, batch_size: batch, concurrent_requests: 8, processes: 2, replicas },
    rows_per_sec: perSec,
    metrics_per_sec: perSec * 10,
    rows_failed: failed,
    rows_in_doubt: 0,
    latency_ms: { p99 },
    environment: { cluster: { nodes, cores_per_node: cores, heap_bytes_per_node: 8 * GB, node_list: list,
      shared_machine: Boolean(hostnames && new Set(hostnames).size < nodes) } }
  }
}

test('per shape its peak within the rules, per node and per core, the ceiling, the efficiency against the smallest',
  () => {
  const points = [
    result({ nodes: 1, cores: 4, perSec: 20_000, batch: 5000 }),
    result({ nodes: 1, cores: 4, perSec: 25_000, batch: 5000 }),
    result({ nodes: 3, cores: 4, perSec: 66_000 }),
    result({ nodes: 3, cores: 4, perSec: 90_000, failed: 10 }),
    result({ nodes: 6, cores: 4, perSec: 120_000, replicas: 1 })
  ].map((r, i) => pointOf(r, `r${i}.json`))
  const sizing = sizingOf(points, { headroomPct: 20 })
  const [group] = sizing.groups
  // Single runs recommend no settings and carry no interval: no figure to plan with, said why and what to run next.
  assert.deepEqual(group.shapes.map((s) => [s.nodes, s.best.per_sec, s.per_node, s.per_core, s.planning.per_sec,
    s.efficiency_pct]), [
    [1, 25_000, 25_000, 6250, null, 100],
    [3, 66_000, 22_000, 5500, null, 88],
    [6, 120_000, 20_000, 5000, null, 80]
  ])
  assert.equal(group.shapes[2].planning.none, 'write-only: single runs recommend no settings')
  assert.equal(group.shapes[2].planning.next, 'a grid on this shape: crate-bench sweep grid … --repeat 3')
  assert.deepEqual(group.shapes[0].best.settings,
    { batch_size: 5000, concurrent_requests: 8, processes: 2, replicas: 0 })
  assert.deepEqual(group.shapes[1].excluded, [{ source: 'r3.json', why: 'failures or in doubt' }],
    'the faster run with failures is no peak')
  assert.equal(group.shapes[2].replicated_writes_per_node, 40_000, 'rows written and their replicas, per node')
  assert.equal(group.shapes[2].single_result, true)
  assert.equal(group.shapes[0].recommended, null)
  assert.equal(group.shapes[0].planning.none, 'write-only: its results disagree (the warning below)')
  // Two single runs of one shape 20% apart, with no interval to judge: said.
  assert.deepEqual(group.shapes[0].spread, { median: 20_000, min: 20_000, max: 25_000, spread_pct: 25 })
  assert.match(group.shapes[0].disagreement, /r0\.json 20000 and r1\.json 25000, 20% apart with no interval to judge/)
  // Issue 62: runs of other settings measured other loads: shown, never called a disagreement.
  const other = sizingOf([result({ nodes: 1, cores: 4, perSec: 20_000, batch: 1000 }),
    result({ nodes: 1, cores: 4, perSec: 25_000, batch: 5000 })].map((r, i) => pointOf(r, `s${i}.json`)))
    .groups[0].shapes[0]
  assert.equal(other.disagreement, null)
  assert.ok(other.verdicts.includes('figures of this shape at other settings are not compared with each other (they ' +
    'measured other loads): s0.json at batch_size 1000, concurrent_requests 8, processes 2, replicas 0; s1.json at ' +
    'batch_size 5000, concurrent_requests 8, processes 2, replicas 0'), other.verdicts.join('\n'))
  const text = require('../../../lib/reports/sizing/rows').sizingText(sizing)
  assert.match(text,
    joined(
      /│ cluster +│ results +│ best measured rows\/s +│ field values\/s +│ at the recommended settings +│ settings +│ /,
      /p99 ms +│ per node \(best\) +│ with replicas per node +│ per core \(best\) +│ to plan with +│ efficiency/))
  assert.match(text,
    joined(
      /│ 6 nodes x 4 cores, 8 GB heap +│ 1 \(one run: a point\) +│ 120,000 +│ /,
      /1,200,000 +│ none +│ .* +│ 50 +│ 20,000 +│ 40,000 +│ 5,000 +│ none: see below /))
  assert.match(text, joined(/^6 nodes: no figure to plan with: write-only: single runs recommend no settings; /,
    /next: a grid on this shape: crate-bench sweep grid … --repeat 3$/m))
  assert.match(text, /^warning: 1 node: results of this shape disagree/m)
  assert.match(text, /^note: replicas 0 on 3 nodes: a production cluster keeps replicas/m)
})

test('workloads and models are never mixed; nodes on one machine are flagged; a result without a shape is named',
  () => {
  const points = [
    pointOf(result({ nodes: 1, cores: 4, perSec: 10_000 }), 'a.json'),
    pointOf(result({ nodes: 3, cores: 4, perSec: 30_000, hostnames: ['vm', 'vm', 'vm'] }), 'b.json'),
    pointOf(result({ nodes: 1, cores: 4, perSec: 5_000, model: 'devops' }), 'c.json'),
    pointOf({ workload: 'ingest', options: {}, rows_per_sec: 1 }, 'old.json')
  ]
  const sizing = sizingOf(points)
  assert.deepEqual(sizing.groups.map((g) => [g.model, g.shapes.length, g.shared_machine]),
    [['cpu', 2, true], ['devops', 1, false]])
  assert.deepEqual(sizing.without_shape, ['old.json'])
})

test('crate-bench sizing over runs on test clusters of 1, 3 and 6 nodes (one sharing a machine)', async (t) => {
  const dir = tempDir(t)
  const files = []
  for (const [nodes, hostnames] of [[1, ['m0']], [3, ['m0', 'm1', 'm2']], [6, ['a', 'a', 'b', 'b', 'c', 'c']]]) {
    const double = await startCrateTestCluster({ nodeShapes: hostnames.map((hostname) => ({ hostname, cores: 8,
      heapMax: 16 * GB })) }, { nodes })
    try {
      // Two seconds of load: a run of a few requests is too short for a sizing (issue 57).
      const run = await runTool('appClusterIngest.js', ['--duration', '2s', '--batch_size', '500', '--processes',
        '1', '--monitor_interval', '0', '--json'], { env: double.env() })
      assert.equal(run.code, 0, run.stderr)
      const file = path.join(dir, `${nodes}-nodes.json`)
      fs.writeFileSync(file, run.stdout)
      files.push(file)
    } finally {
      await double.stop()
    }
  }
  const sized = await runTool('bin/crate-bench.js', ['sizing', ...files, '--json'])
  assert.equal(sized.code, 0, sized.stderr)
  const [group] = sized.json.groups
  const results = files.map((f) => JSON.parse(fs.readFileSync(f, 'utf8')))
  assert.deepEqual(group.shapes.map((s) => [s.nodes, s.cores_per_node, s.heap_bytes_per_node]),
    [[1, 8, 16 * GB], [3, 8, 16 * GB], [6, 8, 16 * GB]])
  group.shapes.forEach((s, i) => {
    // On a loaded machine the load generator itself may be the limit: that run is no figure, and the sizing says so.
    if (results[i].client && results[i].client.saturated) {
      assert.equal(s.per_node, null)
      assert.match(s.excluded[0].why, /^the load generator was the limit(, too short for a steady rate .*)?$/)
      return
    }
    // ...or hold its first sends past the 2 s (a study beside CI, load 8-10): too short a run, and said so.
    if (results[i].requests < 10) {
      assert.equal(s.per_node, null)
      assert.match(s.excluded[0].why, /^too short for a steady rate \(\d+ requests in [\d.]+ s, under 10\)$/)
      return
    }
    assert.equal(s.per_node, Math.round((results[i].rows_per_sec / s.nodes) * 100) / 100, JSON.stringify(s))
    assert.equal(s.per_core, Math.round((results[i].rows_per_sec / (s.nodes * 8)) * 100) / 100)
  })
  if (group.shapes[0].per_node !== null && group.shapes[1].per_node !== null) {
    assert.equal(group.shapes[1].efficiency_pct,
      Math.round((group.shapes[1].per_node / group.shapes[0].per_node) * 1000) / 10)
  }
  assert.equal(group.shapes[2].shared_machine, true)
  assert.equal(group.shapes[2].efficiency_pct, null, 'nodes sharing a machine scale nothing')
  assert.match(sized.stderr,
    /^ingest \(cpu, http\): rows\/s of each cluster, every figure with the results it stands on$/m)
  assert.match(sized.stderr, /6 nodes x 8 cores, 16 GB heap \(SHARED MACHINE\)/)
  assert.match(sized.stderr, /warning: some of these clusters run several nodes on one machine/)
  const bad = await runTool('bin/crate-bench.js', ['sizing', files[0], '--headroom', '150'])
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /--headroom must be a percentage from 0 to below 100/)
})

test('crate-bench sizing --results_table --run_id: each run read from the cluster, its generators merged', async () => {
  const { withCrateTestDouble } = require('../../helpers/crate-test-double')
  await withCrateTestDouble({}, async (double) => {
    const rates = []
    for (const [runId, batch] of [['small-1', '200'], ['small-2', '1000']]) {
      const run = await runTool('appClusterIngest.js', ['--results_table', 'doc.bench_runs', '--run_id', runId,
        '--duration', '2s', '--batch_size', batch, '--processes', '1', '--monitor_interval', '0', '--json'],
      { env: double.env() })
      assert.equal(run.code, 0, run.stderr)
      rates.push(run.json.rows_per_sec)
    }
    const sized = await runTool('bin/crate-bench.js', ['sizing', '--results_table', 'doc.bench_runs', '--run_id',
      'small-1', '--run_id', 'small-2', '--json'], { env: double.env() })
    assert.equal(sized.code, 0, sized.stderr)
    const [shape] = sized.json.groups[0].shapes
    assert.equal(shape.results, 2)
    assert.equal(shape.best.per_sec, Math.max(...rates))
    assert.equal(shape.best.source, rates[0] > rates[1] ? 'small-1' : 'small-2')
    const alone = await runTool('bin/crate-bench.js', ['sizing', '--run_id', 'small-1'], { env: double.env() })
    assert.equal(alone.code, 2)
    assert.match(alone.stderr, /--results_table and --run_id go together/)
  })
})

test('crate-bench sizing over grid folders: each cluster at its grid\'s recommended cell, ' +
  'the study\'s runs not a point', async (t) => {
  const { EventEmitter } = require('node:events')
  const { main: grid } = require('../../../lib/sweep/grid/command')
  const { fakeGridBenchmark } = require('../../helpers/grid-model')
  const { memoryStream } = require('../../helpers/memory-stream')
  const dir = tempDir(t)
  const { clusterOf: nodes } = require('../../helpers/grid-model')
  for (const [name, options] of [['three', {}], ['six', { cluster: nodes(6), scale: 1.8 }],
    ['nine', { cluster: nodes(9), scale: 2.5 }], ['twelve', { cluster: nodes(12), scale: 3.1 }]]) {
    const stderr = memoryStream()
    const code = await grid(['--vary', 'batch_size=500,2000,5000', '--vary', 'concurrent_requests=4,16,64', '--out',
      path.join(dir, name)], { stderr, signals: Object.assign(new EventEmitter(), { interrupted: false }),
      run: fakeGridBenchmark(options).run })
    assert.equal(code, 0, stderr.text)
  }
  const report = path.join(dir, 'sizing.html')
  const sized = await runTool('bin/crate-bench.js', ['sizing', path.join(dir, 'three'), path.join(dir, 'six',
    'grid.json'),
    path.join(dir, 'nine'), path.join(dir, 'twelve'), '--report', report, '--json'])
  assert.equal(sized.code, 0, sized.stderr)
  const [three, sixNodes] = sized.json.groups[0].shapes
  assert.deepEqual(three.recommended.settings, { batch_size: 2000, concurrent_requests: 16, processes: 1 })
  assert.equal(three.recommended.per_sec, 312_000 * 0.99)
  assert.equal(three.recommended.rows_per_sec, three.recommended.per_sec)
  // Issue 68: a grid's measured figure is the cell its figure stands on (its recommended cell), not its fastest: every
  // figure of the row describes one cell.
  assert.equal(three.best.per_sec, 312_000 * 0.99, 'the grid\'s figure at the cell it recommends')
  assert.equal(three.single_result, false, 'a grid of nine runs')
  assert.match(three.recommended.source,
    /three \(the grid's recommended cell: batch_size 2000, concurrent_requests 16\)$/)
  // One run a cell: the grid's pick is untested, so no figure to plan with, and the page says why.
  assert.equal(three.planning.per_sec, null)
  assert.equal(three.planning.none, 'write-only: one run a cell: the recommended cell is untested (no interval)')
  assert.match(sized.stderr, /^note: 3 nodes: untested: .*three: one run a cell: no cell has an interval/m)
  assert.equal(sixNodes.recommended.per_sec, 312_000 * 0.99 * 1.8)
  assert.equal(sixNodes.efficiency_pct, 90)
  assert.match(sized.stderr,
    joined(
      /^scaling \(Universal Scalability Law over 3, 6, 9, 12 nodes of 8 cores; an estimate, R² [0-9.]+\): one /,
      /node ~[0-9,.]+ rows\/s, contention σ [0-9.]+, coherency κ [0-9.]+: limited by (contention|coherency)/m))
  assert.equal(sized.json.groups[0].usl[0].sizes.length, 4)
  assert.match(sized.stderr, /sizing report written to .*sizing\.html/)
  assert.equal((fs.readFileSync(report, 'utf8').match(/<svg/g) || []).length, 2)
  const none = await runTool('bin/crate-bench.js', ['sizing', dir])
  assert.equal(none.code, 2)
  assert.match(none.stderr,
    /^crate-bench sizing: error: .* is no grid folder \(crate-bench sweep grid --out\): .*grid\.json does not exist\n$/)
})

// Issue 46: sizing that carries its evidence.
test('results a sizing cannot stand on are left out, said why: --rate runs, forged shapes; groups by protocol and ' +
  'row shape', () => {
  const withShape = (r, cluster) => ({ ...r, environment: { cluster } })
  const ok = result({ nodes: 3, cores: 4, perSec: 30_000 })
  const list = ok.environment.cluster.node_list
  const points = [
    pointOf(ok, 'ok.json'),
    pointOf({ ...result({ nodes: 3, cores: 4, perSec: 2000 }), options: { ...ok.options, rate: 2000 },
      rate: { achieved_pct: 100 } }, 'rate.json'),
    pointOf(withShape(ok, { ...ok.environment.cluster, nodes: 1000, node_list: undefined }), 'thousand.json'),
    ...[-2, 0, 2.5].map((n) => pointOf(withShape(ok, { ...ok.environment.cluster, nodes: n }), `nodes${n}.json`)),
    pointOf(withShape(ok, { ...ok.environment.cluster, cores_per_node: 0 }), 'cores0.json'),
    pointOf({ ...ok, options: { ...ok.options, protocol: 'pg', extra_tags_length: 500 } }, 'pg-tags.json'),
    pointOf({ ...ok, options: { ...ok.options, replicas: '0' } }, 'replicas-text.json')
  ]
  const sizing = sizingOf(points)
  assert.deepEqual(sizing.groups.map((g) => [g.protocol, g.row_shape]), [['http', {}], ['pg',
    { extra_tags_length: 500 }]])
  const [http] = sizing.groups
  assert.deepEqual(http.shapes[0].excluded, [{ source: 'rate.json',
    why: 'a --rate run: it held 100% of a 2000/s target, not a peak' }])
  assert.deepEqual(sizing.bad_shape.map((b) => b.source), ['thousand.json', 'nodes-2.json', 'nodes0.json',
    'nodes2.5.json', 'cores0.json'])
  assert.match(sizing.bad_shape[0].why, /says 1000 nodes but lists no nodes/)
  assert.match(sizing.bad_shape[1].why, /has -2 nodes, not a whole number of at least 1/)
  assert.match(sizing.bad_shape[4].why, /have 0 cores, fewer than 1/)
  assert.equal(http.shapes[0].best.settings.replicas, 0)
  assert.equal(typeof points.at(-1).settings.replicas, 'number', "'0' read as the number it is")
  assert.equal(list.length, 3)
  const text = require('../../../lib/reports/sizing/rows').sizingText(sizing)
  assert.match(text, /^ingest \(cpu, pg, extra_tags_length 500\): /m)
  assert.match(text, /^left out: thousand\.json \(its cluster says 1000 nodes but lists no nodes\); nodes-2\.json/m)
  assert.match(text, /^not sizing figures: rate\.json \(a --rate run: it held 100% of a 2000\/s target, not a peak\)/m)
})

test('two grids of one shape that disagree beyond their intervals: both shown, a warning, no figure to plan with',
  () => {
  const grid = (perSec, low, high, source) => ({ ...pointOf(result({ nodes: 1, cores: 4, perSec }), source), runs: 9,
    ci95: { low, high }, recommended: { ...pointOf(result({ nodes: 1, cores: 4, perSec: perSec * 0.9 }), source),
      ci95: { low: low * 0.9, high: high * 0.9 }, runs: 3 } })
  const sizing = sizingOf([grid(19_075, 18_000, 20_100, 'grid-a'), grid(14_242, 13_500, 15_000, 'grid-b')])
  const [shape] = sizing.groups[0].shapes
  assert.equal(shape.results, 2)
  assert.deepEqual(shape.evidence.map((e) => [e.source, e.per_sec, e.recommended_per_sec]),
    [['grid-a', 19_075, 19_075 * 0.9], ['grid-b', 14_242, 14_242 * 0.9]])
  assert.match(shape.disagreement,
    /^results of this shape disagree: grid-a 19075 and grid-b 14242, 25\.3% apart beyond their 95% intervals/)
  assert.equal(shape.best.per_sec, 19_075)
  // The median of the two recommended figures (the lower of two); but repeats that disagree carry no plan.
  assert.equal(shape.recommended.per_sec, 14_242 * 0.9)
  assert.equal(shape.planning.per_sec, null)
  assert.equal(shape.planning.none, 'write-only: its results disagree (the warning below)')
  // One grid alone: its recommended cell's interval, less the headroom.
  const [alone] = sizingOf([grid(19_075, 18_000, 20_100, 'grid-a')]).groups[0].shapes
  assert.equal(alone.planning.per_sec, Math.round(18_000 * 0.9 * 0.8 * 100) / 100)
  assert.equal(alone.planning.rule, '20% below the lower end of the 95% interval at the recommended settings')
  assert.equal(alone.planning.set_by, 'write-only')
})

test('crate-bench sizing: the same file twice counts once; a grid naming a result outside its runs/ is refused',
  async (t) => {
  const dir = tempDir(t)
  const file = path.join(dir, 'a.json')
  const { scriptedResult, clusterOf } = require('../../helpers/grid-model')
  fs.writeFileSync(file, JSON.stringify(scriptedResult({ batch_size: 500, concurrent_requests: 4 }, 1,
    { cluster: clusterOf(1) })))
  const twice = await runTool('bin/crate-bench.js', ['sizing', file, file, path.join(dir, '.', 'a.json'), '--json'])
  assert.equal(twice.code, 0, twice.stderr)
  assert.equal(twice.json.groups[0].shapes[0].results, 1)
  const grid = path.join(dir, 'grid')
  fs.mkdirSync(path.join(grid, 'runs'), { recursive: true })
  const cell = { id: 'x', settings: { batch_size: 1 }, median_result_file: '../../../../etc/passwd', runs_done: 1 }
  fs.writeFileSync(path.join(grid, 'grid.json'), JSON.stringify({ best: cell, recommended: cell, cells: [] }))
  const escaped = await runTool('bin/crate-bench.js', ['sizing', grid])
  assert.equal(escaped.code, 2)
  assert.match(escaped.stderr,
    /grid\.json names "\.\.\/\.\.\/\.\.\/\.\.\/etc\/passwd" as a run's result: not in its runs\/ folder\n$/)
  assert.doesNotMatch(escaped.stderr, /root:/)
})

// Issue 47: the caveats written under the table from what the results measured.
test('caveats from what is missing: write-only, empty-table and short figures; each gone when a result covers it',
  () => {
  const run = (docs, seconds) => pointOf({ ...result({ nodes: 3, cores: 4, perSec: 30_000 }), seconds,
    table_storage: { start: { docs, size_bytes: 0, segments: 0 }, end: null } }, `${docs}-${seconds}.json`)
  const short = sizingOf([run(0, 60)]).groups[0].caveats
  assert.equal(short.length, 3)
  assert.match(short[0], /^write-only figures: no mixed capacity was given/)
  assert.match(short[1], /^empty-table figures: every run started on an empty table/)
  assert.match(short[2], /^short runs: none ran 10 minutes or more/)
  const covered = sizingOf([run(0, 60), run(50_000_000, 43_200)]).groups[0].caveats
  assert.deepEqual(covered.map((c) => c.split(':')[0]), ['write-only figures'])
  const text = require('../../../lib/reports/sizing/rows').sizingText(sizingOf([run(0, 60)]))
  assert.match(text, /^caveat: empty-table figures/m)
})

test('the mixed and sustained columns: a mixed capacity search and a long run of a shape, with what they held', () => {
  const { mixedEvidence } = require('../../../lib/reports/sizing')
  const base = result({ nodes: 3, cores: 4, perSec: 30_000 })
  const long = pointOf({ ...base, seconds: 43_200, sustained: { per_sec: 26_500, p99_ms: 80, duration_s: 43_200,
    table_rows_end: 1_100_000_000, drift: { throughput_change_pct: -11.7 } } }, 'soak.json')
  const stepResult = { ...base, workload: 'analytical', options: { protocol: 'http' },
    ingest: { options: { model: 'cpu' } } }
  const mixed = mixedEvidence({ workload: 'mixed', capacity: 18_000, query_rate: 20, slo: { p99_ms: 250 } }, stepResult,
    'mixed-3')
  const sizing = sizingOf([pointOf(base, 'peak.json'), long, mixed])
  assert.equal(sizing.groups.length, 1, 'the mixed capacity joins the ingest\'s group')
  const [shape] = sizing.groups[0].shapes
  assert.deepEqual([shape.mixed.per_sec, shape.mixed.query_rate, shape.mixed.slo_p99_ms], [18_000, 20, 250])
  assert.deepEqual([shape.sustained.per_sec, shape.sustained.duration_s, shape.sustained.table_rows_end],
    [26_500, 43_200, 1_100_000_000])
  assert.equal(shape.best.per_sec, 30_000, 'the mixed search is no write-only figure')
  assert.deepEqual(sizing.groups[0].caveats, [],
    'mixed given, a table of 1.1 billion rows, twelve hours: no caveat left')
  const text = require('../../../lib/reports/sizing/rows').sizingText(sizing)
  assert.match(text, /18,000 beside 20 queries\/s at p99 ≤ 250 ms/)
  // One reading of the long run (issue 68): its sustained figure in the results range and the checks too, its
  // whole-run mean only labelled beside it.
  assert.match(text, /26,500 held at the end of 720 min at p99 80 ms on 1,100,000,000 rows \(drift: throughput /)
  assert.match(text, /-11\.7%; whole-run mean 30,000\)/)
  assert.match(text, /│ 3 \(26,500–30,000, spread 13\.2%\) │/)
  assert.match(text, /peak\.json 30000 and soak\.json 26500, 11\.7% apart/)
})

// Issue 54: the sizing page carries every verdict of its inputs, and plans only with what they carry.

/**
 * A grid folder as sizing reads it (gridEvidence over a grid.json): its best and recommended cells' runs at
 * `perSec` (each cell's median run), `ci95` per cell, `busy` runs, `done` of `total` runs, undecided or untested.
 */
function gridPoint ({ nodes = 1, perSec, recommendedPerSec = perSec * 0.9, ci95 = null, recommendedCi95 = ci95,
  undecided = null, untested = null, busyRuns = 0, done = 12, total = 12, repeat = 3, source = 'grid',
  docs = null }) {
  const { gridEvidence } = require('../../../lib/reports/sizing')
  const runs = Array.from({ length: done }, (_, i) => ({ round: 1 + (i % repeat),
    busy_machine: i < busyRuns ? 'the nodes were busy before this run began (n0: CPU 95%)' : null,
    table_at_start: docs ? { docs: docs[Math.min(i, docs.length - 1)] } : null }))
  const best = { id: 'best', settings: { batch_size: 5000 }, median_result_file: 'runs/best.json', runs_done: repeat,
    ci95 }
  const recommended = undecided ? null : { id: 'rec', settings: { batch_size: 2000 },
    median_result_file: 'runs/rec.json', runs_done: repeat, ci95: recommendedCi95, untested }
  const grid = { repeat, runs_done: done, runs_total: total, best, recommended,
    undecided: undecided ? { why: undecided } : null,
    cells: [['rec', runs.slice(0, Math.ceil(done / 2))], ['best', runs.slice(Math.ceil(done / 2))]].map(([id, list]) =>
      ({ id, runs: list, table_at_start: list.map((r) => r.table_at_start).filter(Boolean) })) }
  const files = { 'runs/best.json': result({ nodes, cores: 4, perSec }),
    'runs/rec.json': result({ nodes, cores: 4, perSec: recommendedPerSec }) }
  return gridEvidence(grid, source, (f) => files[f])
}

const text = (sizing) => require('../../../lib/reports/sizing/rows').sizingText(sizing)

test('an undecided grid: no figure to plan with, why and what to run next; its "none" kept beside a decided grid',
  () => {
  const undecided = gridPoint({ perSec: 17_333, ci95: { low: 0, high: 38_903, clipped: true, wide: true },
    undecided: 'the runs of a cell differ by up to 90%: the grid cannot tell its cells apart', source: 'grid-1' })
  const [shape] = sizingOf([undecided]).groups[0].shapes
  assert.equal(shape.planning.per_sec, null)
  assert.equal(shape.planning.none, 'write-only: the grid could not tell its cells apart (grid-1)')
  // Issue 62: what to run next follows from what ran: the grid had --repeat 3 already.
  assert.equal(shape.planning.next, 'repeat more (--repeat 6: 3 a cell was not enough here), lengthen --duration or ' +
    'quiet the cluster')
  assert.deepEqual(shape.verdicts, ['undecided: grid-1: the runs of a cell differ by up to 90%: the grid cannot tell ' +
    'its cells apart'])
  // The same shape measured again, decided, 4% apart: still none, and the first grid's "none" is on the page.
  const decided = gridPoint({ perSec: 18_000, ci95: { low: 17_000, high: 19_000 }, source: 'grid-2' })
  const sizing = sizingOf([undecided, decided])
  const [both] = sizing.groups[0].shapes
  assert.equal(both.planning.per_sec, null)
  assert.match(both.planning.none, /grid-1 could not tell its cells apart where another recommended one/)
  assert.match(text(sizing), /^note: 1 node: undecided: grid-1: .* \(beside 1 decided grid of this shape: grid-2\)$/m)
})

test('a grid whose every cell is over its SLO says so first, whatever else stands in the way', () => {
  const { gridEvidence } = require('../../../lib/reports/sizing')
  const files = { 'runs/best.json': result({ nodes: 1, cores: 4, perSec: 20_000, p99: 4000 }) }
  const grid = { repeat: 3, runs_done: 12, runs_total: 12, best: { id: 'best', settings: { batch_size: 5000 },
    median_result_file: 'runs/best.json', runs_done: 3, ci95: { low: 0, high: 40_000, clipped: true } },
  recommended: null, undecided: { why: 'the runs of a cell differ by up to 90%' },
  slo_unmet: 'no cell met p99 ≤ 1 s without failures', cells: [] }
  const [shape] = sizingOf([gridEvidence(grid, 'grid-slo', (f) => files[f])]).groups[0].shapes
  assert.equal(shape.planning.none, 'write-only: every cell of grid-slo is over its SLO (no cell met p99 ≤ 1 s ' +
    'without failures)')
  assert.equal(shape.planning.next, 'a lighter load (smaller batches, fewer requests in flight) or more nodes, or a ' +
    'looser --slo')
})

test('a grid whose best cell breaks its SLO: the measured figure is the fastest cell within it, named so', () => {
  const { gridEvidence, fastestWithinSlo } = require('../../../lib/reports/sizing/evidence')
  const files = { 'runs/best.json': result({ nodes: 1, cores: 4, perSec: 17_648, p99: 2666 }),
    'runs/within.json': result({ nodes: 1, cores: 4, perSec: 16_320, p99: 304 }),
    'runs/slow.json': result({ nodes: 1, cores: 4, perSec: 12_442, p99: 119 }) }
  const cell = (id, perSec, p99, file, excluded = null) => ({ id, settings: { concurrent_requests: id },
    rows_per_sec: perSec, p99_ms: p99, excluded, median_result_file: file, runs_done: 3,
    ci95: { low: perSec * 0.9, high: perSec * 1.1 }, runs: [] })
  const cells = [cell(16, 17_648, 2666, 'runs/best.json'), cell(1, 16_320, 304, 'runs/within.json'),
    cell(4, 12_442, 119, 'runs/slow.json'), cell(8, 20_000, 200, 'runs/none.json', 'the load generator was saturated')]
  const grid = { unit: 'rows', slo_p99_ms: 1000, repeat: 3, runs_done: 12, runs_total: 12, best: cells[0],
    recommended: null, undecided: { why: 'the grid cannot tell its cells apart' }, cells }
  assert.equal(fastestWithinSlo(grid).id, 1, 'a ruled-out cell is never chosen, whatever its p99')
  const point = gridEvidence(grid, 'grid-slo', (f) => files[f])
  assert.equal(point.throughput, 16_320)
  assert.equal(point.source, 'grid-slo (the grid\'s fastest within its SLO cell: concurrent_requests 1)')
  assert.equal(fastestWithinSlo({ ...grid, slo_p99_ms: null }).id, 16, 'no SLO: the best')
  assert.equal(fastestWithinSlo({ ...grid, slo_p99_ms: 50 }), null, 'no cell meets it')
  const over = gridEvidence({ ...grid, slo_p99_ms: 50 }, 'grid-slo', (f) => files[f])
  assert.equal(over.source, 'grid-slo (the grid\'s best, over its SLO: no cell met it cell: concurrent_requests 16)')
})

test('two grids of one shape ×1.85 apart disagree though one interval reaches 0; each figure says its own runs', () => {
  const first = gridPoint({ perSec: 17_333, ci95: { low: 0, high: 38_903, clipped: true }, source: 'grid-1' })
  const second = gridPoint({ perSec: 32_107, ci95: { low: 29_000, high: 35_000 }, source: 'grid-2' })
  const [shape] = sizingOf([first, second]).groups[0].shapes
  assert.match(shape.disagreement, joined(/grid-1 \(the grid's recommended cell: batch_size 2000\) 15599.7 and /,
    /grid-2 \(the grid's recommended cell: batch_size 2000\) 28896.3, 46% apart \(more than 25%, whatever their /,
    /intervals say\)/))
  assert.equal(shape.planning.per_sec, null)
  assert.equal(shape.best.runs, 3, 'the best figure stands on its cell\'s 3 runs, not the grid\'s 12')
  assert.deepEqual(shape.evidence.map((e) => [e.runs, e.runs_done, e.runs_total]), [[3, 12, 12], [3, 12, 12]])
})

test('busy inputs: counted per shape on every page, and a recommended cell that ran busy carries no plan', () => {
  const busy = gridPoint({ perSec: 30_000, ci95: { low: 28_000, high: 32_000 }, busyRuns: 12, source: 'grid-busy' })
  const sizing = sizingOf([busy])
  const [shape] = sizing.groups[0].shapes
  assert.match(shape.verdicts[0],
    /^busy: 12 of 12 runs ran beside other work or on nodes busy beyond the load or before it \(grid-busy: /)
  assert.match(shape.planning.none, /^write-only: the recommended cell ran on busy nodes \(the nodes were busy/)
  assert.equal(shape.best.busy, 'the nodes were busy before this run began (n0: CPU 95%)')
  const page = text(sizing)
  assert.match(page, /│ 27,000 \(28,000–32,000\) \(BUSY\) +│/)
  assert.match(page, /│ 1 \(a grid of 12 runs\) \[12 busy\] +│/)
  assert.match(page, /^warning: 1 node: busy: 12 of 12 runs/m)
  const html = require('../../../lib/reports/sizing/html').renderSizingHtml(sizing)
  assert.match(html, /warning: 1 node: busy: 12 of 12 runs/)
  // One busy run of twelve, none of them the recommended cell's: said, and the plan stands.
  const once = gridPoint({ perSec: 30_000, ci95: { low: 28_000, high: 32_000 }, busyRuns: 1, done: 12 })
  const [quiet] = sizingOf([pointOfRunsReordered(once)]).groups[0].shapes
  assert.match(quiet.verdicts[0], /^busy: 1 of 12 runs/)
  assert.equal(quiet.planning.per_sec, Math.round(28_000 * 0.8 * 100) / 100)
})

/** The grid point with its busy run moved out of the recommended cell (gridPoint puts busy runs first, there). */
function pointOfRunsReordered (point) {
  return { ...point, recommended: { ...point.recommended, busy: null, busy_runs: 0 } }
}

test('an incomplete grid says how many of its runs ran; a table that grew several-fold through the grid says so',
  () => {
  const partial = gridPoint({ perSec: 30_000, ci95: null, done: 1, total: 12, repeat: 3, source: 'grid-cut',
    untested: 'one run a cell: no cell has an interval' })
  const sizing = sizingOf([partial])
  const [shape] = sizing.groups[0].shapes
  assert.ok(shape.verdicts.includes('incomplete: grid-cut ran 1 of 12 runs'), shape.verdicts.join('\n'))
  assert.equal(shape.planning.per_sec, null)
  assert.match(text(sizing), /│ 1 \(a grid of 1 runs\) \[1 of 12 runs done\] +│/)
  const grown = gridPoint({ perSec: 30_000, ci95: { low: 28_000, high: 32_000 }, docs: [1_000_000, 2_000_000,
    5_000_000], source: 'grid-grew' })
  const [filled] = sizingOf([grown]).groups[0].shapes
  assert.ok(filled.verdicts.includes('table grew: grid-grew: its table grew from 1,000,000 to 5,000,000 rows through ' +
    'the study; its later rounds measured a larger table'), filled.verdicts.join('\n'))
})

test('a mixed capacity below the write-only figure sets the plan, its rule naming both; a lower bound said so', () => {
  const { mixedEvidence } = require('../../../lib/reports/sizing')
  const write = gridPoint({ perSec: 24_000, recommendedPerSec: 21_000, ci95: { low: 19_506, high: 23_000 } })
  const step = { ...result({ nodes: 1, cores: 4, perSec: 0 }), workload: 'analytical', options: {},
    ingest: { options: { model: 'cpu' } } }
  const mixed = mixedEvidence({ workload: 'mixed', capacity: 1750, query_rate: 2, slo: { p99_ms: 3000 },
    capacity_kind: 'lower_bound', capacity_below: 2000, steps: [{ rate: 1750 }, { rate: 1750 }, { rate: 1750 }] },
  step, 'mixed-1')
  const sizing = sizingOf([write, mixed])
  const [shape] = sizing.groups[0].shapes
  assert.equal(shape.planning.per_sec, 1750)
  assert.equal(shape.planning.set_by, 'mixed')
  assert.equal(shape.planning.rule, 'the mixed capacity beside 2 queries/s (a lower bound: every run passed); ' +
    'write-only 15,605')
  assert.deepEqual(sizing.groups[0].caveats.filter((c) => c.startsWith('write-only')), [])
  const page = text(sizing)
  assert.match(page, /^1 node: to plan with 1,750 rows\/s: the mixed capacity beside 2 queries\/s/m)
  assert.match(page, /│ at least 1,750 \(every run passed\), below 2,000 beside 2 queries\/s at p99 ≤ 3,000 ms/)
  // A second shape without a mixed capacity says so itself: the other shape's figure does not hide it.
  const three = gridPoint({ nodes: 3, perSec: 60_000, ci95: { low: 50_000, high: 70_000 } })
  const [, threeNodes] = sizingOf([write, mixed, three]).groups[0].shapes
  assert.deepEqual(threeNodes.caveats, ['no mixed capacity the runs carry for this shape (write-only figures)'])
})

test('a long run that did not hold is never "held": what it held, its p99 and drift; a plan above it is warned', () => {
  const base = result({ nodes: 1, cores: 4, perSec: 13_559, p99: 7237 })
  const sustained = { per_sec: 13_559, p99_ms: 7237, duration_s: 600, table_rows_end: null,
    drift: { throughput_change_pct: -1.8, p99_change_pct: 1480, p50_change_pct: 1480 } }
  const beyond = pointOf({ ...base, options: { ...base.options, rate: 13_866 }, seconds: 600, sustained,
    rate: { target_per_sec: 13_866, achieved_pct: 98.5 }, drift: { first: { p50_ms: 40 }, last: { p50_ms: 632 } } },
  'sustained.json')
  assert.equal(beyond.sustained.held, false)
  assert.match(beyond.sustained.not_held_why, /it achieved 98\.5% of its 13866\/s target; the load was beyond what/)
  const write = gridPoint({ perSec: 24_000, recommendedPerSec: 21_000, ci95: { low: 19_506, high: 23_000 } })
  const sizing = sizingOf([write, beyond])
  const [shape] = sizing.groups[0].shapes
  assert.equal(shape.planning.per_sec, 15_604.8)
  assert.match(shape.planning.above_failed_sustained,
    /^the figure to plan with is above 13,866 rows\/s, a rate sustained\.json did not hold/)
  const page = text(sizing)
  assert.match(page, /did not hold 13,866\/s \(98\.5%\) over 10 min at p99 7,237 ms \(drift: throughput -1\.8%, p99/)
  assert.doesNotMatch(page, /13,559 held/)
  assert.match(page, /^warning: 1 node: the figure to plan with is above 13,866 rows\/s/m)
  // A --rate run far below the plan held its rate: a lower bound, and no long run at the planning rate.
  const slow = pointOf({ ...base, options: { ...base.options, rate: 100 }, seconds: 600,
    sustained: { ...sustained, per_sec: 100, p99_ms: 3 }, rate: { target_per_sec: 100, achieved_pct: 100 } },
  'slow.json')
  const low = sizingOf([write, slow])
  assert.match(text(low), /held 100\/s for 10 min at p99 3 ms \(a lower bound\)/)
  assert.match(low.groups[0].shapes[0].caveats[0], /^its long run held 100 rows\/s, below the figure to plan with/)
  assert.ok(low.groups[0].caveats.some((c) => c.startsWith('short runs')), 'a run at 100/s measured no planning rate')
})

// Issue 57 (item 9): a run too short for a steady rate is no sizing figure; a link in a grid's runs/ is not followed.
test('a run of 51 ms is left out, said why; a grid whose runs/ holds a link to a file elsewhere is refused',
  async (t) => {
  const short = pointOf({ ...result({ nodes: 1, cores: 4, perSec: 19_600 }), seconds: 0.051, requests: 1 },
    'short.json')
  assert.deepEqual(short.problems, ['too short for a steady rate (1 request in 0.051 s, under 10)'])
  const dir = tempDir(t)
  const grid = path.join(dir, 'grid')
  fs.mkdirSync(path.join(grid, 'runs'), { recursive: true })
  fs.symlinkSync('/etc/passwd', path.join(grid, 'runs', 'cell-r1.json'))
  const cell = { id: 'x', settings: { batch_size: 1 }, median_result_file: 'runs/cell-r1.json', runs_done: 1 }
  fs.writeFileSync(path.join(grid, 'grid.json'), JSON.stringify({ best: cell, recommended: cell, cells: [] }))
  const linked = await runTool('bin/crate-bench.js', ['sizing', grid])
  assert.equal(linked.code, 2)
  assert.match(linked.stderr, /names "runs\/cell-r1\.json" as a run's result: not in its runs\/ folder/)
  assert.doesNotMatch(linked.stderr, /root:/)
  // A report to a link to nothing is refused before any input is read.
  fs.symlinkSync('/no/such/dir/sizing.html', path.join(dir, 'dangling.html'))
  const dangling = await runTool('bin/crate-bench.js', ['sizing', grid, '--report', path.join(dir, 'dangling.html')])
  assert.equal(dangling.code, 2)
  assert.match(dangling.stderr, /--report '.*dangling\.html' is a symbolic link to nothing/)
})

test('a capacity summary whose figures no search makes is refused, named: a negative capacity, rate or SLO',
  async (t) => {
    const dir = tempDir(t)
    const summary = { workload: 'mixed', capacity: -5000, query_rate: -3, slo: { p99_ms: -1 }, steps: [] }
    fs.writeFileSync(path.join(dir, 'capacity.summary.json'), JSON.stringify(summary))
    fs.writeFileSync(path.join(dir, 'capacity.jsonl'), '')
    const run = await runTool('bin/crate-bench.js', ['sizing', dir])
    assert.equal(run.code, 2)
    assert.match(run.stderr, /is no find-capacity folder this tool wrote: its capacity is -5000, not a rate above 0/)
  })

test('what to run next names what ran: a grid of --repeat 3 that its budget stopped after one round ran one', () => {
  const { gridEvidence } = require('../../../lib/reports/sizing')
  const files = { 'runs/best.json': result({ nodes: 1, cores: 4, perSec: 20_000 }) }
  const grid = (rounds) => ({ repeat: 3, runs_done: 2 * rounds, runs_total: 12,
    best: { id: 'best', settings: { batch_size: 5000 }, median_result_file: 'runs/best.json', runs_done: rounds,
      ci95: { low: 0, high: 40_000, clipped: true } },
    recommended: null, undecided: { why: 'the runs of a cell differ by up to 90%' },
    cells: ['a', 'best'].map((id) => ({ id, runs_done: rounds, runs: Array.from({ length: rounds },
      (_, i) => ({ round: i + 1 })) })) })
  const nextOf = (rounds) => sizingOf([gridEvidence(grid(rounds), 'grid-b', (f) => files[f])]).groups[0].shapes[0]
    .planning.next
  assert.equal(nextOf(1), 'repeat more (--repeat 5), lengthen --duration or quiet the cluster')
  assert.equal(nextOf(3), 'repeat more (--repeat 6: 3 a cell was not enough here), lengthen --duration or quiet the ' +
    'cluster')
})
