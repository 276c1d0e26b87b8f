'use strict'

// Which test files npm test runs side by side and which one at a time: `node test/files.js side-by-side|one-at-a-time`
// prints them. Most files wait on child processes and timers far more than they compute, so three run at once on two
// cores. A few run alone, after them, each with its reason.

const fs = require('node:fs')
const path = require('node:path')

const ONE_AT_A_TIME = [
  // They share the real servers (CRATE_TEST_*): one stops a node of the cluster for a while, one needs the single node
  // quiet, and every one of them times a real server's answers.
  [/^test\/integration\//, 'the real CrateDB servers are shared'],
  // Its double serves a scripted number of bulks per wall-clock second: a loaded machine's bursts cross it.
  [/^test\/e2e\/capacity\.e2e\.test\.js$/, 'a capacity scripted per wall-clock second']
]

function testFiles (dir = 'test') {
  const out = []
  for (const entry of fs.readdirSync(path.join(__dirname, '..', dir), { withFileTypes: true })) {
    const file = `${dir}/${entry.name}`
    if (entry.isDirectory()) out.push(...testFiles(file))
    else if (entry.name.endsWith('.test.js')) out.push(file)
  }
  return out.sort()
}

const alone = (file) => ONE_AT_A_TIME.some(([pattern]) => pattern.test(file))

function filesOf (group) {
  if (group === 'side-by-side') return testFiles().filter((f) => !alone(f))
  if (group === 'one-at-a-time') return testFiles().filter(alone)
  throw new Error(`unknown group "${group}": side-by-side or one-at-a-time`)
}

if (require.main === module) {
  try {
    process.stdout.write(`${filesOf(process.argv[2]).join('\n')}\n`)
  } catch (error) {
    process.stderr.write(`test/files.js: ${error.message}\n`)
    process.exitCode = 2
  }
}

module.exports = { filesOf, ONE_AT_A_TIME }
