'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const { spawn } = require('node:child_process')
const { toolProcessRuns, processStartTime, processInfo } = require('../../lib/base/processes')

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
