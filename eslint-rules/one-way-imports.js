'use strict'

const path = require('node:path')

// lib/'s folders from the bottom up: a file may require its own folder and the folders below it, never one above.
// The order is the run's own: options -> cluster -> run -> results -> reports (see docs/architecture.md).
const LAYERS = [
  'base', 'data', 'cluster', 'fleet', 'results', 'metrics', 'workloads', 'reports', 'cli', 'run', 'sweep', 'launch'
]
const LIB = path.join(__dirname, '..', 'lib')

function layerOf (file) {
  const relative = path.relative(LIB, file)
  if (relative.startsWith('..') || path.isAbsolute(relative)) return { inLib: false }
  const parts = relative.split(path.sep)
  // '../workloads' names a folder (its index.js); 'runner.js' would be a file at lib/'s root.
  const isFolder = parts.length > 1 || !/\.js(on)?$/.test(parts[0])
  return { inLib: true, layer: isFolder ? parts[0] : null }
}

module.exports = {
  meta: {
    type: 'problem',
    docs: { description: "lib/'s folders import one way: a lower layer never requires a higher one" },
    schema: []
  },
  create (context) {
    const file = context.filename
    const own = layerOf(file)
    if (!own.inLib) return {}
    if (own.layer !== null && !LAYERS.includes(own.layer)) {
      return {
        Program (node) {
          context.report({ node, message: `lib/${own.layer}/ is not a known layer: add it to LAYERS in ${__filename}` })
        }
      }
    }
    return {
      CallExpression (node) {
        const [arg] = node.arguments
        if (node.callee.name !== 'require' || !arg || arg.type !== 'Literal' || typeof arg.value !== 'string') return
        if (!arg.value.startsWith('.')) return
        const target = path.resolve(path.dirname(file), arg.value)
        if (path.basename(target) === 'package.json') return
        const theirs = layerOf(target)
        if (!theirs.inLib) {
          context.report({ node, message: `lib/ must not require '${arg.value}' from outside lib/` })
          return
        }
        // Files at lib/'s root sit above every folder.
        if (own.layer === null || theirs.layer === null) {
          if (theirs.layer === null && own.layer !== null) {
            context.report({ node, message: `lib/${own.layer}/ must not require lib/'s root ('${arg.value}')` })
          }
          return
        }
        if (LAYERS.indexOf(theirs.layer) > LAYERS.indexOf(own.layer)) {
          context.report({
            node,
            message: `lib/${own.layer}/ must not require lib/${theirs.layer}/ ('${arg.value}'): ` +
              `${theirs.layer} is a higher layer (${LAYERS.join(' < ')})`
          })
        }
      }
    }
  },
  LAYERS
}
