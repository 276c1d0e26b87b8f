'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { CrateClient } = require('../../lib/cluster/http-client')
const { parseHosts } = require('../../lib/cluster/connection')
const { TRANSPORT_MEMBERS } = require('../../lib/cluster/transport')

test('CrateClient (HTTP) is a Transport: every member the interface names', () => {
  const client = new CrateClient({ hosts: parseHosts('127.0.0.1:1,127.0.0.1:2', 4200, false), user: 'crate',
    password: '' })
  try {
    const missing = TRANSPORT_MEMBERS.filter((m) => client[m] === undefined)
    assert.deepEqual(missing, [])
    assert.deepEqual(client.hosts.map((h) => h.base), ['http://127.0.0.1:1', 'http://127.0.0.1:2'])
    assert.equal(client.bulkEncoding, 'json')
    const data = new Set(['hosts', 'bulkEncoding'])
    for (const m of TRANSPORT_MEMBERS.filter((x) => !data.has(x))) assert.equal(typeof client[m], 'function', m)
  } finally {
    client.close()
  }
})
