'use strict'

// npm test's last step: the share of lib/'s lines the tests ran (node --test's lcov report), against a floor. The
// floor is what the tests reach today, rounded down: a change that leaves new code untested lowers the share and
// fails here. Raise it when the tests reach more.

const fs = require('node:fs')
const path = require('node:path')

const FLOOR_PCT = Number(process.env.CRATE_BENCH_COVERAGE_FLOOR ?? 90)
const file = process.argv[2] || path.join(__dirname, '..', 'coverage', 'lcov.info')

/** Lines found and hit per file of lib/, from an lcov report. */
function libCoverage (text) {
  let current = null
  const files = []
  for (const line of text.split('\n')) {
    if (line.startsWith('SF:')) current = { file: line.slice(3), found: 0, hit: 0 }
    else if (current && line.startsWith('LF:')) current.found = Number(line.slice(3))
    else if (current && line.startsWith('LH:')) current.hit = Number(line.slice(3))
    else if (current && line === 'end_of_record') {
      if (/^lib\//.test(current.file.replace(/\\/g, '/'))) files.push(current)
      current = null
    }
  }
  return files
}

/** Every .js file of lib/, with its lines that are not blank. */
function libFiles (dir, prefix = 'lib') {
  const out = []
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) out.push(...libFiles(full, `${prefix}/${entry.name}`))
    else if (entry.name.endsWith('.js')) {
      const lines = fs.readFileSync(full, 'utf8').split('\n').filter((l) => l.trim()).length
      out.push({ file: `${prefix}/${entry.name}`, lines })
    }
  }
  return out
}

function main () {
  let text
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (error) {
    process.stderr.write(`coverage: cannot read ${file}: ${error.message}\n`)
    return 1
  }
  const files = libCoverage(text)
  // A file no test loaded is not in the report: its lines count as not run (the HTML page's script runs in a vm
  // context or a browser, where the runner does not see it).
  const reported = new Set(files.map((f) => f.file.replace(/\\/g, '/')))
  for (const other of libFiles(path.join(__dirname, '..', 'lib'))) {
    if (reported.has(other.file)) continue
    files.push({ file: other.file, found: other.lines, hit: 0 })
  }
  const found = files.reduce((sum, f) => sum + f.found, 0)
  const hit = files.reduce((sum, f) => sum + f.hit, 0)
  const pct = found > 0 ? (hit / found) * 100 : 0
  const line = `coverage of lib/: ${pct.toFixed(1)}% of ${found} lines in ${files.length} files (floor ${FLOOR_PCT}%)`
  if (pct < FLOOR_PCT) {
    const least = files.map((f) => ({ ...f, pct: f.found ? (f.hit / f.found) * 100 : 100 }))
      .sort((a, b) => a.pct - b.pct).slice(0, 5)
      .map((f) => `  ${f.file}: ${f.pct.toFixed(0)}%`).join('\n')
    process.stderr.write(`${line}: BELOW THE FLOOR\nleast covered:\n${least}\n`)
    return 1
  }
  process.stdout.write(`${line}\n`)
  return 0
}

if (require.main === module) process.exitCode = main()

module.exports = { libCoverage }
