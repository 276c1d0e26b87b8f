'use strict'

const path = require('node:path')

// What each of lib/'s folders may require besides itself: the real dependency graph, a shallow DAG (no cycle, checked
// by test/eslint-rules/one-way-imports.test.js, which also holds each folder's README "May import:" line to it).
// An edge added here is a decision about the architecture: say why in docs/architecture.md.
const ALLOWED = {
  base: [],
  data: ['base'],
  cluster: ['base'],
  metrics: ['base'],
  fleet: ['base', 'data'],
  results: ['base', 'data', 'fleet'],
  workloads: ['base', 'data', 'results'],
  cli: ['base', 'data', 'cluster', 'results'],
  reports: ['base', 'data', 'cluster', 'fleet', 'results', 'workloads', 'cli'],
  // What starts the cluster under test (a distribution, Java, its nodes), apart from cluster/, which talks to one.
  provision: ['base', 'cli', 'results'],
  run: ['base', 'data', 'cluster', 'fleet', 'metrics', 'results', 'workloads', 'reports', 'cli', 'ui', 'provision'],
  ui: ['base', 'data', 'results', 'reports'],
  sweep: ['base', 'workloads', 'reports', 'cli', 'provision'],
  launch: ['base', 'data', 'results', 'workloads', 'reports', 'cli', 'ui', 'provision'],
  // A study conducts the others: the clusters it starts (provision), the grid and the capacity search it runs
  // (sweep), the sizing and the comparison it writes (reports). Nothing requires it but the command table (bin/).
  study: ['base', 'reports', 'cli', 'provision', 'sweep']
}
const LIB = path.join(__dirname, '..', 'lib')

function folderOf (file) {
  const relative = path.relative(LIB, file)
  if (relative.startsWith('..') || path.isAbsolute(relative)) return { inLib: false }
  const parts = relative.split(path.sep)
  // '../workloads' names a folder (its index.js); 'runner.js' would be a file at lib/'s root.
  const isFolder = parts.length > 1 || !/\.js(on)?$/.test(parts[0])
  return { inLib: true, folder: isFolder ? parts[0] : null }
}

module.exports = {
  meta: {
    type: 'problem',
    docs: { description: "lib/'s folders require only what ALLOWED names for them: the graph stays a DAG" },
    schema: []
  },
  create (context) {
    const file = context.filename
    const own = folderOf(file)
    if (!own.inLib) return {}
    if (own.folder !== null && !ALLOWED[own.folder]) {
      return {
        Program (node) {
          const message = `lib/${own.folder}/ is not a known folder: add it to ALLOWED in ${__filename}`
          context.report({ node, message })
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
        const theirs = folderOf(target)
        if (!theirs.inLib) {
          context.report({ node, message: `lib/ must not require '${arg.value}' from outside lib/` })
          return
        }
        // Files at lib/'s root would sit above every folder: there are none, and none may be required.
        if (own.folder === null || theirs.folder === null) {
          if (theirs.folder === null && own.folder !== null) {
            context.report({ node, message: `lib/${own.folder}/ must not require lib/'s root ('${arg.value}')` })
          }
          return
        }
        if (theirs.folder !== own.folder && !ALLOWED[own.folder].includes(theirs.folder)) {
          const may = ALLOWED[own.folder].length ? ALLOWED[own.folder].join(', ') : 'nothing of ours'
          context.report({
            node,
            message: `lib/${own.folder}/ must not require lib/${theirs.folder}/ ('${arg.value}'): it may require ` +
              `${may} (ALLOWED in eslint-rules/one-way-imports.js)`
          })
        }
      }
    }
  },
  ALLOWED
}
