'use strict'

// A node:test reporter of one line at the end: how many tests ran, passed, failed and were skipped, and how long it
// took; `npm run test:quick` prints it after its dots, so that a quick check says what it checked.

module.exports = async function * summary (source) {
  const started = Date.now()
  const counts = { passed: 0, failed: 0, skipped: 0, todo: 0 }
  const failures = []
  for await (const event of source) {
    // Top-level tests and subtests alike; suites are not tests of their own.
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue
    if (event.data.details && event.data.details.type === 'suite') continue
    if (event.data.skip) counts.skipped++
    else if (event.data.todo) counts.todo++
    else if (event.type === 'test:pass') counts.passed++
    else {
      counts.failed++
      failures.push(`${event.data.file || ''}: ${event.data.name}`)
    }
  }
  const total = counts.passed + counts.failed + counts.skipped + counts.todo
  const seconds = ((Date.now() - started) / 1000).toFixed(1)
  for (const failure of failures) yield `failed: ${failure}\n`
  const { passed, failed, skipped } = counts
  yield `\n${total} tests: ${passed} passed, ${failed} failed, ${skipped} skipped in ${seconds} s\n`
}
