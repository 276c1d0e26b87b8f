'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { userOf } = require('../../lib/provision/preflight')
const { CRATE_MAIN_CLASS } = require('../../lib/base/listeners')

// A CrateDB distribution for the provisioner's tests, made in seconds: a tarball of one top folder with bin/crate
// (the test double as a node: fake-crate-node.js), a jar whose name gives the version, and a bundled jdk/ whose java
// answers the version query as a JDK does. As root the nodes run as another user, who must reach all of it.

const FAKE_NODE = path.join(__dirname, 'fake-crate-node.js')

/** Writes the distribution's folder under `dir` and packs it: the tarball's path. */
async function fakeDistribution (dir, { version = '9.9.9', top = `crate-fake-${version}` } = {}) {
  const root = path.join(dir, 'src', top)
  for (const sub of ['bin', 'lib', 'config', 'jdk/bin']) fs.mkdirSync(path.join(root, sub), { recursive: true })
  // Its main class named on its command line, as bin/crate names it: what tells a node from a forwarder.
  fs.writeFileSync(path.join(root, 'bin', 'crate'),
    `#!/bin/sh\nexec "${process.execPath}" "${FAKE_NODE}" ${CRATE_MAIN_CLASS} "$@"\n`, { mode: 0o755 })
  fs.writeFileSync(path.join(root, 'jdk', 'bin', 'java'),
    '#!/bin/sh\necho "    java.specification.version = 25" >&2\n', { mode: 0o755 })
  fs.writeFileSync(path.join(root, 'lib', `crate-server-${version}.jar`), '')
  fs.writeFileSync(path.join(root, 'config', 'crate.yml'), '# fake\n')
  const tarball = path.join(dir, `${top}.tar.gz`)
  await require('tar').c({ gzip: true, file: tarball, cwd: path.join(dir, 'src') }, [top])
  return tarball
}

/**
 * The --run_as of a test: null when this process is not root; as root `crate` where it exists, else `nobody`, when
 * that user can run node and read this checkout (else null and why: the test skips, saying so).
 */
function testRunAs () {
  if (!process.getuid || process.getuid() !== 0) return { user: null, skip: null }
  const name = userOf('crate') ? 'crate' : 'nobody'
  const user = userOf(name)
  if (!user) return { user: null, skip: 'as root with no user crate or nobody to run the nodes as' }
  const reach = spawnSync('/bin/sh', ['-c', 'test -x "$1" && test -r "$2"', 'sh', process.execPath, FAKE_NODE],
    { uid: user.uid, gid: user.gid })
  if (reach.status !== 0) return { user: null, skip: `as root, ${name} cannot run node or read ${FAKE_NODE}` }
  return { user: name, skip: null }
}

/** A folder others can enter (mkdtemp makes them 0700): the nodes' user reaches the cache and the cluster under it. */
function openDir (dir) {
  fs.chmodSync(dir, 0o755)
  return dir
}

/**
 * A fake node (fake-crate-node.js) as its own process, its command line a CrateDB node's, on HTTP port `port` (pg
 * `port` + 100); stopped when the test `t` ends. Resolves the child once it serves.
 */
async function startFakeNode (t, port) {
  const { spawn } = require('node:child_process')
  const child = spawn(process.execPath, [FAKE_NODE, CRATE_MAIN_CLASS, '-Ccluster.name=crate-bench-fake',
    '-Cnode.name=crate-bench-fake-n1', `-Chttp.port=${port}`, `-Cpsql.port=${port + 100}`],
  { stdio: ['ignore', 'pipe', 'inherit'] })
  t.after(() => child.kill('SIGKILL'))
  await new Promise((resolve, reject) => {
    let said = ''
    child.stdout.on('data', (chunk) => {
      said += chunk
      if (/started on/.test(said)) resolve()
    })
    child.once('exit', (code) => reject(new Error(`the fake node ended (exit ${code}): ${said}`)))
  })
  return child
}

module.exports = { fakeDistribution, testRunAs, openDir, startFakeNode, FAKE_NODE }
