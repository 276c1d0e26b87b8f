'use strict'

const { describe, it } = require('node:test')
const path = require('node:path')
const { RuleTester } = require('eslint')
const rule = require('../../eslint-rules/one-way-imports')

RuleTester.describe = describe
RuleTester.it = it

const lib = (file) => path.join(__dirname, '..', '..', 'lib', file)
const tester = new RuleTester({ languageOptions: { sourceType: 'commonjs' } })

tester.run('one-way-imports', rule, {
  valid: [
    { filename: lib('run/runner.js'), code: "require('../cli/options')" },
    { filename: lib('run/runner.js'), code: "require('./load-stage')" },
    { filename: lib('data/generators/cpu.js'), code: "require('../../base/random')" },
    { filename: lib('results/stats.js'), code: "require('node:fs'); require('hdr-histogram-js')" },
    { filename: lib('run/runner.js'), code: "require('../../package.json')" },
    { filename: path.join(__dirname, 'x.js'), code: "require('../../lib/sweep/sweep')" }
  ],
  invalid: [
    { filename: lib('base/format.js'), code: "require('../results/stats')", errors: [{ message: /higher layer/ }] },
    { filename: lib('data/generators/query-args.js'), code: "require('../../cli/options')", errors: 1 },
    { filename: lib('reports/command.js'), code: "require('../run/runner')", errors: 1 },
    { filename: lib('cluster/monitor.js'), code: "require('../workloads')", errors: [{ message: /lib\/workloads\// }] },
    { filename: lib('results/merge.js'), code: "require('../../test/helpers/ports')", errors: [{ message: /outside lib/ }] },
    { filename: lib('misc/x.js'), code: "require('./y')", errors: [{ message: /not a known layer/ }] }
  ]
})
