'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { EXIT, FatalError, errorText } = require('../../base/errors')
const { fmt } = require('../../base/format')
const { lastErrorOf, clusterLostBefore } = require('../runs-command')
const { BenchmarkOptions } = require('../../cli/benchmark-options')
const { timeLeftS, minutes } = require('../budget')
const { runFigures, settingsText } = require('./analysis')
const { otherCluster } = require('./folder')
const { APP_OF } = require('../benchmark-run')

const NAME = 'crate-bench sweep grid'

// One run of a grid's cell as a child process (its --json result read into the figures grid.json keeps), and the
// warm-up run before the first: what the schedulers (rounds, a race) ask of the machine, one run at a time. Each
// answers { figures } | { warmup } | { interrupted } | { code } (the run could not run: the grid's exit code).

class CellRun {
  constructor ({ config, header, stderr, signals, run, now, cells }) {
    Object.assign(this, { config, header, stderr, signals, run, now, cells })
    this.walls = []
    this.previous = null
    this.prefilling = config.fixed.has('prefill')
    this.runs = 0
  }

  /** The run, its exit judged: { code, signal, resultFile, logFile, wallS } or an outcome that ends the grid. */
  async launch (cell, name) {
    const resultFile = path.join(this.config.out, 'runs', `${name}.json`)
    const logFile = path.join(this.config.out, 'runs', `${name}.log`)
    const started = this.now()
    const { code, signal } = await this.run({ app: APP_OF[this.config.workload],
      args: this.config.fixed.plus(BenchmarkOptions.of(cell.settings)).plus(['--json']).toArgv(), resultFile, logFile,
      signals: this.signals })
    if (this.signals.interrupted) {
      // Ended as a run ends (its report is in the log), not as the grid would measure it: the resume runs it again.
      this.stderr.write(`interrupted: ${settingsText(cell.settings)} ended early (its report: ${logFile}); not ` +
        'counted, the same command resumes with it\n')
      return { interrupted: true }
    }
    if (signal || (code !== EXIT.OK && code !== EXIT.FAILURES && code !== EXIT.PARTIAL &&
      code !== EXIT.THRESHOLDS)) {
      const before = this.previous ? clusterLostBefore(this.previous.resultFile, settingsText(this.previous.settings))
        : ''
      this.stderr.write(errorText(NAME, `the benchmark could not run at ${settingsText(cell.settings)} (exit ` +
        `${code ?? signal}): ${lastErrorOf(logFile)}${before}`))
      return { code: code === EXIT.USAGE ? EXIT.USAGE : EXIT.CANNOT_RUN }
    }
    this.previous = { resultFile, settings: cell.settings }
    let result = null
    try {
      const text = fs.readFileSync(resultFile, 'utf8')
      result = text.trim() ? JSON.parse(text) : null
    } catch (error) {
      throw new FatalError(`the run at ${settingsText(cell.settings)} printed no JSON result: ${error.message}`)
    }
    return { code, result, resultFile, wallS: (this.now() - started) / 1000 }
  }

  /** The warm-up run: the cell's settings, its result kept beside the cells' and never one of theirs. */
  async warmUp (cell) {
    this.stderr.write(`[warm-up] ${settingsText(cell.settings)}: a run of its own, not measured\n`)
    const ran = await this.launch(cell, `warmup-${Date.now().toString(36)}`)
    if (ran.interrupted || ran.result === undefined) return ran
    const figures = runFigures({ result: ran.result, exitCode: ran.code, round: 0,
      resultFile: path.relative(this.config.out, ran.resultFile), wallS: ran.wallS })
    this.stderr.write(`  ${fmt(figures.per_sec)} ${figures.unit}/s (warm-up)\n`)
    return { warmup: { settings: cell.settings, per_sec: figures.per_sec, unit: figures.unit, wall_s: figures.wall_s,
      result_file: figures.result_file } }
  }

  /** One measured run of `step` ({ cell, round }): its figures, or what ends the grid. */
  async measure (step) {
    const { config, header, cells } = this
    const index = cells.findIndex((c) => c.id === step.cell.id) + 1
    const estimate = config.race ? null : timeLeftS(this.left ?? 0, this.walls)
    this.stderr.write(`[${config.race ? `round ${step.round}, ` : ''}cell ${index} of ${cells.length}` +
      `${!config.race && config.repeat > 1 ? `, round ${step.round} of ${config.repeat}` : ''}] ` +
      `${settingsText(step.cell.settings)}${estimate === null ? '' : ` — about ${minutes(estimate)} left`}\n`)
    const ran = await this.launch(step.cell, `${step.cell.id}-r${step.round}`)
    if (ran.interrupted || ran.result === undefined) return ran
    // The run that filled the table (--prefill) took its time to fill it too: no estimate of a cell's time.
    if (!(this.prefilling && this.runs === 0)) this.walls.push(ran.wallS)
    this.runs++
    if (this.left) this.left--
    const figures = runFigures({ result: ran.result, exitCode: ran.code, round: step.round,
      resultFile: path.relative(config.out, ran.resultFile), wallS: ran.wallS })
    const nodes = figures.cluster && typeof figures.cluster.nodes === 'number' ? figures.cluster.nodes : null
    const other = otherCluster(header.cluster, { ...header.cluster, nodes })
    if (other) {
      this.stderr.write(errorText(NAME, `${other}: a study is one cluster; this run is not recorded (give another ` +
        '--out for the other cluster)'))
      return { code: EXIT.USAGE }
    }
    if (header.cluster.nodes === null && nodes !== null) header.cluster.nodes = nodes
    this.stderr.write(`  ${fmt(figures.per_sec)} ${figures.unit}/s, p99 ${fmt(figures.p99_ms)} ms, ` +
      `${fmt(figures.failed)} failed${inDoubtText(figures)}${figures.partial ? ', PARTIAL' : ''}\n`)
    return { figures }
  }
}

/** ", 40 in doubt (40 abandoned at the stop)" of a run's figures: answers lost are never "0 failed" alone. */
function inDoubtText (figures) {
  if (!(figures.in_doubt > 0)) return ''
  const abandoned = figures.abandoned > 0 ? ` (${fmt(figures.abandoned)} abandoned by the client at the stop)` : ''
  return `, ${fmt(figures.in_doubt)} in doubt${abandoned}`
}

module.exports = { CellRun }
