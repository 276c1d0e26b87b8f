'use strict'

// A study target's up: and down: on hosts of their own (hosts.js), as a user's own provisioning would be: `node
// target-on-hosts.js up|down SPEC NAME` starts (or stops) the nodes of target NAME of the JSON file SPEC, each by the
// tool's provisioner in its host's namespace (--listen, --seed_hosts, --cluster_name), and on up: makes the user the
// study connects as (CrateDB trusts its superuser from a node's own host only). Test infrastructure only.

const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { finished } = require('./hosts')

const TOOL = path.join(__dirname, '..', '..', 'bin', 'crate-bench.js')

/** `cmd args` in namespace `ns`, to its end: { code, stdout, stderr }. */
const inHost = (ns, cmd, args) => finished(spawn('ip', ['netns', 'exec', ns, cmd, ...args],
  { stdio: ['ignore', 'pipe', 'pipe'] }), 600_000)

/** --seed_hosts of `host`: the other hosts' nodes (none for a cluster of one, which forms alone). */
function seedsOf (target, host, transport) {
  const others = target.hosts.filter((h) => h !== host).map((h) => `${h.address}:${transport}`)
  return others.length ? ['--seed_hosts', others.join(',')] : []
}

async function up (spec, target) {
  const transport = spec.httpPort + 200
  const started = await Promise.all(target.hosts.map((host) => inHost(host.ns, process.execPath, [TOOL, 'cluster',
    'start', '--tarball', spec.tarball, '--heap', spec.heap, '--http_port', String(spec.httpPort), '--listen',
    host.address, ...seedsOf(target, host, transport), '--cluster_name', `${spec.tag}-${target.name}`, '--dir',
    host.dir, '--stop_with', String(spec.stopWith)])))
  for (const s of started) process.stderr.write(s.stderr)
  if (started.some((s) => s.code !== 0)) return 1
  const sql = (stmt) => `fetch('http://127.0.0.1:${spec.httpPort}/_sql', { method: 'POST', headers: ` +
    `{ 'content-type': 'application/json' }, body: ${JSON.stringify(JSON.stringify({ stmt }))} }).then(async (a) => ` +
    '{ console.log(await a.text()); process.exitCode = a.status === 200 ? 0 : 1 })'
  for (const stmt of [`CREATE USER bench WITH (password = '${spec.password}')`, 'GRANT ALL TO bench']) {
    const made = await inHost(target.hosts[0].ns, process.execPath, ['-e', sql(stmt)])
    if (made.code !== 0) {
      process.stderr.write(`${stmt}: ${made.stdout}${made.stderr}`)
      return 1
    }
  }
  console.log(`${target.name} up: ${target.hosts.map((h) => h.address).join(', ')}`)
  return 0
}

async function down (spec, target) {
  let code = 0
  for (const host of target.hosts) {
    const stopped = await inHost(host.ns, process.execPath, [TOOL, 'cluster', 'stop', '--dir', host.dir])
    process.stderr.write(stopped.stderr)
    if (stopped.code !== 0) code = 1
  }
  console.log(`${target.name} down`)
  return code
}

if (require.main === module) {
  const [what, specFile, name] = process.argv.slice(2)
  const spec = JSON.parse(fs.readFileSync(specFile, 'utf8'))
  const target = spec.targets.find((t) => t.name === name)
  ;({ up, down })[what](spec, target).then((code) => { process.exitCode = code })
}

module.exports = { TARGET_SCRIPT: __filename }
