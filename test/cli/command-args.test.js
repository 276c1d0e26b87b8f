'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { commandParser, passedThrough } = require('../../lib/cli/command-args')
const { UsageError } = require('../../lib/base/errors')

const parse = (argv, options, settings) => commandParser(argv, settings).options(options).parseSync()

test('a strict parser keeps positionals and values as typed, and names an unknown option as the user wrote it', () => {
  const parsed = parse(['0123', '--port', '4200', '-o', 'x.html'], {
    port: { type: 'string' },
    out: { type: 'string', alias: 'o' }
  })
  assert.deepEqual(parsed._, ['0123'])
  assert.equal(parsed.port, '4200')
  assert.equal(parsed.out, 'x.html')
  assert.throws(() => parse(['--bogus'], {}), (e) => e instanceof UsageError &&
    e.message === 'unknown option --bogus (see --help)')
  assert.throws(() => parse(['-x'], {}), { message: 'unknown option -x (see --help)' })
  // yargs lists the negative value's characters first ('5, precision, %'): the option typed is the one named.
  assert.throws(() => parse(['--vary', 'a=1', '--precision', '-5%'], { vary: { type: 'string' } }),
    { message: 'unknown option --precision (see --help)' })
})

test('a flag without its value is one line naming the flag', () => {
  assert.throws(() => parse(['--run_id'], { run_id: { type: 'string', requiresArg: true } }),
    (e) => e instanceof UsageError && e.message === '--run_id needs a value')
})

test('--help and -h are read, never answered by yargs itself', () => {
  assert.equal(parse(['-h'], {}).help, true)
  assert.equal(parse(['--help'], {}).help, true)
  assert.equal(parse([], {}).help, undefined)
})

test('a pass-through parser takes its own flags and leaves the rest in order, as typed', () => {
  const parsed = parse(
    ['--generators', '3', 'ingest', '--batch_size', '1000', '--timeout', '-1s', '--no-progress', '--json', '--', '-x'],
    { generators: { type: 'string' }, json: { type: 'boolean' } }, { passThrough: true })
  assert.equal(parsed.generators, '3')
  assert.equal(parsed.json, true)
  assert.deepEqual(passedThrough(parsed),
    ['ingest', '--batch_size', '1000', '--timeout', '-1s', '--no-progress', '--', '-x'])
})

test('booleans not given stay unset, so that an environment default (CRATE_SSL) still applies', () => {
  const parsed = parse([], { ssl: { type: 'boolean' } })
  assert.equal(parsed.ssl, undefined)
})
