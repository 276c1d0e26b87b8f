'use strict'

// Issue 57 (item 11): a run says which .env it read, or that it found none.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { loadEnvFile, envFileLine } = require('../../lib/cli/env-file')
const { tempDir } = require('../helpers/temp-files')

test('the .env read is named with the settings it gave; none found is said, with the file looked for', (t) => {
  const dir = tempDir(t)
  const file = path.join(dir, '.env')
  loadEnvFile({ CRATE_BENCH_ENV_FILE: file })
  assert.equal(envFileLine(), `  .env:     none (${file}): the connection is the flags', the environment's ` +
    'CRATE_*, else the defaults')
  fs.writeFileSync(file, 'CRATE_HOST=db1\nCRATE_PORT=4202\nCRATE_USER=bench\n')
  const env = { CRATE_BENCH_ENV_FILE: file, CRATE_USER: 'crate' }
  loadEnvFile(env)
  assert.equal(envFileLine(), `  .env:     ${file} (CRATE_HOST, CRATE_PORT)`, 'CRATE_USER was set already')
  assert.deepEqual([env.CRATE_HOST, env.CRATE_USER], ['db1', 'crate'])
})
