'use strict'

// Start-up faults for the end-to-end tests, which must kill or fail a worker before it is ready
// without racing a fast machine. Read only from CRATE_BENCH_FAULT_WORKER_STARTUP, which users never
// set:  delay:<ms>  holds the start-up that long;  fail:<message>  makes it fail with that message.

const { sleep } = require('../base/clock')

async function startupFault (env) {
  const spec = env.CRATE_BENCH_FAULT_WORKER_STARTUP
  if (!spec) return
  const [kind, ...rest] = spec.split(':')
  const value = rest.join(':')
  if (kind === 'delay') await sleep(Number(value))
  else if (kind === 'fail') throw new Error(value || 'injected start-up failure')
}

module.exports = { startupFault }
