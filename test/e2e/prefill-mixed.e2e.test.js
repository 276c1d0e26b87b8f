'use strict'

// --ingest_prefill (issue 47): the table the queries read filled before the load, then the queries and the ingest
// beside them run on it; the prefilled rows counted apart from the ingest's.

const test = require('node:test')
const assert = require('node:assert/strict')
const { withCrateTestDouble } = require('../helpers/crate-test-double')
const { runTool } = require('../helpers/run-tool')
const { tempFile } = require('../helpers/temp-files')

test('--ingest_prefill: the table filled first, the queries and the ingest beside them on it', (t) =>
  withCrateTestDouble({ trackKeys: true,
    query: (stmt) => (/^SELECT count\(\*\) FROM doc\.cpu WHERE/.test(stmt) ? { cols: ['count'], rows: [[1]],
      rowcount: 1 }
      : null) }, async (double) => {
    const mix = tempFile(t, 'mix.yml',
      '- {name: hosts, query: "SELECT count(*) FROM doc.cpu WHERE tags[\'hostname\'] = ?", ratio: 1, args: ' +
        '[{hostname: {}}]}\n')
    const run = await runTool('appClusterAnalytical.js', ['--queries_config', mix, '--rate', '20', '--ingest_rate',
      '500',
      '--ingest_prefill', '20000', '--duration', '3s', '--processes', '1', '--monitor_interval', '0', '--json'],
    { env: double.env() })
    assert.equal(run.code, 0, run.stderr)
    assert.match(run.stderr, /^prefilling doc\.cpu with 20000 rows \(to 20000\) before the load/m)
    const ingest = run.json.ingest
    assert.equal(ingest.prefill.rows_ok, 20_000)
    assert.ok(ingest.rows_ok > 0 && ingest.rows_ok < 20_000, 'the ingest\'s own rows, apart from the prefill')
    assert.equal(double.keys.size, 20_000 + ingest.rows_ok, 'no row repeated')
    assert.ok(run.json.queries_ok > 0)
    const alone = await runTool('appClusterAnalytical.js', ['--queries_config', mix, '--ingest_prefill', '10'],
      { env: double.env() })
    assert.equal(alone.code, 2)
    assert.match(alone.stderr,
      /--ingest_prefill fills the table for the ingest beside the queries: it goes with --ingest_rate/)
  }))
