'use strict'

const test = require('node:test')
const { describe, it } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { RuleTester } = require('eslint')
const rule = require('../../eslint-rules/one-way-imports')

RuleTester.describe = describe
RuleTester.it = it

const LIB = path.join(__dirname, '..', '..', 'lib')
const lib = (file) => path.join(LIB, file)
const tester = new RuleTester({ languageOptions: { sourceType: 'commonjs' } })

tester.run('one-way-imports', rule, {
  valid: [
    { filename: lib('run/runner.js'), code: "require('../cli/options')" },
    { filename: lib('run/runner.js'), code: "require('./load-stage')" },
    { filename: lib('data/generators/cpu.js'), code: "require('../../base/random')" },
    { filename: lib('results/stats.js'), code: "require('node:fs'); require('hdr-histogram-js')" },
    { filename: lib('run/runner.js'), code: "require('../../package.json')" },
    { filename: lib('results/stored-runs.js'), code: "require('../fleet/coordinator')" },
    { filename: path.join(__dirname, 'x.js'), code: "require('../../lib/sweep/sweep')" }
  ],
  invalid: [
    { filename: lib('base/format.js'), code: "require('../results/stats')",
      errors: [{ message: /it may require nothing of ours/ }] },
    { filename: lib('data/generators/query-args.js'), code: "require('../../cli/options')", errors: 1 },
    { filename: lib('reports/command.js'), code: "require('../run/runner')", errors: 1 },
    { filename: lib('cluster/monitor.js'), code: "require('../workloads')",
      errors: [{ message: /lib\/cluster\/ must not require lib\/workloads\/ .*it may require base/ }] },
    // Not a layer below it, but no edge of the graph either: sweep runs benchmarks as processes.
    { filename: lib('sweep/sweep.js'), code: "require('../run/runner')", errors: 1 },
    { filename: lib('results/merge.js'), code: "require('../../test/helpers/ports')",
      errors: [{ message: /outside lib/ }] },
    { filename: lib('misc/x.js'), code: "require('./y')", errors: [{ message: /not a known folder/ }] }
  ]
})

/** Every folder's requires of other folders, from the code. */
function importsInCode () {
  const edges = {}
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(file)
      else if (file.endsWith('.js')) {
        const own = path.relative(LIB, file).split(path.sep)[0]
        edges[own] = edges[own] || new Set()
        for (const [, spec] of fs.readFileSync(file, 'utf8').matchAll(/require\('(\.[^']+)'\)/g)) {
          const target = path.relative(LIB, path.resolve(path.dirname(file), spec)).split(path.sep)
          // '../workloads' is a folder (its index.js), as much as '../workloads/ingest'.
          const isFolder = target.length > 1 || !/\.js(on)?$/.test(target[0])
          if (target[0] !== '..' && isFolder && target[0] !== own) edges[own].add(target[0])
        }
      }
    }
  }
  walk(LIB)
  return Object.fromEntries(Object.entries(edges).map(([k, v]) => [k, [...v].sort()]))
}

test('the allowed imports are the real graph: every folder named, every edge used, no cycle', () => {
  const folders = fs.readdirSync(LIB, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort()
  assert.deepEqual(Object.keys(rule.ALLOWED).sort(), folders)
  const sorted = (map) => Object.fromEntries(Object.entries(map).map(([k, v]) => [k, [...v].sort()]))
  assert.deepEqual(importsInCode(), sorted(rule.ALLOWED), 'an edge allowed but not used is a wish, not the graph')
  const visiting = new Set()
  const done = new Set()
  const visit = (folder, trail) => {
    assert.ok(!visiting.has(folder), `a cycle: ${[...trail, folder].join(' -> ')}`)
    if (done.has(folder)) return
    visiting.add(folder)
    for (const next of rule.ALLOWED[folder]) visit(next, [...trail, folder])
    visiting.delete(folder)
    done.add(folder)
  }
  for (const folder of folders) visit(folder, [])
})

test('each folder\'s README says what it may import, exactly as the rule allows', () => {
  for (const [folder, allowed] of Object.entries(rule.ALLOWED)) {
    const text = fs.readFileSync(path.join(LIB, folder, 'README.md'), 'utf8')
    const line = /^May import: (.*)$/m.exec(text)
    assert.ok(line, `lib/${folder}/README.md has a "May import:" line`)
    const said = line[1] === 'nothing of ours.' ? [] : [...line[1].matchAll(/`([a-z]+)`/g)].map((m) => m[1])
    assert.deepEqual(said, allowed, `lib/${folder}/README.md`)
  }
})
