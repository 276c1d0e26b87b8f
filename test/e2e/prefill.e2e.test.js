'use strict'

// --prefill (issue 47): a table of realistic size before the measured load. Its rows are written at full speed,
// acknowledged row by row, reported apart and never in the run's figures; the run's rows come after them in time
// (no key repeated), the table's count is reconciled with both; a table that holds the rows already is not filled.

const test = require('node:test')
const assert = require('node:assert/strict')
const { withCrateTestDouble } = require('../helpers/crate-test-double')
const { runTool } = require('../helpers/run-tool')

const ingest = (args, options) => runTool('appClusterIngest.js', args, options)

test('--prefill: the table filled first, counted apart; the run on it exact; a second run fills nothing', () =>
  withCrateTestDouble({ trackKeys: true }, async (double) => {
    const common = ['--processes', '1', '--batch_size', '1000', '--scale', '100', '--monitor_interval', '0', '--json']
    const run = await ingest([...common, '--prefill', '30000', '--max_rows', '5000'], { env: double.env() })
    assert.equal(run.code, 0, run.stderr)
    const m = run.json
    assert.deepEqual([m.prefill.rows, m.prefill.rows_ok, m.prefill.rows_failed, m.prefill.rows_in_doubt],
      [30_000, 30_000, 0, 0])
    assert.equal(m.rows_ok, 5000, 'the run\'s figures are the run\'s rows alone')
    assert.equal(m.rows_sent, 5000)
    assert.equal(double.keys.size, 35_000, 'no run row repeats a prefilled one')
    assert.equal(m.table_count, 35_000)
    assert.equal(m.reconciliation.verdict, 'exact', JSON.stringify(m.reconciliation))
    assert.equal(m.table_storage.start.docs, 30_000, 'the load started on the filled table')
    assert.match(run.stderr,
      /^prefilling doc\.cpu with 30000 rows \(to 30000\) before the load; not counted in its figures$/m)
    assert.match(run.stderr, /^prefilled doc\.cpu: 30000 rows in [\d.]+ s$/m)

    const again = await ingest([...common, '--prefill', '30000', '--max_rows', '1000', '--no-drop_table'],
      { env: double.env() })
    assert.equal(again.code, 0, again.stderr)
    assert.match(again.stderr, /--prefill 30000: doc\.cpu holds 35000 rows already; nothing to fill/)
    assert.equal(double.keys.size, 36_000)
  }))

test('--prefill refuses what it cannot do: not a whole number, a model whose rows it cannot place', async () => {
  for (const [args, message] of [
    [['--prefill', '1e6'], /--prefill must be a whole number of rows \(got '1e6'\)/],
    [['--prefill', '-5'], /--prefill must be a whole number of rows/],
    [['--prefill', '1000', '--model', 'kv'], /--prefill takes the models cpu and loadtest: --model kv/],
    [['--prefill', '1000', '--model', 'devops'], /--prefill takes the models cpu and loadtest: --model devops/]
  ]) {
    const run = await ingest(args, { env: { CRATE_HOST: '127.0.0.1', CRATE_PORT: '1' } })
    assert.equal(run.code, 2, args.join(' '))
    assert.match(run.stderr, message)
    assert.equal(run.stderr.trim().split('\n').length, 1)
  }
})

// Issue 57 (item 2): a prefill stops at the first interruption like the load, and a prefill past any table is refused.
test('Ctrl-C during the prefill stops it at once: its rows so far reported, exit 4; a prefill past the cap is one ' +
  'line', () => withCrateTestDouble({ fault: ({ bulk }) => (bulk ? { delayMs: 100 } : undefined) }, async (double) => {
  const run = await ingest(['--processes', '1', '--batch_size', '1000', '--prefill', '100000000', '--max_rows', '1000',
    '--monitor_interval', '0', '--json'], { env: double.env(), waitFor: /^prefilling doc\.cpu/m,
    whileRunning: (child) => setTimeout(() => child.kill('SIGINT'), 700), timeoutMs: 30_000 })
  assert.equal(run.code, 4, run.stderr)
  assert.match(run.stderr, /^the prefill was stopped: \d+ of its 100000000 rows never sent$/m)
  assert.ok(run.json.prefill.rows_ok > 0 && run.json.prefill.rows_ok < 100_000, JSON.stringify(run.json.prefill))
  assert.equal(run.json.prefill.stopped, true)
  const huge = await ingest(['--prefill', '1000000000000000', '--max_rows', '1'], { env: double.env() })
  assert.equal(huge.code, 2)
  assert.match(huge.stderr, /--prefill 1000000000000000 is more than the 10,000,000,000 rows a prefill may write/)
}))
