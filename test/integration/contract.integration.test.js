'use strict'

// The test double is held to CrateDB: the captured exchanges the double answers exactly
// (test/helpers/crate-test-double.test.js) are replayed against a real node (CRATE_TEST_URL), in their order, on
// tables of this test's own (doc.fixture_* renamed), and every field the tool relies on must match the capture: a
// difference names the capture and the field, and then the capture, and the double held to it, is what is wrong
// (`npm run fixtures:record` records them again from the node).

const test = require('node:test')
const assert = require('node:assert/strict')
const { SKIP, clusterEnv } = require('../helpers/real-cluster')
const { REPLAYED_IN_ORDER, replay, contractOf, differences, fixture } = require('../helpers/contract')

if (SKIP) console.log(`# ${SKIP}`)

test('the captured HTTP exchanges answer on a real CrateDB as the double answers them: status, columns, codes, rows',
  { skip: SKIP }, async () => {
    const env = clusterEnv()
    const base = `${env.CRATE_SSL === 'true' ? 'https' : 'http'}://${env.CRATE_HOST}:${env.CRATE_PORT}`
    const headers = env.CRATE_PASSWORD || env.CRATE_USER !== 'crate'
      ? { authorization: `Basic ${Buffer.from(`${env.CRATE_USER}:${env.CRATE_PASSWORD}`).toString('base64')}` } : {}
    const own = `fixture_${process.pid}_`
    const rename = (text) => text.replaceAll('fixture_', own)
    const found = []
    try {
      for (const name of REPLAYED_IN_ORDER) {
        const capture = fixture(name)
        const got = await replay(base, capture, { rename, headers })
        for (const difference of differences(contractOf(capture.response), contractOf(got), name)) {
          found.push(`${name}: ${difference}`)
        }
      }
    } finally {
      for (const table of ['cpu', 'range']) {
        await fetch(`${base}/_sql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ stmt: `DROP TABLE IF EXISTS doc.${own}${table}` }) }).catch(() => {})
      }
    }
    assert.deepEqual(found, [], `the real node differs from the captures (the double is held to them):\n${found.join('\n')}`)
  })
