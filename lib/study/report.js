'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { EXIT } = require('../base/errors')
const { fileSha256 } = require('../base/files')
const { replaceFile } = require('../provision/owned-paths')
const { pointsOfFiles } = require('../reports/sizing/inputs')
const { sizingOf } = require('../reports/sizing')
const { sizingText } = require('../reports/sizing/rows')
const { renderSizingHtml } = require('../reports/sizing/html')
const { relativePaths } = require('../reports/html/relative-paths')
const { partResult } = require('./parts')

// What a study writes for whoever reads its figures: the sizing of its shapes (DIR/sizing.json, sizing.html) computed
// by the functions crate-bench sizing calls, headed by what was measured (CrateDB's version, build and distribution,
// this machine, the date, the tool, the study file and its hash), with every caveat the terminal prints on the page.

const TOOL_VERSION = require('../../package.json').version

/** What a page of the study says it measured: the clusters' CrateDB, this machine, the date, the tool, the file. */
function measuredHeader (config, records) {
  const crate = []
  for (const r of records.filter(Boolean)) {
    const key = JSON.stringify([r.version, r.build_hash, r.distribution && r.distribution.sha256])
    if (!crate.some((c) => c.key === key)) {
      crate.push({ key, version: r.version, build_hash: r.build_hash, distribution: r.distribution,
        ...(r.kind === 'target' ? { target: r.name } : {}) })
    }
  }
  const cpus = os.cpus()
  return {
    date: new Date().toISOString(),
    tool: { name: 'crate-bench', version: TOOL_VERSION, node: process.version },
    study_file: { path: config.file, sha256: fileSha256(config.file) },
    machine: { hostname: os.hostname(), cores: os.availableParallelism(), cpu: cpus.length ? cpus[0].model : null,
      memory_gb: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10, os: `${os.type()} ${os.release()} (${os.arch()})` },
    crate: crate.map(({ key: _key, ...c }) => c)
  }
}

/** The header's lines, for the terminal and the page. */
function measuredLines (m) {
  return [
    ...m.crate.map((c) => `CrateDB ${c.version ?? '(version unknown)'}, build ${c.build_hash ?? 'unknown'}, ` +
      (c.target ? `as ${c.target} said of itself (a cluster of your own: the tool did not start it)`
        : `distribution SHA-256 ${c.distribution && c.distribution.sha256 ? c.distribution.sha256 : 'unknown'}`)),
    `${m.crate.some((c) => c.target) ? 'the load generator\'s machine' : 'machine'}: ${m.machine.hostname}, ` +
      `${m.machine.cores} cores (${m.machine.cpu ?? 'cpu unknown'}), ` +
      `${m.machine.memory_gb} GB of memory, ${m.machine.os}`,
    `measured ${m.date} with ${m.tool.name} ${m.tool.version} (Node.js ${m.tool.node}), study file ` +
      `${m.study_file.path} (SHA-256 ${m.study_file.sha256 ?? 'unknown'})`
  ]
}

/** The sizing inputs a shape left: its grid folder, its mixed capacity folder, its sustained result. */
function sizingInputs (dir) {
  const inputs = []
  if (fs.existsSync(path.join(dir, 'grid', 'grid.json'))) inputs.push(path.join(dir, 'grid'))
  if (fs.existsSync(path.join(dir, 'mixed', 'capacity.summary.json'))) inputs.push(path.join(dir, 'mixed'))
  const sustained = partResult(path.join(dir, 'sustained.json'))
  if (sustained && sustained.workload) inputs.push(path.join(dir, 'sustained.json'))
  return inputs
}

/**
 * The sizing of every shape done (`shapes`, planned): DIR/sizing.json and sizing.html, its text on `stderr` with
 * every caveat and warning the page carries. Returns its exit code.
 */
function writeSizing (config, shapes, { stderr, warnings = [] }) {
  const records = Object.fromEntries(shapes.map((s) => [s.name, partResult(path.join(s.dir, 'cluster-record.json'))]))
  const sizing = sizingOf(pointsOfFiles(shapes.flatMap((s) => sizingInputs(s.dir))))
  if (sizing.groups.length === 0) {
    stderr.write('warning: none of the study\'s results says what cluster it ran on: nothing to size\n')
    return EXIT.CANNOT_RUN
  }
  // Nodes the study started share this machine; a target's are on hosts of the user's own (its sizing judges them
  // from what they report: a shared host is flagged there).
  const several = config.study.targets ? [] : shapes.filter((s) => s.nodes > 1)
  sizing.measured = measuredHeader(config, Object.values(records))
  sizing.study_caveats = [...(several.length ? [`${several.map((s) => `${s.nodes} nodes`).join(', ')} on one ` +
    `${os.availableParallelism()}-core machine: this measures CrateDB's scaling on shared cores, not the throughput ` +
    'of as many machines'] : []), ...sharedHosts(shapes, records)]
  sizing.study_warnings = warnings
  sizing.started = records
  stderr.write(`${measuredLines(sizing.measured).join('\n')}\n`)
  stderr.write(sizingText(sizing))
  for (const caveat of sizing.study_caveats) stderr.write(`caveat: ${caveat}\n`)
  for (const warning of warnings) stderr.write(`warning: ${warning}\n`)
  replaceFile(path.join(config.out, 'sizing.json'), `${JSON.stringify(sizing, null, 1)}\n`)
  replaceFile(path.join(config.out, 'sizing.html'), relativePaths(renderSizingHtml(sizing, { headerLines: measuredLines(
    sizing.measured) }), config.out, { files: [config.file] }))
  stderr.write(`wrote ${path.join(config.out, 'sizing.json')} and sizing.html\n`)
  return sizedNothing(sizing, stderr) ? EXIT.FAILURES : EXIT.OK
}

/**
 * A target's nodes that report one hostname share a machine (namespaces, containers or VMs on one host): a caveat
 * each, since its figures then measure shared cores and its cores bound counts that machine's cores once per node.
 */
function sharedHosts (shapes, records) {
  const caveats = []
  for (const shape of shapes.filter((s) => s.target)) {
    const list = (records[shape.name] && records[shape.name].node_list) || []
    const byHost = new Map()
    for (const n of list.filter((x) => x.hostname)) byHost.set(n.hostname, (byHost.get(n.hostname) ?? 0) + 1)
    const shared = [...byHost].filter(([, count]) => count > 1)
    if (shared.length) {
      caveats.push(`${shape.name}: ${shared.map(([host, count]) => `${count} nodes report the hostname ${host}`)
        .join(', ')}: they may share one machine, whose cores its figures then share (and its cores bound counts ` +
        'once per node)')
    }
  }
  return caveats
}

/**
 * Whether no shape of the sizing has a figure to plan with: said in one line (each shape's why is on the page and
 * above), for the study's exit 1 (a CI gate must not pass a study that sized nothing).
 */
function sizedNothing (sizing, stderr) {
  const shapes = sizing.groups.flatMap((g) => g.shapes)
  if (shapes.some((s) => s.planning && s.planning.per_sec !== null)) return false
  stderr.write(`no shape has a figure to plan with (${shapes.length} measured; each says why above): exit 1\n`)
  return true
}

module.exports = { writeSizing, measuredHeader, measuredLines, sizingInputs }
