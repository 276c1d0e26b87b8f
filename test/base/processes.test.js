'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const { spawn } = require('node:child_process')
const path = require('node:path')
const { toolProcessRuns, processStartTime, processInfo, processEnded } = require('../../lib/base/processes')
const { tempDir } = require('../helpers/temp-files')

const idle = (args) => spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)', ...args], { stdio: 'ignore' })

test('a process of this tool is one running its scripts: not a node of a cluster it started, whose name merely ' +
  'contains "crate-bench"', async (t) => {
  if (!fs.existsSync('/proc')) return t.skip('no /proc: a live pid is all that can be known')
  const study = idle(['/opt/tool/bin/crate-bench.js', 'study'])
  const run = idle(['appClusterIngest.js', '--duration', '1m'])
  const node = idle(['-Ccluster.name=crate-bench-1a2b3c', '-Cpath.data=/tmp/crate-bench-cluster-x/node1/data'])
  t.after(() => [study, run, node].forEach((p) => p.kill('SIGKILL')))
  await new Promise((resolve) => setTimeout(resolve, 200))
  assert.equal(toolProcessRuns(study.pid), true)
  assert.equal(toolProcessRuns(run.pid), true)
  assert.equal(toolProcessRuns(node.pid), false, 'a CrateDB node the tool started holds no lock')
  const info = processInfo(study.pid)
  assert.deepEqual([info.startTime, info.uid, info.cwd], [processStartTime(study.pid), process.getuid(),
    fs.realpathSync(process.cwd())])
  assert.ok(info.args.includes('/opt/tool/bin/crate-bench.js'))
})

test('a process has ended when gone, its pid another\'s, or a zombie; not while it runs on without its command line',
  (t) => {
    const procRoot = tempDir(t)
    fs.mkdirSync(path.join(procRoot, String(process.pid)))
    // /proc/PID/stat: state is the field after the name (which may hold spaces and parentheses), starttime the 22nd.
    const stat = (state, start) => fs.writeFileSync(path.join(procRoot, String(process.pid), 'stat'),
      `${process.pid} (node (x) y) ${state} ${Array.from({ length: 18 }, (_, i) => i + 1).join(' ')} ${start} 0\n`)
    stat('R', '4242')
    assert.equal(processEnded(process.pid, '4242', { procRoot }), false, 'running')
    stat('D', '4242')
    assert.equal(processEnded(process.pid, '4242', { procRoot }), false, 'on its way out')
    stat('Z', '4242')
    const threads = (n) => fs.writeFileSync(path.join(procRoot, String(process.pid), 'status'),
      `Name:\tnode\nState:\tZ (zombie)\nThreads:\t${n}\nVmPeak:\t12 kB\n`)
    threads(12)
    assert.equal(processEnded(process.pid, '4242', { procRoot }), false, 'a zombie first thread, the others exiting')
    threads(1)
    assert.equal(processEnded(process.pid, '4242', { procRoot }), true, 'a zombie alone: its files closed')
    stat('R', '4343')
    assert.equal(processEnded(process.pid, '4242', { procRoot }), true, 'its pid another process\'s')
    fs.rmSync(path.join(procRoot, String(process.pid)), { recursive: true })
    assert.equal(processEnded(process.pid, '4242', { procRoot }), true, 'gone from /proc')
    assert.equal(processEnded(process.pid, '4242', { procRoot: path.join(procRoot, 'none') }), false,
      'no /proc: running is all that can be known')
    assert.equal(processEnded(2 ** 22 + 1, '4242', { procRoot }), true, 'no such process')
  })
