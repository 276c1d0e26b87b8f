'use strict'

const test = require('node:test')
const { withCrateTestDouble } = require('./crate-test-double')

// The protocols a load can go over (--protocol): every e2e test of a load that does not depend on one runs over both.
const PROTOCOLS = ['http', 'pg']

/**
 * `name` as one test per protocol, each against a fresh double (withCrateTestDouble) whose env() points the tool at
 * that protocol: fn(double, t), with double.protocol saying which. A script that keeps state of its own (a count of
 * the bulks it saw) is given as a function that makes it, so that each protocol's run starts from a fresh one.
 */
function testOverProtocols (name, script, fn, { protocols = PROTOCOLS } = {}) {
  for (const protocol of protocols) {
    test(`${name} [${protocol}]`, (t) => withCrateTestDouble(typeof script === 'function' ? script() : script,
      (double) => fn(double, t), { protocol }))
  }
}

module.exports = { PROTOCOLS, testOverProtocols }
