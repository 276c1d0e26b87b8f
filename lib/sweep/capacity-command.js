'use strict'

// find-capacity (scripts/find-capacity.sh, crate-bench sweep capacity): the highest --rate the
// cluster serves within its SLO. Each step is one run of the benchmark as a child process with
// --json, exactly as a user would run it.

const { EXIT, errorText } = require('../base/errors')
const { commandParser } = require('../cli/command-args')
const { runBenchmark } = require('./benchmark-run')
const { capacityConfig, DEFAULTS, DEFAULT_START } = require('./capacity-config')
const { runCapacity } = require('./capacity-run')

// Options whose value may start with a minus: "--precision -5%" is a bad percentage to name, not an option "-5".
const SIGNED_VALUES = new Set(['--precision', '--start', '--max_failed', '--min_achieved_pct', '--max_steps',
  '--edge_repeat'])

/** "--precision -5%" as "--precision=-5%", so that the value is checked (and refused) as a value. */
function valuesThatLookLikeFlags (args) {
  const out = []
  for (let i = 0; i < args.length; i++) {
    if (SIGNED_VALUES.has(args[i]) && i + 1 < args.length && /^-[0-9.]/.test(args[i + 1])) {
      out.push(`${args[i]}=${args[++i]}`)
    } else out.push(args[i])
  }
  return out
}

function parseArgs (argv) {
  const dash = argv.indexOf('--')
  const own = valuesThatLookLikeFlags(dash >= 0 ? argv.slice(0, dash) : argv)
  const parser = commandParser(own, { benchmarkAfterDash: true })
    .scriptName('find-capacity.sh')
    .usage(
      'Usage: scripts/find-capacity.sh --slo p99=200ms [options] -- <benchmark options>\n\nThe highest --rate the ' +
      'cluster serves with p99 within the SLO, nothing failed, no thread-pool rejections and an unsaturated load ' +
      'generator: doubling from --start until a step misses, then bisecting to --precision. Each step runs the ' +
      'benchmark for --duration after --warmup.'
    )
    .options({
      slo: { type: 'string', demandOption: true, describe: 'the latency target: p99=200ms' },
      workload: {
        choices: ['ingest', 'query', 'mixed'],
        default: DEFAULTS.workload,
        describe: 'ingest (rows/s), query (queries/s of --queries_config), or mixed (the rows/s ingested beside ' +
          'the query mix at --query_rate while the queries meet the SLO)'
      },
      ingest_rate: {
        type: 'number',
        describe: 'with --workload query: rows/s ingested beside the queries, in every step'
      },
      query_rate: {
        type: 'number',
        describe: 'with --workload mixed: the queries/s of the mix in every step, the ingest beside it searched'
      },
      max_failed: { type: 'number', default: DEFAULTS.max_failed,
        describe: 'units failed or in doubt a step may have' },
      start: { type: 'number', describe: `the first rate (default: ${DEFAULT_START.ingest} rows/s, or ` +
        `${DEFAULT_START.query} queries/s)` },
      precision: {
        type: 'string',
        default: DEFAULTS.precision,
        describe: 'stop bisecting when the last pass and the first miss are this close'
      },
      duration: { type: 'string', default: DEFAULTS.duration, describe: "each step's measured time" },
      warmup: { type: 'string', default: DEFAULTS.warmup, describe: "each step's warm-up, kept out of its figures" },
      min_achieved_pct: { type: 'number', default: DEFAULTS.min_achieved_pct,
        describe: 'percent of the target rate a step must achieve' },
      max_steps: { type: 'number', default: DEFAULTS.max_steps, describe: 'steps at most' },
      edge_repeat: {
        type: 'number',
        default: DEFAULTS.edge_repeat,
        describe: 'runs of the last passing and the first missing rate once the search has found them: the ' +
          'capacity is a range only where every run agreed (1: no repeat)'
      },
      client_check: {
        type: 'boolean',
        default: DEFAULTS.client_check,
        describe: 'a saturated load generator fails a step (--no-client_check: one shared with other work, ' +
          'whose CPU and event-loop delay say nothing about the cluster)'
      },
      out: { type: 'string', describe: 'directory of the results (default: capacity-results/<time>)' }
    })
    .example('scripts/find-capacity.sh --slo p99=200ms -- --processes 4 --batch_size 1000', 'ingest capacity')
    .example(
      'scripts/find-capacity.sh --slo p99=250ms --workload query --ingest_rate 20000 -- --queries_config ' +
      'queries/cpu-dashboard.yml',
      'queries/s of a mix within 250 ms while ingesting 20,000 rows/s'
    )
    .epilogue(
      'Exit codes: 0 capacity found, 1 the start rate already misses or the edge\'s runs disagree (no capacity the ' +
      'runs carry), 2 bad input, 3 the benchmark could not run, 4 interrupted.'
    )
    .wrap(Math.min(120, process.stdout.columns || 100))
  if (own.includes('--help') || own.includes('-h')) {
    // Before parsing: the help must not wait for the required --slo.
    let help = ''
    parser.showHelp((text) => { help = text })
    return { help }
  }
  const args = parser.parseSync()
  return capacityConfig({ ...Object.fromEntries(Object.entries(args).filter(([key]) => /^[a-z_]+$/.test(key))),
    benchmark: dash >= 0 ? argv.slice(dash + 1) : [] })
}

/** Returns the exit code. `signals` emits 'interrupt' on Ctrl-C or SIGTERM (lib/cli/interrupts.js). */
async function main (argv, { stdout = process.stdout, stderr = process.stderr, signals, run = runBenchmark } = {}) {
  let config
  try {
    config = parseArgs(argv)
    if (config.help) {
      stdout.write(`${config.help}\n`)
      return EXIT.OK
    }
  } catch (error) {
    stderr.write(errorText('find-capacity.sh', error.message))
    return error.exitCode ?? EXIT.USAGE
  }
  return (await runCapacity(config, { stderr, signals, run })).code
}

module.exports = { main, parseArgs }
