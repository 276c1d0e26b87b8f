'use strict'

const { UsageError } = require('../base/errors')
const { parseDuration, formatMs } = require('../base/values')

// The benchmark's options as a value: what a sweep, a grid, a capacity search and a study's parts carry between them
// (the grid's args with a cell's settings, renamed for the ingest beside a query mix, a part's own added), read once
// from a list of options and written back as argv only where a benchmark run becomes a child process. Each option
// keeps its name, its value (null for a flag alone) and the words it was given as, so that a list read and written
// again is the list given. Every question a part asks of the options (is a flag given, which protocol, which
// connection, which warm-up, the cluster to start) is a method here: a renamed flag changes this file, not its
// readers.

// The flags of a cluster the tool starts (--start_cluster and its own): split out of a benchmark's options.
const CLUSTER_FLAGS = ['start_cluster', 'crate_version', 'crate_tarball', 'crate_sha256', 'crate_heap', 'crate_setting',
  'crate_http_port', 'crate_run_as']
const REPEATABLE = new Set(['crate_setting'])
// What points a run at a cluster: beside a cluster the tool starts, only the tool names it (its hosts, ports and user).
const CONNECTION = /^(host|port|pg_port|user|password|ssl|no-ssl|insecure|start_cluster|crate_[a-z_]+)$/

// A run of a --duration warms up for a tenth of it, at least 5 s, unless its options give --warmup.
const WARMUP_SHARE = 0.1
const MIN_WARMUP_MS = 5000
// A comparison's runs warm up until their rate is steady, at most two minutes (lib/sweep/benchmark-run.js says why).
const STEADY_WARMUP = 'steady:2m'

class BenchmarkOptions {
  /** @param {{ name: string, value: string|null, text: string[] }[]} entries */
  constructor (entries = []) {
    this.entries = entries
  }

  /** `args` as given: `--name value`, `--name=value`, or a flag alone (the benchmark takes no positional words). */
  static parse (args) {
    if (args instanceof BenchmarkOptions) return args
    return BenchmarkOptions.read(args, { strict: true })
  }

  /**
   * A command line as the user typed it (the front door: a run's argv, a fleet's shared flags): a word that is no
   * option (-h, a stray word) is kept as it stands, for the option parser to judge.
   */
  static fromCommandLine (argv) {
    return BenchmarkOptions.read(argv, { strict: false })
  }

  static read (args, { strict }) {
    const entries = []
    for (let i = 0; i < args.length; i++) {
      const m = /^--([a-z0-9_-]+)(?:=(.*))?$/s.exec(String(args[i]))
      if (!m && !strict) {
        entries.push({ name: null, value: String(args[i]), text: [String(args[i])] })
        continue
      }
      if (!m) throw new UsageError(`'${args[i]}' is no option (options start with --)`)
      if (m[2] !== undefined) {
        entries.push({ name: m[1], value: m[2], text: [String(args[i])] })
      } else if (i + 1 < args.length && !String(args[i + 1]).startsWith('--')) {
        entries.push({ name: m[1], value: String(args[i + 1]), text: [String(args[i]), String(args[i + 1])] })
        i++
      } else {
        entries.push({ name: m[1], value: null, text: [String(args[i])] })
      }
    }
    return new BenchmarkOptions(entries)
  }

  /** Settings as options: { batch_size: 5000 } → --batch_size 5000. */
  static of (settings) {
    return new BenchmarkOptions(Object.entries(settings || {}).map(([name, value]) => ({ name, value: String(value),
      text: [`--${name}`, String(value)] })))
  }

  get names () {
    return this.entries.filter((e) => e.name !== null).map((e) => e.name)
  }

  /** Whether the options give `--name` (as `--name value`, `--name=value` or alone). */
  has (name) {
    return this.entries.some((e) => e.name === name)
  }

  get (name) {
    const found = this.entries.find((e) => e.name === name)
    return found ? found.value : undefined
  }

  /** These options with `other`'s after them, `other` winning where both give one. */
  with (other) {
    const given = new Set(other.names)
    return new BenchmarkOptions([...this.entries.filter((e) => !given.has(e.name)), ...other.entries])
  }

  /** These options and `other`'s after them, as given (an option of both is given twice). */
  plus (other) {
    return new BenchmarkOptions([...this.entries, ...BenchmarkOptions.parse(other).entries])
  }

  /** These options without those `other` gives. */
  without (other) {
    const given = new Set(other.names)
    return new BenchmarkOptions(this.entries.filter((e) => !given.has(e.name)))
  }

  /** Only the options `keep(name)` names, each under the name it returns (null or undefined: left out). */
  mapped (keep) {
    return new BenchmarkOptions(this.entries.flatMap((e) => {
      const name = keep(e.name)
      if (!name) return []
      if (name === e.name) return [e]
      return [{ name, value: e.value, text: [`--${name}`, ...(e.value === null ? [] : [e.value])] }]
    }))
  }

  /** The first option that points a run at a cluster (--host, --pg_port, --start_cluster …), as `--name`, or null. */
  connectionFlag () {
    const found = this.entries.find((e) => CONNECTION.test(e.name))
    return found ? `--${found.name}` : null
  }

  /** The protocol the runs take: --protocol, else CRATE_PROTOCOL, else http. */
  protocol (env = process.env) {
    return this.get('protocol') ?? (env.CRATE_PROTOCOL || 'http')
  }

  /**
   * These options without the flags of a cluster to start, and those flags' values: { rest, given } (given: flag →
   * its values). A flag given twice that is not repeatable, or without its value, is one line.
   */
  splitCluster () {
    const given = {}
    for (const e of this.entries.filter((x) => CLUSTER_FLAGS.includes(x.name))) {
      if (e.value === null) throw new UsageError(`--${e.name} needs a value`)
      if (given[e.name] && !REPEATABLE.has(e.name)) throw new UsageError(`--${e.name} was given twice: give it once`)
      ;(given[e.name] ||= []).push(e.value)
    }
    return { rest: new BenchmarkOptions(this.entries.filter((e) => !CLUSTER_FLAGS.includes(e.name))), given }
  }

  /**
   * The options that point a run with these options at a started cluster's nodes (`ports`: each node's { http, pg }):
   * every node's HTTP address, the user crate, and the protocol said outright (no .env's CRATE_PROTOCOL or
   * CRATE_PG_PORT can send the load elsewhere), over PostgreSQL each node's own port.
   */
  connectionTo (ports, env = process.env) {
    const protocol = this.protocol(env)
    return BenchmarkOptions.parse(['--host', ports.map((p) => `http://127.0.0.1:${p.http}`).join(','), '--user',
      'crate', ...(this.has('protocol') ? [] : ['--protocol', protocol]), ...(protocol === 'pg' ? ['--pg_port',
        ports.map((p) => p.pg).join(',')] : [])])
  }

  /** With a study's default warm-up: a run of a --duration that gives no --warmup warms up a tenth of it, ≥ 5 s. */
  withDefaultWarmup () {
    if (this.has('warmup') || !this.has('duration')) return this
    let durationMs = null
    try {
      durationMs = parseDuration(this.get('duration'), 'duration')
    } catch {
      // The benchmark names a bad --duration itself (checkBenchmarkOptions).
    }
    const warmupMs = Math.max(MIN_WARMUP_MS, Math.round((durationMs ?? 0) * WARMUP_SHARE))
    return this.plus(['--warmup', formatMs(warmupMs)])
  }

  /** With a comparison's default warm-up: `--warmup steady:2m` for a closed run of a --duration that gives none. */
  withSteadyWarmup () {
    if (!this.has('duration') || ['warmup', 'rate', 'stages'].some((name) => this.has(name))) return this
    return this.plus(['--warmup', STEADY_WARMUP])
  }

  /** The argv of a benchmark run: what a child process is given. */
  toArgv () {
    return this.entries.flatMap((e) => e.text)
  }
}

module.exports = { BenchmarkOptions }
