'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { compareContenders, shapePlanS } = require('../../../lib/sweep/study/command')
const { readStudy } = require('../../../lib/sweep/study/study-file')
const { tempDir } = require('../../helpers/temp-files')
const { memoryStream } = require('../../helpers/memory-stream')

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
  // The same cluster measured ten times, its runs dealt to a and b as the forks' alternating order dealt them.
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
  assert.match(stderr.text, /^b against a \(5 and 5 runs; Welch's t-test/m)
})

test('a study file is checked whole before anything starts; the plan counts every part', (t) => {
  const file = path.join(tempDir(t), 'study.yml')
  fs.writeFileSync(file, 'cluster: {version: 6.4.3, nodes: [1, 3]}\n' +
    'grid: {vary: {batch_size: [2000, 5000], concurrent_requests: [2, 8]}, duration: 10s}\n' +
    'mixed: {queries: q.yml, query_rate: 2, slo: p99=3s}\nsustained: {duration: 10m}\n')
  const study = readStudy(file)
  assert.deepEqual([study.shapes, study.grid.repeat, study.cluster.heap], [[1, 3], 3, '1g'])
  // 12 runs of 10 s with 5 s of warm-up, ten mixed steps of 10 s and 10 s, 10 minutes, the start: about 19 min.
  assert.equal(Math.round(shapePlanS(study) / 60), Math.round((40 + 12 * 19 + 10 * 23 + 610) / 60))
  fs.writeFileSync(file, 'cluster: {version: 6.4.3}\ngrid: {vary: {batch_size: [1, 2], shard_count: [1, 2]}}\n')
  assert.throws(() => readStudy(file), /grid\.vary\.shard_count is no setting a grid varies/)
  fs.writeFileSync(file, 'cluster: [1]\ngrid: {vary: {batch_size: [1, 2], processes: [1, 2]}}\n')
  assert.throws(() => readStudy(file), /cluster must be a mapping of keys/)
  fs.writeFileSync(file, ': :\n')
  assert.throws(() => readStudy(file), /is no YAML/)
})
