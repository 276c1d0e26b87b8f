'use strict'

// Every flag the benchmarks take is in the docs' flag tables: a new flag without a line, or a line for a flag that
// is gone, fails here.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { CONNECTION_OPTIONS, RUN_OPTIONS, CLUSTER_OPTIONS } = require('../../lib/cli/options')
const ingest = require('../../lib/workloads/ingest')
const analytical = require('../../lib/workloads/analytical')

const page = (name) => fs.readFileSync(path.join(__dirname, '..', '..', 'docs', name), 'utf8')
const tableFlags = (text) => new Set([...text.matchAll(/^\| `(--[a-z0-9_]+)`(?:, `(--[a-z0-9_]+)`)?/gm)]
  .flatMap((m) => m.slice(1).filter(Boolean)))

test('docs/ingest.md lists every flag of the ingest benchmark, and no other', () => {
  const documented = tableFlags(page('ingest.md'))
  const flags = Object.keys({ ...CONNECTION_OPTIONS, ...RUN_OPTIONS, ...CLUSTER_OPTIONS, ...ingest.options })
    .map((f) => `--${f}`)
  for (const flag of flags) assert.ok(documented.has(flag), `${flag} is missing from the flag table of docs/ingest.md`)
  for (const flag of documented) assert.ok(flags.includes(flag),
    `docs/ingest.md lists ${flag}, which the tool does not take`)
})

test('docs/queries.md names every flag of its own of the analytical benchmark', () => {
  const text = page('queries.md')
  for (const flag of Object.keys(analytical.options)) {
    assert.ok(text.includes(`--${flag}`), `--${flag} is not in docs/queries.md`)
  }
})
