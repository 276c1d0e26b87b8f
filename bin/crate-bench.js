#!/usr/bin/env node
'use strict'

// crate-bench <command>: one entry for the benchmarks, their sweeps, the fleet and the reports: a table of commands,
// each run in one frame (lib/cli/command-frame.js). appClusterIngest.js and appClusterAnalytical.js stay as the
// entries users of the old tool know.

require('../lib/cli/interrupts').holdSignals()
const { SWEEPS } = require('../lib/sweep/definitions')
const { runCommand, commandsUsage } = require('../lib/cli/command-frame')

const benchmark = (workload) => (argv) => require('../lib/run/runner').main(require(`../lib/workloads/${workload}`), {
  argv,
  name: `crate-bench ${workload === 'ingest' ? 'ingest' : 'query'}`
})

/** @type {Object<string, import('../lib/cli/command-frame').Command>} */
const COMMANDS = {
  ingest: {
    usage: 'ingest [options]',
    describe: 'the ingest benchmark (the same as node appClusterIngest.js)',
    interrupts: 'run',
    main: benchmark('ingest')
  },
  query: {
    usage: 'query [options]',
    describe: 'the analytical benchmark (the same as node appClusterAnalytical.js)',
    interrupts: 'run',
    main: benchmark('analytical')
  },
  report: {
    usage: 'report RESULT.json -o FILE',
    describe: 'an HTML report from a result saved with --json (or --results_table/--run_id)',
    interrupts: 'exit',
    main: (argv) => require('../lib/reports/command').main(argv)
  },
  compare: {
    usage: 'compare --base F... --new F...',
    describe: 'base runs against new runs: change, confidence, verdict',
    interrupts: 'exit',
    main: (argv) => require('../lib/reports/compare/command').main(argv)
  },
  sizing: {
    usage: 'sizing RESULT.json...',
    describe: 'a sizing reference across cluster shapes: peak, per node, per core, scaling efficiency',
    interrupts: 'exit',
    main: (argv) => require('../lib/reports/sizing/command').main(argv)
  },
  sweep: {
    usage: 'sweep <name> [options]',
    describe: `a sweep: ${Object.keys(SWEEPS).join(', ')}, capacity, grid (scripts/find-*.sh)`,
    interrupts: 'forward',
    main: sweep
  },
  study: {
    usage: 'study FILE.yml --out DIR',
    describe: 'a whole sizing study: each cluster shape started fresh, its grid, mixed and sustained runs, the sizing',
    interrupts: 'forward',
    main: (argv, { signals }) => require('../lib/study/command').main(argv, { signals })
  },
  cluster: {
    usage: 'cluster <start|status|stop|list|download>',
    describe: 'the CrateDB cluster under test, started on this machine from a version or a tarball, and stopped',
    interrupts: 'forward',
    main: (argv, { signals }) => require('../lib/provision/command').main(argv, { signals })
  },
  fleet: {
    usage: 'fleet --generators N <ingest|query> [options]',
    describe: 'N load generators as one run on this machine (fleet manifest: on Kubernetes)',
    interrupts: 'forward',
    main: (argv, { signals }) => require('../lib/launch/fleet-command').main(argv, { signals })
  }
}

const USAGE = `Usage: crate-bench <command> [options]

Commands:
${commandsUsage(COMMANDS)}

Examples:
  crate-bench ingest --processes 4 --duration 2m --report run.html
  crate-bench query --queries_config queries/cpu-dashboard.yml --json > run.json
  crate-bench report run.json -o run.html
  crate-bench sweep batch-size --values "1000 5000 10000" -- --duration 30s
  crate-bench sweep grid --vary batch_size=500,2000,5000 --vary concurrent_requests=2,8,32 -- --duration 1m
  crate-bench sizing small/grid large/grid
  crate-bench cluster start --nodes 3 --version 6.4.3 --heap 2g --dir /tmp/c3 > .env
  crate-bench fleet --generators 3 ingest --processes 2 --duration 5m --report fleet.html

Each command has --help. Exit codes: 0 ok, 1 failures, 2 bad input, 3 could not run, 4 partial run,
5 a --threshold missed.`

function sweep (argv, { signals }) {
  const [name, ...rest] = argv
  if (name === '--help' || name === '-h') {
    const names = Object.entries(SWEEPS).map(([key, s]) => `  ${key.padEnd(18)} scripts/${s.script}`)
    process.stdout.write([
      'Usage: crate-bench sweep <name> [options] [-- <benchmark options>]', '', 'Sweeps:', ...names,
      `  ${'capacity'.padEnd(18)} scripts/find-capacity.sh`,
      `  ${'grid'.padEnd(18)} scripts/find-grid.sh (two or more settings, every combination)`,
      '',
      "crate-bench sweep <name> --help lists each one's options.",
      ''
    ].join('\n'))
    return 0
  }
  if (name !== 'capacity' && name !== 'grid' && !SWEEPS[name]) {
    const error = new Error(`sweep needs one of ${Object.keys(SWEEPS).join(', ')}, capacity, grid ` +
      `(got '${name ?? ''}')`)
    throw Object.assign(error, { exitCode: 2 })
  }
  if (name === 'grid') return require('../lib/sweep/grid/command').main(rest, { signals })
  return name === 'capacity'
    ? require('../lib/sweep/capacity-command').main(rest, { signals })
    : require('../lib/sweep/sweep-command').main({ name, ...SWEEPS[name] }, rest, { signals })
}

function main (argv) {
  const [command, ...rest] = argv
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    require('../lib/cli/output').guardOutput({ name: 'crate-bench' })
    process.stdout.write(`${USAGE}\n`)
    return
  }
  if (command === '--version') {
    process.stdout.write(`${require('../package.json').version}\n`)
    return
  }
  if (!Object.hasOwn(COMMANDS, command)) {
    require('../lib/cli/output').guardOutput({ name: 'crate-bench' })
    process.stderr.write(`crate-bench: error: unknown command '${require('../lib/base/errors').errorLine(command)}' ` +
      '(see crate-bench --help)\n')
    process.exitCode = 2
    return
  }
  return runCommand(`crate-bench ${command}`, COMMANDS[command], rest)
}

main(process.argv.slice(2))
