'use strict'

// Issue 57 (item 10): npm run fixtures:record with a bad --out says so in one line before it replays anything.

const test = require('node:test')
const assert = require('node:assert/strict')
const { runTool } = require('../helpers/run-tool')
const { closedPort } = require('../helpers/ports')

test('fixtures:record --out without a folder, or with one that is not there: one line, exit 2, nothing replayed',
  async () => {
    // A node nobody listens on: a replay would fail on it, so an error about --out proves nothing was sent.
    const env = { CRATE_TEST_URL: `http://127.0.0.1:${await closedPort()}` }
    for (const [args, pattern] of [[['--out'], /^fixtures:record: error: --out needs a folder/],
      [['--out', '/no/such/folder'], /^fixtures:record: error: --out \/no\/such\/folder: no such folder\n$/]]) {
      const run = await runTool('scripts/record-fixtures.js', args, { env })
      assert.equal(run.code, 2, run.stderr)
      assert.match(run.stderr, pattern)
    }
  })
