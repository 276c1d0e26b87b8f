'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { EXIT, UsageError } = require('../base/errors')
const { readRegularFile } = require('../base/files')
const { visible } = require('../base/format')
const { resultProblem } = require('../results/result')
const { renderHtmlReport } = require('./html')
const { terminalReport } = require('./text')

// A result as a file: one saved with --json read back, and the HTML report written.

// A result of a long run with its timeline is a few megabytes; this is far beyond any.
const MAX_RESULT_BYTES = 512 * 1024 * 1024

/** A result saved with --json: a file that cannot be read is exit 3, one that is not a result exit 2. */
function readResult (file) {
  const text = readRegularFile(file, { what: 'result', maxBytes: MAX_RESULT_BYTES, unreadableExit: EXIT.CANNOT_RUN })
  let result
  try {
    result = JSON.parse(text)
  } catch {
    // Never the parser's message: it quotes the file's first bytes, and a file named by mistake may hold a secret.
    throw new UsageError(`not a result file: ${visible(file)}: not JSON`)
  }
  const problem = resultProblem(result)
  if (problem) throw new UsageError(`not a result file: ${visible(file)}: ${problem}`)
  return result
}

function writeHtml (result, out, stderr) {
  try {
    fs.writeFileSync(out, renderHtmlReport(result, { terminalReport: terminalReport(result) }))
  } catch (error) {
    const failure = new Error(`cannot write ${out}: ${error.message}`)
    failure.exitCode = EXIT.CANNOT_RUN
    throw failure
  }
  stderr.write(`HTML report written to ${path.resolve(out)}\n`)
}

module.exports = { readResult, writeHtml }
