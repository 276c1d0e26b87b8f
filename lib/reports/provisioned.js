'use strict'

// The report's sentences on a cluster the tool started (results/provisioned.js records it): what was started, and a
// node of it that died.

/** "started by this run: CrateDB 6.4.3, 3 nodes × 1 GB heap on this machine". */
function provisionedLine (record, by = record.by ?? 'this run') {
  const heap = /^([0-9]+)g$/.test(record.heap) ? `${record.heap.slice(0, -1)} GB` : /^([0-9]+)m$/.test(record.heap)
    ? `${record.heap.slice(0, -1)} MB` : record.heap
  return `started by ${by}: CrateDB ${record.version ?? '?'}, ${record.nodes} node${record.nodes === 1 ? '' : 's'} ` +
    `× ${heap} heap on this machine`
}

/**
 * The line said when a cluster the tool started was stopped, by whoever started it (`by`: 'this run', 'this study'):
 * "stopped the cluster this run started (crate-bench-…); nothing of it is left", or the warning of a stop that failed.
 */
const stoppedLine = (name, by, error = null) => (error ? `warning: stopping the cluster ${by} started: ` +
  `${error.message}` : `stopped the cluster ${by} started (${name}); nothing of it is left`)

/** "warning: N (pid P) … is no longer running: cause; its last log lines:" and those lines, for the report. */
function lostNodeLines (lost, of = 'the cluster this run started') {
  const cause = lost.cause ? `: ${lost.cause}` : lost.logs_with ? '' : ': no cause in its log (killed from outside?)'
  if (lost.logs_with) {
    return [`warning: ${lost.node} (pid ${lost.pid}) of ${of} is no longer running${cause}; its logs: ` +
      `${lost.logs_with}'s, which names its cause`]
  }
  return [`warning: ${lost.node} (pid ${lost.pid}) of ${of} is no longer running${cause}; its last log lines` +
    `${lost.kept ? ` (its logs kept in ${lost.kept})` : ''}:`, ...lost.last_lines.map((l) => `    ${l}`)]
}

module.exports = { provisionedLine, stoppedLine, lostNodeLines }
