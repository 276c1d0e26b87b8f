'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { compareContenders, differencesOf } = require('../../lib/study/comparison')
const { warmupTogether } = require('../../lib/study/forks')
const { tempDir } = require('../helpers/temp-files')
const { memoryStream } = require('../helpers/memory-stream')
const { joined } = require('../helpers/patterns')

/** The fork results of contender `name`, as the benchmark writes them, at these rows/s and p99s. */
function writeForks (dir, name, figures) {
  fs.mkdirSync(path.join(dir, 'forks'), { recursive: true })
  figures.forEach(([perSec, p99], i) => fs.writeFileSync(path.join(dir, 'forks', `${i + 1}-${name}.json`),
    JSON.stringify({ workload: 'ingest', options: {}, rows_per_sec: perSec, rows_failed: 0, rows_in_doubt: 0,
      latency_ms: { p50: p99 / 3, p99, p999: p99 * 1.2 } })))
}

test('an A/A study (one cluster twice) comes out as no significant difference; a slower contender as worse', (t) => {
  const dir = tempDir(t)
  const study = { contenders: [{ name: 'a' }, { name: 'b' }, { name: 'slow' }], forks: 5 }
  // The same cluster measured ten times, its runs dealt to a and b as the forks dealt them; each fork a pair.
  writeForks(dir, 'a', [[50_100, 210], [49_600, 198], [50_300, 207], [49_900, 215], [50_050, 204]])
  writeForks(dir, 'b', [[49_800, 205], [50_400, 212], [49_700, 209], [50_200, 201], [49_950, 220]])
  writeForks(dir, 'slow', [[41_000, 300], [40_500, 310], [41_300, 295], [40_800, 305], [41_100, 299]])
  const stderr = memoryStream()
  compareContenders({ out: dir, study }, { stderr })
  const { comparisons } = JSON.parse(fs.readFileSync(path.join(dir, 'comparison.json'), 'utf8'))
  const verdict = (c, figure) => c.figures.find((f) => f.figure === figure).verdict
  assert.deepEqual([comparisons[0].new, verdict(comparisons[0], 'rows/s'), verdict(comparisons[0], 'p99 ms')],
    ['b', 'no significant difference', 'no significant difference'])
  assert.deepEqual([comparisons[1].new, verdict(comparisons[1], 'rows/s'), verdict(comparisons[1], 'p99 ms')],
    ['slow', 'worse', 'worse'])
  assert.match(stderr.text, /^b against a \(5 forks; paired: the ratio new \/ base of each pair/m)
  assert.match(stderr.text, joined(/^ {2}rows\/s: 49,990 -> 50,010 \(0%, 95% interval -1\.3% \.\. \+1\.4%\): no /,
    /significant difference; a change under 1\.8% would not have been seen$/m))
})

test('what differs between contenders is named, as started (the version its nodes reported), or said to be nothing',
  () => {
    const contenders = [{ name: 'a', version: '6.4.2', nodes: 1, heap: '1g', settings: [] },
      { name: 'b', version: '6.4.3', nodes: 1, heap: '2g', settings: ['thread_pool.write.size=1'] }]
    const records = { a: { version: '6.4.2', build_hash: 'x1', distribution: { sha256: 'aa' } },
      b: { version: '6.4.3', build_hash: 'x2', distribution: { sha256: 'bb' } } }
    assert.deepEqual(differencesOf(contenders, records), ['version: a 6.4.2, b 6.4.3', 'build: a x1, b x2',
      'distribution: a aa, b bb', 'heap: a 1g, b 2g', 'settings: a none, b thread_pool.write.size=1'])
    const same = [{ ...contenders[0] }, { ...contenders[0], name: 'b' }]
    assert.deepEqual(differencesOf(same, { a: records.a, b: records.a }),
      ['nothing: the contenders are the same cluster (an A/A study)'])
  })

test('a duet\'s runs with a steady warm-up meet in a fresh folder of their fork to end it together; others do not',
  (t) => {
  const dir = tempDir(t)
  const contenders = [{ name: 'a', ports: [{ http: 4900, pg: 5900 }] },
    { name: 'b', ports: [{ http: 4901, pg: 5901 }] }]
  const configOf = (args) => ({ study: { run: { workload: 'ingest', args } } })
  const meet = path.join(dir, 'forks', '3-warm-up')
  fs.mkdirSync(meet, { recursive: true })
  fs.writeFileSync(path.join(meet, '999.steady'), '{}\n')
  assert.deepEqual(warmupTogether(3, contenders, { dir, config: configOf(['--duration', '20s']), env: {} }),
    ['--warmup_together', meet, '--warmup_peers', '2'])
  assert.deepEqual(fs.readdirSync(meet), [], 'a mark of an earlier try of this fork is gone')
  for (const args of [['--duration', '20s', '--warmup', '30s'], ['--max_rows', '1000']]) {
    assert.deepEqual(warmupTogether(4, contenders, { dir, config: configOf(args), env: {} }), [], args.join(' '))
  }
  assert.deepEqual(warmupTogether(5, contenders, { dir, config: configOf(['--duration', '20s', '--warmup',
    'steady:2m']), env: {} }).slice(2), ['--warmup_peers', '2'])
})
