'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const ingest = require('../../lib/workloads/ingest')
const { parseOptions } = require('../../lib/cli/options')


test('the source sends exactly max_rows rows, the last batch smaller, fresh rows each time', () => {
  const options = parseOptions(ingest, ['--max_rows', '25', '--batch_size', '10', '--seed', '3', '--scale', '1000'], {})
  const source = ingest.createSource(options, { workerIndex: 0, workerCount: 1 })
  const batches = []
  let request
  while ((request = source.next()) !== null) {
    const body = JSON.parse(request.body.toString())
    assert.equal(body.bulk_args.length, request.units)
    assert.match(body.stmt, /^INSERT INTO "doc"."cpu" \("tags", "ts", "usage_user"/)
    batches.push(body.bulk_args)
    source.release(request)
  }
  assert.deepEqual(batches.map((b) => b.length), [10, 10, 5])
  const keys = new Set(batches.flat().map(([tags, ts]) => `${tags.hostname}|${ts}`))
  assert.equal(keys.size, 25)
})
