'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { EXIT } = require('./errors')
const { loadWorkload } = require('./workloads')
const { renderReport, renderCompanion } = require('./report')
const { renderHtmlReport } = require('./html-report')

const USAGE = `Usage: crate-bench report RESULT.json -o FILE.html

Makes the self-contained HTML report of a result saved with --json (the same report --report
writes at the end of a run).`

/** crate-bench report run.json -o run.html. Returns the exit code. */
function main (argv, { stdout = process.stdout, stderr = process.stderr } = {}) {
  const fail = (message, code = EXIT.USAGE) => {
    stderr.write(`crate-bench report: error: ${message}\n`)
    process.exitCode = code
    return code
  }
  if (argv.includes('--help') || argv.includes('-h')) {
    stdout.write(`${USAGE}\n`)
    return EXIT.OK
  }
  const outAt = argv.findIndex((a) => a === '-o' || a === '--out')
  const out = outAt >= 0 ? argv[outAt + 1] : undefined
  const inputs = argv.filter((_, i) => i !== outAt && i !== outAt + 1)
  if (inputs.length !== 1 || !out) return fail('give one result file and -o FILE.html (see --help)')
  let result
  try {
    result = JSON.parse(fs.readFileSync(inputs[0], 'utf8'))
  } catch (error) {
    return fail(`${inputs[0]} is not a result saved with --json: ${error.code === 'ENOENT' ? 'no such file' : error.message.split('\n')[0]}`)
  }
  if (!result || !['ingest', 'analytical'].includes(result.workload) || !result.options) return fail(`${inputs[0]} is not a result saved with --json (no workload and options)`)
  const workload = loadWorkload(result.workload)
  const companion = result.ingest && result.workload === 'analytical' ? renderCompanion(loadWorkload('ingest'), result.ingest) : ''
  try {
    fs.writeFileSync(out, renderHtmlReport(result, { terminalReport: renderReport(workload, result) + companion }))
  } catch (error) {
    return fail(`cannot write ${out}: ${error.message}`, EXIT.CANNOT_RUN)
  }
  stderr.write(`HTML report written to ${path.resolve(out)}\n`)
  return EXIT.OK
}

module.exports = { main }
