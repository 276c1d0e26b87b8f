#!/usr/bin/env node
'use strict'

// crate-bench <command>: one entry for the benchmarks, their sweeps and the HTML report of a
// saved result. appClusterIngest.js and appClusterAnalytical.js stay as the entries users of the
// old tool know.

require('../lib/cli/interrupts').holdSignals()
const { SWEEPS } = require('../lib/sweep/definitions')

const USAGE = `Usage: crate-bench <command> [options]

Commands:
  ingest [options]             the ingest benchmark (the same as node appClusterIngest.js)
  query [options]              the analytical benchmark (the same as node appClusterAnalytical.js)
  report RESULT.json -o FILE   an HTML report from a result saved with --json (or --results_table/--run_id)
  compare --base F... --new F...  base runs against new runs: change, confidence, verdict
  sweep <name> [options]       a sweep: ${Object.keys(SWEEPS).join(', ')}, capacity (scripts/find-*.sh)
  fleet --generators N <ingest|query> [options]
                               N load generators as one run on this machine (fleet manifest: on Kubernetes)

Examples:
  crate-bench ingest --processes 4 --duration 2m --report run.html
  crate-bench query --queries_config queries/cpu-dashboard.yml --json > run.json
  crate-bench report run.json -o run.html
  crate-bench sweep batch-size --values "1000 5000 10000" -- --duration 30s
  crate-bench fleet --generators 3 ingest --processes 2 --duration 5m --report fleet.html

Each command has --help. Exit codes: 0 ok, 1 failures, 2 bad input, 3 could not run, 4 partial run,
5 a --threshold missed.`

function fail (message, code = 2) {
  process.stderr.write(`crate-bench: error: ${require('../lib/base/errors').errorLine(message)}\n`)
  process.exitCode = code
}

function exitWith (code) {
  process.exitCode = code
}

function main (argv) {
  const [command, ...rest] = argv
  if (command !== 'ingest' && command !== 'query') {
    require('../lib/cli/output').guardOutput({ name: `crate-bench${command ? ` ${command}` : ''}` })
  }
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  if (command === '--version') {
    process.stdout.write(`${require('../package.json').version}\n`)
    return
  }
  if (command === 'ingest' || command === 'query') {
    const workload = require(command === 'ingest' ? '../lib/workloads/ingest' : '../lib/workloads/analytical')
    return require('../lib/run/runner').main(workload, { argv: rest, name: `crate-bench ${command}` })
  }
  // Every command may read the connection from .env; its password is masked in anything printed.
  try {
    require('../lib/cli/env-file').loadEnvFile()
  } catch (error) {
    return fail(error.message, error.exitCode ?? 2)
  }
  if (command === 'report' || command === 'compare') {
    // Nothing to restore: an interruption ends the command at once, with the exit code of an interrupted run.
    const { Interrupts } = require('../lib/cli/interrupts')
    new Interrupts().install().on('interrupt', ({ signal }) => {
      process.stderr.write(`crate-bench ${command}: error: interrupted (${signal})\n`)
      process.exit(4)
    })
    const module = command === 'report' ? '../lib/reports/command' : '../lib/reports/compare/command'
    return require(module).main(rest).then(exitWith)
  }
  if (command === 'fleet') {
    const { Interrupts } = require('../lib/cli/interrupts')
    const signals = new Interrupts().install()
    return require('../lib/launch/fleet-command').main(rest, { signals }).then((code) => {
      signals.uninstall()
      exitWith(code)
    })
  }
  if (command === 'sweep') {
    const name = rest[0]
    if (name === '--help' || name === '-h') {
      const names = Object.entries(SWEEPS).map(([key, s]) => `  ${key.padEnd(18)} scripts/${s.script}`)
      process.stdout.write([
        'Usage: crate-bench sweep <name> [options] [-- <benchmark options>]', '', 'Sweeps:', ...names,
        `  ${'capacity'.padEnd(18)} scripts/find-capacity.sh`,
        '',
        "crate-bench sweep <name> --help lists each one's options.",
        ''
      ].join('\n'))
      return
    }
    if (name !== 'capacity' && !SWEEPS[name]) {
      return fail(`sweep needs one of ${Object.keys(SWEEPS).join(', ')}, capacity (got '${name ?? ''}')`)
    }
    const { Interrupts } = require('../lib/cli/interrupts')
    const signals = new Interrupts().install()
    const done = name === 'capacity'
      ? require('../lib/sweep/capacity-command').main(rest.slice(1), { signals })
      : require('../lib/sweep/sweep-command').main({ name, ...SWEEPS[name] }, rest.slice(1), { signals })
    return done.then((code) => {
      signals.uninstall()
      exitWith(code)
    })
  }
  fail(`unknown command '${command}' (see crate-bench --help)`)
}

main(process.argv.slice(2))
