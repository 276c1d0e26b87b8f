'use strict'

// A run of two minutes on the real master (NODE_OPTIONS=--expose-gc: the master's samples follow a full GC), against
// the test double: its heap in the last minute is where it was in the one before (the first minute is its start-up),
// the master's minutes are in the timeline, and the run's drift compares its first and last 12 seconds, with the
// table's size and segments at the start and the end.

const test = require('node:test')
const assert = require('node:assert/strict')
const { withCrateTestDouble } = require('../helpers/crate-test-double')
const { runTool } = require('../helpers/run-tool')
const { joined } = require('../helpers/patterns')

test('a 125 s ingest: the master\'s heap flat, its minutes in the timeline, the drift of the run', async () => {
  await withCrateTestDouble({}, async (double) => {
    const run = await runTool('appClusterIngest.js', ['--duration', '125s', '--rate', '2000', '--batch_size', '100',
      '--processes', '1', '--concurrent_requests', '2', '--shards', '4', '--json'],
    { env: { ...double.env(), NODE_OPTIONS: '--expose-gc' }, timeoutMs: 200_000 })
    assert.equal(run.code, 0, run.stderr)
    const { drift, client, timeline } = run.json
    console.log(`# the master's minutes: ${JSON.stringify(timeline.client)}`)
    assert.ok(client.master_memory.minutes >= 3, JSON.stringify(client.master_memory))
    const [, second, third] = timeline.client
    assert.ok(third.heap_mb - second.heap_mb < 1, `the master's heap by minute: ${JSON.stringify(timeline.client)}`)
    assert.ok(timeline.client.every((m) => m.heap_mb > 0 && m.cpu_pct !== null))
    assert.equal(drift.first_window_s[0], 0)
    assert.ok(Math.abs(drift.first_window_s[1] - 12.5) < 0.2, JSON.stringify(drift.first_window_s))
    assert.ok(Math.abs(drift.last_window_s[1] - 125) < 1.5, JSON.stringify(drift.last_window_s))
    for (const w of [drift.first, drift.last]) {
      assert.ok(Math.abs(w.per_sec - 2000) < 200, `${w.per_sec} rows/s in a window of a 2,000 rows/s run`)
      assert.ok(w.p99_ms > 0, 'the window\'s latency, from its intervals\' histograms')
    }
    assert.ok(Math.abs(drift.throughput_change_pct) < 10)
    // The double writes a segment per shard at each refresh that shows new rows; a row is 100 bytes on its disk.
    assert.deepEqual(drift.table.start, { shards: 4, size_bytes: 0, docs: 0, segments: 0 })
    assert.deepEqual(drift.table.end, { shards: 4, size_bytes: run.json.rows_ok * 100, docs: run.json.rows_ok,
      segments: 4 })
    // A --rate run's throughput is judged against its target: the share of it each window held.
    assert.equal(drift.throughput_judged, 'achieved share of the target')
    assert.match(run.stderr,
      joined(
        /^over the run: throughput [+\u2212\u00b1][\d.]+% against its target \(first 10%: /,
        /[\d,]+ rows\/s, [\d.]+% of 2,000; last 10%: [\d,]+, [\d.]+% of 2,000\)/m))
    assert.match(run.stderr, /^ {2}table: 0 MB, 0 segments at the start; [\d.]+ MB, 4 segments at the end$/m)
  })
})
