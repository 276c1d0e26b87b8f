'use strict'

const { UsageError } = require('../base/errors')
const { flagsOf } = require('./grid/plan')

// The benchmark's options as a value: what a study's parts carry between them (the grid's args with a cell's
// settings, renamed for the ingest beside a query mix, a part's own added), read once from a list of options and
// written back as argv only where a benchmark run becomes a child process. Each option keeps its name, its value (null
// for a flag alone) and the words it was given as, so that a list read and written again is the list given.

class BenchmarkOptions {
  /** @param {{ name: string, value: string|null, text: string[] }[]} entries */
  constructor (entries = []) {
    this.entries = entries
  }

  /** `args` as given: `--name value`, `--name=value`, or a flag alone (the benchmark takes no positional words). */
  static parse (args) {
    const entries = []
    for (let i = 0; i < args.length; i++) {
      const m = /^--([a-z0-9_-]+)(?:=(.*))?$/s.exec(String(args[i]))
      if (!m) throw new UsageError(`'${args[i]}' is no option (options start with --)`)
      if (m[2] !== undefined) {
        entries.push({ name: m[1], value: m[2], text: [args[i]] })
      } else if (i + 1 < args.length && !String(args[i + 1]).startsWith('--')) {
        entries.push({ name: m[1], value: String(args[i + 1]), text: [args[i], String(args[i + 1])] })
        i++
      } else {
        entries.push({ name: m[1], value: null, text: [args[i]] })
      }
    }
    return new BenchmarkOptions(entries)
  }

  /** Settings as options: { batch_size: 5000 } → --batch_size 5000. */
  static of (settings) {
    return BenchmarkOptions.parse(flagsOf(settings || {}))
  }

  get names () {
    return this.entries.map((e) => e.name)
  }

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

  /** The argv of a benchmark run: what a child process is given. */
  toArgv () {
    return this.entries.flatMap((e) => e.text)
  }
}

module.exports = { BenchmarkOptions }
