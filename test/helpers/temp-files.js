'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

/** A fresh temporary directory, removed when the test `t` ends. */
function tempDir (t, prefix = 'crate-bench-') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Writes `text` to a file `name` in a fresh temporary directory (removed after the test); returns its path. */
function tempFile (t, name, text) {
  const file = path.join(tempDir(t), name)
  fs.writeFileSync(file, text)
  return file
}

module.exports = { tempDir, tempFile }
