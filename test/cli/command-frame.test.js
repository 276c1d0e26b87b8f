'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { runCommand, commandsUsage } = require('../../lib/cli/command-frame')
const { memoryStream } = require('../helpers/memory-stream')

test('a command runs in the frame: its exit code, or its error as one line with the error\'s code', async (t) => {
  t.after(() => { process.exitCode = 0 })
  const stderr = memoryStream()
  let given = null
  const ok = await runCommand('crate-bench x', {
    interrupts: 'forward',
    main: (argv, { signals }) => { given = { argv, signals }; return 5 }
  }, ['--a', '1'], { stderr })
  assert.equal(ok, 5)
  assert.deepEqual(given.argv, ['--a', '1'])
  assert.equal(typeof given.signals.on, 'function', 'a forwarding command gets the signal watcher')
  const failed = await runCommand('crate-bench x', {
    interrupts: 'forward',
    main: async () => { throw Object.assign(new Error('no such\nthing'), { exitCode: 3 }) }
  }, [], { stderr })
  assert.equal(failed, 3)
  assert.equal(process.exitCode, 3)
  assert.equal(stderr.text, 'crate-bench x: error: no such thing\n')
})

test('--help lists every command of the table with what it does', () => {
  const text = commandsUsage({
    a: { usage: 'a [options]', describe: 'does a' },
    b: { usage: 'b --with-a-very-long-argument-list X', describe: 'does b' }
  })
  assert.equal(text,
    `  a [options]                  does a\n  b --with-a-very-long-argument-list X\n${' '.repeat(31)}does b`)
})
