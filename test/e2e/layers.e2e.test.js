'use strict'

// docs/architecture.md: what starts a cluster is apart from what talks to one; a benchmark of a cluster it did not
// start never loads lib/provision/ (nor a study's or a sweep's modules). Asked of the process itself: every module it
// loaded, at its exit.

const test = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { withCrateTestDouble } = require('../helpers/crate-test-double')
const { tempFile } = require('../helpers/temp-files')
const { ROOT } = require('../helpers/run-tool')

test('a plain benchmark loads nothing of lib/provision/, lib/study/ or lib/sweep/', async (t) => {
  const preload = tempFile(t, 'modules.js', "process.on('exit', () => process.stderr.write('LOADED ' + " +
    "JSON.stringify(Object.keys(require.cache)) + '\\n'))\n")
  await withCrateTestDouble({}, async (double) => {
    for (const app of ['appClusterIngest.js', 'appClusterAnalytical.js']) {
      const args = app === 'appClusterIngest.js' ? ['--max_rows', '1000', '--processes', '1']
        : ['--queries_config', path.join(ROOT, 'queries', 'cpu-dashboard.yml'), '--max_queries', '10']
      const stderr = await new Promise((resolve) => {
        const child = spawn(process.execPath, ['-r', preload, path.join(ROOT, app), ...args],
          { env: { ...process.env, ...double.env() }, stdio: ['ignore', 'ignore', 'pipe'] })
        let text = ''
        child.stderr.on('data', (d) => { text += d })
        child.on('close', () => resolve(text))
      })
      const line = stderr.split('\n').find((l) => l.startsWith('LOADED '))
      assert.ok(line, stderr)
      const loaded = JSON.parse(line.slice(7)).map((f) => path.relative(ROOT, f))
      assert.ok(loaded.some((f) => f.startsWith('lib/run/')), 'the run itself was loaded')
      assert.deepEqual(loaded.filter((f) => /^lib\/(provision|study|sweep)\//.test(f)), [], app)
    }
  })
})
