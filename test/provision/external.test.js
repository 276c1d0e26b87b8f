'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { recordTarget, nodesOf, onThisMachine, sqlAt, RECORD_SQL } = require('../../lib/provision/external')

/** A fetch that answers every statement with `body` (CrateDB's form), status `status`. */
const answering = (body, status = 200) => async (url, request) => {
  answering.last = JSON.parse(request.body)
  return { status, text: async () => JSON.stringify(body) }
}

test('what a target says of itself reaches the record and the terminal without its control characters', async () => {
  const target = { name: 'own', hosts: ['http://db-1:4200'], nodes: 1 }
  const rows = [['n1\u001b[2J', 'host\u001b]0;owned\u0007', '6.4.3\u009b1m', 'abc', 2, 1024]]
  const record = await recordTarget(target, { password: '', fetchImpl: answering({ cols: [], rows }) })
  assert.equal(answering.last.stmt, RECORD_SQL)
  assert.deepEqual(record.node_list[0], { name: 'n1\\u001b[2J', hostname: 'host\\u001b]0;owned\\u0007',
    version: '6.4.3\\u009b1m', build_hash: 'abc', cores: 2, heap_max_bytes: 1024 })
  assert.equal(record.on, 'hosts of their own (not this machine)')
  assert.deepEqual(await nodesOf(target, { password: '', fetchImpl: answering({ rows: [['a\u0007']] }) }), ['a\\u0007'])
  // An error the cluster writes is shown the same way.
  await assert.rejects(sqlAt('http://db-1:4200', 'SELECT 1', { fetchImpl: answering({ error: { message:
    'no\u001b[31m' } }, 401) }), /^Error: http:\/\/db-1:4200: HTTP 401: no\\u001b\[31m$/)
})

test('a target whose every host is an address of this machine is on it; one elsewhere is not', () => {
  const addresses = new Set(['localhost', '::1', '10.1.2.3'])
  assert.equal(onThisMachine(['http://127.0.0.1:4200', 'http://localhost:4201'], addresses), true)
  assert.equal(onThisMachine(['http://[::1]:4200', 'https://10.1.2.3:4200'], addresses), true)
  assert.equal(onThisMachine(['http://127.0.0.1:4200', 'http://10.0.0.5:4200'], addresses), false)
  assert.equal(onThisMachine(['https://db.example:4200'], addresses), false)
})
