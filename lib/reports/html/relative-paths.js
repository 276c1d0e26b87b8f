'use strict'

const path = require('node:path')

// A page is forwarded (to a manager, into a ticket): it names the files it stands on relative to its own folder,
// never by this machine's absolute paths.

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * `text` with every absolute path under `base` made relative to it ("grid/runs/x.json"; `base` itself "."), and each
 * of `files` (a study file outside the folder, say) named as it lies from `base` ("../study.yml").
 */
function relativePaths (text, base, { files = [] } = {}) {
  const root = path.resolve(base)
  let out = text
  for (const file of files.filter(Boolean)) {
    const absolute = path.resolve(file)
    out = out.split(absolute).join(path.relative(root, absolute) || '.')
  }
  return out.replace(new RegExp(`${escapeRegExp(root)}(?=$|[/\\s"'<>&:;,)])(/[^\\s"'<>&:;,)]*)?`, 'g'),
    (_match, rest) => (rest ? rest.slice(1) || '.' : '.'))
}

module.exports = { relativePaths }
