'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')

// Issue 57 (item 4): a local fleet's processes are held to one run's cap.
test('a fleet on this machine of more worker processes than one run may have is refused in one line', async () => {
  const { main } = require('../../lib/launch/fleet-command')
  const { memoryStream } = require('../helpers/memory-stream')
  const stderr = memoryStream()
  const code = await main(['--generators', '1000', 'ingest', '--processes', '16', '--duration', '1s'],
    { stderr, stdout: memoryStream() })
  assert.equal(code, 2)
  assert.match(stderr.text, /--generators 1000 × 16 processes is 16000 worker processes on this machine: at most \d+/)
})
