'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { renderReport } = require('../../lib/reports/text')

const workload = { unit: 'rows', name: 'ingest', detailTable: null }

function resultWith (errors) {
  return {
    partial: false,
    partial_reasons: [],
    seconds: 1,
    sending_seconds: 1,
    drain_seconds: 0,
    rows_sent: 10,
    rows_ok: 0,
    rows_failed: 10,
    rows_in_doubt: 0,
    rows_per_sec: 0,
    requests: 1,
    requests_failed: 0,
    latency_ms: {},
    server_ms: {},
    errors,
    workers: [],
    events: [],
    rate: null,
    warmup: null,
    cluster: null,
    client: { cpu_seconds: 0, cpu_us_per_row: 0, max_rss_mb_per_process: 0, workers: [], saturated: false }
  }
}

test('the failures table shows the 20 largest groups and one line for the rest; server text is made visible', () => {
  const errors = Array.from({ length: 8000 }, (_, i) => ({
    code: 5000, status: 200, in_doubt: false, message: 'm', sample: `bad \u001b[31mthing ${i}\nsecond line`, count: 8000 - i
  }))
  const text = renderReport(workload, resultWith(errors))
  assert.ok(!text.includes('\u001b'), 'no raw escape character')
  assert.match(text, /bad \\u001b\[31mthing 0\\nsecond line/)
  assert.ok(!text.includes('thing 20\\n'), 'the 21st group is not a row of its own')
  const restCount = errors.slice(20).reduce((sum, e) => sum + e.count, 0)
  assert.match(text, new RegExp(`${restCount.toLocaleString('en-US')} .*… 7,980 more groups \\(all in --json\\)`))
})
