'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { shapePlanS } = require('../../lib/study/progress')
const { readStudy } = require('../../lib/study/study-file')
const { parseArgs } = require('../../lib/study/command')
const { tempDir } = require('../helpers/temp-files')
const { UsageError } = require('../../lib/base/errors')

test('a study file is checked whole before anything starts; the plan counts every part', (t) => {
  const dir = tempDir(t)
  const file = path.join(dir, 'study.yml')
  const queries = path.join(dir, 'q.yml')
  fs.writeFileSync(queries, '- {name: q, query: "SELECT 1", ratio: 1}\n')
  fs.writeFileSync(file, 'cluster: {version: 6.4.3, nodes: [1, 3]}\n' +
    'grid: {vary: {batch_size: [2000, 5000], concurrent_requests: [2, 8]}, duration: 10s}\n' +
    `mixed: {queries: ${queries}, query_rate: 2, slo: p99=3s}\nsustained: {duration: 10m}\n`)
  const study = readStudy(file)
  assert.deepEqual([study.shapes, study.grid.repeat, study.cluster.heap], [[1, 3], 3, '1g'])
  // A warm-up run and 12 runs of 10 s with 5 s of warm-up, ten mixed steps of 10 s and 10 s, 10 minutes, the start.
  assert.equal(Math.round(shapePlanS(study) / 60), Math.round((40 + 13 * 19 + 10 * 23 + 610) / 60))
  // The grid's own rules, named by the study file's key: which settings it varies, how many, each value.
  for (const [vary, error] of [
    ['{batch_size: [1, 2], shard_count: [1, 2]}', /^grid\.vary shard_count: a grid varies batch_size, /],
    ['{batch_size: [1, 2]}', /^a grid needs grid\.vary NAME=V1,V2,… at least twice/],
    ['{batch_size: [1, 1000], processes: [1, x]}', /^grid\.vary processes: 'x' is not a value; give /],
    ['{batch_size: [1, 2], processes: "1,2"}', /^grid\.vary\.processes must list its values \(processes: \[1, 2\]\)$/],
    ['[batch_size]', /^grid\.vary must name two settings or more/]
  ]) {
    fs.writeFileSync(file, `cluster: {version: 6.4.3}\ngrid: {vary: ${vary}}\n`)
    assert.throws(() => parseArgs([file, '--out', path.join(dir, 'out')], {}),
      (e) => e instanceof UsageError && error.test(e.message), vary)
  }
  fs.writeFileSync(file, 'cluster: [1]\ngrid: {vary: {batch_size: [1, 2], processes: [1, 2]}}\n')
  assert.throws(() => readStudy(file), /cluster must be a mapping of keys/)
  fs.writeFileSync(file, ': :\n')
  assert.throws(() => readStudy(file), /is no YAML/)
})

test('every value of a study file is checked before a cluster starts, in one line naming its key', (t) => {
  const dir = tempDir(t)
  const file = path.join(dir, 'study.yml')
  const queries = path.join(dir, 'q.yml')
  fs.writeFileSync(queries, '- {name: q, query: "SELECT 1", ratio: 1}\n')
  const grid = 'grid: {vary: {batch_size: [1000, 2000], concurrent_requests: [1, 2]}'
  const sizing = (cluster, gridKeys = '', rest = '') =>
    `cluster: {version: 6.4.3${cluster}}\n${grid}${gridKeys}}\n${rest}`
  const contenders = (first, rest = '') => `contenders: [{name: a, version: 6.4.3${first}}, {name: b, version: ` +
    `6.4.3}]\n${rest}`
  for (const [text, error] of [
    [contenders('', 'forks: 100000000\n'), /^forks must be a whole number from 1 to 100 \(got 100000000\)$/],
    [contenders('', 'cpu_precision: 2%\n'), /^cpu_precision: goes with precision: /],
    [contenders('', 'precision: 5%\ncpu_precision: 0%\n'), /^cpu_precision/],
    [contenders('', 'run: {args: [--duration, 20s], lengthen: no}\n'), /^run\.lengthen must be true or false /],
    [sizing(', nodes: [1, 500]'), /^cluster\.nodes\[1\] must be a whole number from 1 to 20 \(got 500\)$/],
    [sizing(', nodes: [1.5]'), /^cluster\.nodes\[0\] must be a whole number/],
    [sizing(', heap: lots'), /^cluster: --heap must be a size such as 512m or 2g \(got 'lots'\)$/],
    [sizing(', heap: 100m'), /^cluster: --heap 100m is below the 256m a CrateDB node needs/],
    [sizing(', settings: {http.bind_host: 0.0.0.0}'),
      /^cluster: --setting http\.bind_host: the nodes listen on loopback/],
    [sizing(', http_port: 80'), /^cluster: --http_port must be a port from 1024/],
    [sizing(', sha256: abc'), /^cluster\.sha256: --sha256 must be 64 hexadecimal digits/],
    [sizing('', ', prefill: -5'), /^grid\.prefill must be a whole number from 0 to 10,000,000,000 \(got -5\)$/],
    [sizing('', ', duration: forever'), /^grid\.duration must be a positive duration such as 30s or 5m/],
    [sizing('', ', warmup: -1s'), /^grid\.warmup must be a positive duration such as 30s or 5m \(0: none\)/],
    [sizing('', '', 'mixed: {queries: /no/such.yml, query_rate: 1, slo: p99=1s}\n'),
      /^mixed\.queries: \/no\/such\.yml does not exist$/],
    [sizing('', '', 'sustained: {prefill: 1e12}\n'), /^sustained\.prefill must be a whole number from 0 to/],
    [contenders(', nodes: 0'), /^contenders\[0\]\.nodes must be a whole number from 1 to 20 \(got 0\)$/],
    [contenders(', heap: 2x'), /^contenders\[0\]: --heap must be a size such as 512m or 2g/],
    [`cluster: {tarball: ${path.join(dir, 'none.tar.gz')}}\n${grid}}\n`,
      /^cluster\.tarball: .*none\.tar\.gz is no file$/]
  ]) {
    fs.writeFileSync(file, text)
    assert.throws(() => readStudy(file), (e) => e instanceof UsageError && error.test(e.message), `${text} -> ` +
      (() => { try { readStudy(file) } catch (e) { return e.message } return 'accepted' })())
  }
  // A part's own keys are its builder's (sweep/grid/config.js, sweep/capacity-config.js): checked with the plan,
  // before any cluster starts, in the builder's words named by the file's key: one rule a key.
  for (const [text, error] of [
    [sizing('', ', repeat: 0'), /^grid\.repeat must be a whole number of at least 1, not '0'$/],
    [sizing('', ', repeat: 1e300'), /^grid\.repeat must be a whole number of at least 1, not '1e\+300'$/],
    [sizing('', ', repeat: "3x"'), /^grid\.repeat must be a whole number of at least 1, not '3x'$/],
    [sizing('', ', slo: banana'), /^grid\.slo must be p99=<duration>, e\.g\. p99=200ms \(got 'banana'\)$/],
    [sizing('', ', precision: 80%'), /^grid\.precision /],
    [sizing('', ', budget: soon'), /^grid\.budget must be a positive duration such as 500ms, 30s, 5m or 1h \(got /],
    [sizing('', '', `mixed: {queries: ${queries}, query_rate: 0, slo: p99=1s}\n`),
      /^mixed\.query_rate must be positive \(got '0'\)$/],
    [sizing('', '', `mixed: {queries: ${queries}, query_rate: 1, slo: banana}\n`), /^mixed\.slo must be p99=/],
    [sizing('', '', `mixed: {queries: ${queries}, query_rate: 1, slo: p99=1s, edge_repeat: 15}\n`),
      /^mixed\.edge_repeat must be a whole number from 1 to 10 \(got '15'\)$/],
    [sizing('', '', `mixed: {queries: ${queries}, query_rate: 1, slo: p99=1s, max_steps: 0}\n`),
      /^mixed\.max_steps must be positive \(got '0'\)$/],
    [sizing('', '', `mixed: {queries: ${queries}, query_rate: 1, slo: p99=1s, duration: forever}\n`),
      /^mixed\.duration must be a positive duration/]
  ]) {
    fs.writeFileSync(file, text)
    const plan = () => parseArgs([file, '--out', path.join(dir, 'out')], {})
    assert.throws(plan, (e) => e instanceof UsageError && error.test(e.message), `${text} -> ` +
      (() => { try { plan() } catch (e) { return e.message } return 'accepted' })())
  }
  // run.lengthen is kept only when given: a study folder of a file without it resumes as before.
  fs.writeFileSync(file, contenders('', 'run: {args: [--duration, 20s], lengthen: false}\n'))
  assert.equal(readStudy(file).run.lengthen, false)
  fs.writeFileSync(file, contenders('', 'run: {args: [--duration, 20s]}\n'))
  assert.equal('lengthen' in readStudy(file).run, false)
  // A warm-up of 0 turns it off, as the benchmark's --warmup 0 does.
  fs.writeFileSync(file, sizing('', ', warmup: 0s'))
  assert.equal(readStudy(file).grid.warmup, '0')
})

test('a study\'s args: may not point its runs elsewhere: connection options are refused before anything starts',
  (t) => {
    const file = path.join(tempDir(t), 'study.yml')
    const head = 'cluster: {version: 6.4.3}\ngrid: {vary: {batch_size: [1000, 2000], concurrent_requests: [1, 2]}'
    for (const [args, flag] of [
      ['[--protocol, pg, --pg_port, 5149]', '--pg_port'], ['[--host, "stranger:4200"]', '--host'],
      ['[--port=4200]', '--port'], ['[--user, admin]', '--user'], ['[--ssl]', '--ssl'], ['[--insecure]', '--insecure'],
      ['[--start_cluster, 3]', '--start_cluster'], ['[--crate_version, 6.4.3]', '--crate_version']
    ]) {
      fs.writeFileSync(file, `${head}, args: ${args}}\n`)
      assert.throws(() => readStudy(file), new RegExp(`^UsageError: grid\\.args: ${flag} is an option of the ` +
        'connection; a study\'s runs go only to the cluster it starts'), args)
    }
    fs.writeFileSync(file, 'contenders: [{name: a, version: 6.4.3}, {name: b, version: 6.4.3}]\n' +
      'run: {args: [--protocol, pg, --pg_port, "5149"]}\n')
    assert.throws(() => readStudy(file), /^UsageError: run\.args: --pg_port is an option of the connection/)
    // --protocol pg itself is the study's to honour: on the nodes' own PostgreSQL ports.
    fs.writeFileSync(file, `${head}, args: [--protocol, pg]}\n`)
    assert.deepEqual(readStudy(file).grid.args, ['--protocol', 'pg'])
  })

test('a study file that names up:/down: commands is refused when another user could have written it or its folder; ' +
  'one only its user can write runs them', (t) => {
  const { otherUser } = require('../helpers/other-user')
  const dir = tempDir(t)
  fs.chmodSync(dir, 0o755)
  const body = 'targets:\n  - {name: a, hosts: [http://127.0.0.1:4200], up: ./deploy.sh, down: ./down.sh}\n' +
    'grid: {vary: {batch_size: [1, 2], processes: [1, 2]}}\n'
  const file = path.join(dir, 'study.yml')
  fs.writeFileSync(file, body, { mode: 0o644 })
  // The allowed case: the user's own file in the user's own folder.
  assert.equal(readStudy(file).targets[0].up, './deploy.sh')
  // A file others may write.
  fs.chmodSync(file, 0o664)
  assert.throws(() => readStudy(file), new RegExp(`^UsageError: ${file}: ${file} may be written by others ` +
    '\\(mode 664\\)' +
    '; its up:/down: commands would run as (root|you) with your environment: keep it in a folder only you can write ' +
    'to \\(not a shared one such as /tmp\\), or drop them$'))
  fs.chmodSync(file, 0o644)
  // A folder anyone may add to, sticky or not (a script its commands call may be planted there).
  fs.chmodSync(dir, 0o1777)
  assert.throws(() => readStudy(file), new RegExp(`${dir} may be written by others \\(mode 1777\\)`))
  fs.chmodSync(dir, 0o755)
  // The same file without commands is a study like any other, wherever it is.
  const plain = path.join(dir, 'plain.yml')
  fs.writeFileSync(plain, body.replace(', up: ./deploy.sh, down: ./down.sh', ''), { mode: 0o666 })
  fs.chmodSync(plain, 0o666)
  assert.equal(readStudy(plain).targets[0].up, null)
  // A comparison's contenders the same.
  const compare = path.join(dir, 'compare.yml')
  fs.writeFileSync(compare, 'contenders:\n  - {name: a, hosts: [http://127.0.0.1:4200], up: ./up.sh}\n' +
    '  - {name: b, hosts: [http://127.0.0.1:4201]}\n', { mode: 0o666 })
  fs.chmodSync(compare, 0o666)
  assert.throws(() => readStudy(compare), /compare\.yml may be written by others \(mode 666\)/)
  // As root: a stranger's file (the attack: user nobody's study.yml whose up: writes `id -u`).
  const { other, skip } = otherUser({ who: 'a stranger', tests: 'the stranger\'s study file as root' })
  if (skip) return
  fs.chownSync(file, other.uid, other.gid)
  assert.throws(() => readStudy(file), new RegExp(`${file} belongs to another user \\(uid ${other.uid}\\); its ` +
    'up:/down: commands would run as root'))
  fs.chownSync(file, 0, 0)
  fs.chownSync(dir, other.uid, other.gid)
  assert.throws(() => readStudy(file), new RegExp(`${dir} belongs to another user`))
})
