'use strict'

// Hosts of their own for the tests: network namespaces a test makes (as root), each with its own address on a
// bridge, torn down after it. This is test infrastructure only; the tool itself never makes namespaces.
//
//   bridge cbNNNNbr (no address: this namespace routes nothing to the hosts)
//     ├─ veth ── namespace cbNNNN-h1: eth0 127.A.B.11/24
//     ├─ veth ── namespace cbNNNN-h2: eth0 127.A.B.12/24 …
//
// The addresses are of the loopback class, each on a link of its own (route_localnet, and each namespace's local
// route narrowed to 127.0.0.1): a CrateDB node bound to one runs its development checks, as on a laptop. Bound to
// any other address it runs its production checks, whose open-files limit (65,536) needs CAP_SYS_RESOURCE to grant,
// which a container's root may lack. Between namespaces these addresses behave as any: a cut link is silence.
// Every name starts with cb and a number drawn for the test, so that nothing else on the machine is touched, and the
// teardown removes exactly what was made. A host is cut off by setting its interface down (no process is killed).

const { execFileSync, spawn } = require('node:child_process')
const crypto = require('node:crypto')

/** Why hosts of their own cannot be made here (not root, no `ip`, no namespaces), or null. */
function hostsUnavailable () {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
    return 'not root: network namespaces (hosts of their own) need root'
  }
  const probe = `cbprobe${process.pid % 100_000}`
  try {
    execFileSync('ip', ['netns', 'add', probe], { stdio: 'ignore' })
    execFileSync('ip', ['netns', 'del', probe], { stdio: 'ignore' })
    return null
  } catch {
    return 'no network namespaces here (ip netns add failed): hosts of their own skipped'
  }
}

const ip = (...args) => execFileSync('ip', args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString()
const quietly = (fn) => {
  try {
    fn()
  } catch {
    // Gone already.
  }
}

/**
 * `count` hosts of their own on one bridge: [{ name, address, exec(cmd, args, options), cut(), restore() }] and the
 * bridge's own address (this namespace's, where the test's load generator runs). Torn down after the test `t`.
 */
function makeHosts (t, count) {
  const tag = `cb${crypto.randomInt(1000, 9999)}`
  const net = `127.${crypto.randomInt(100, 250)}.${crypto.randomInt(1, 250)}`
  const bridge = `${tag}br`
  const made = { namespaces: [], links: [] }
  const teardown = () => {
    for (const ns of made.namespaces) quietly(() => ip('netns', 'del', ns))
    for (const link of made.links) quietly(() => ip('link', 'del', link))
  }
  t.after(teardown)
  try {
    ip('link', 'add', bridge, 'type', 'bridge')
    made.links.push(bridge)
    ip('link', 'set', bridge, 'up')
    const hosts = []
    for (let i = 1; i <= count; i++) {
      const ns = `${tag}-h${i}`
      const outside = `${tag}h${i}a`
      ip('netns', 'add', ns)
      made.namespaces.push(ns)
      ip('link', 'add', outside, 'type', 'veth', 'peer', 'name', `${tag}h${i}b`)
      made.links.push(outside)
      ip('link', 'set', `${tag}h${i}b`, 'netns', ns)
      ip('link', 'set', outside, 'master', bridge)
      ip('link', 'set', outside, 'up')
      const inNs = (cmd, ...args) => execFileSync('ip', ['netns', 'exec', ns, cmd, ...args], { stdio: 'pipe' })
      inNs('ip', 'link', 'set', `${tag}h${i}b`, 'name', 'eth0')
      inNs('ip', 'link', 'set', 'lo', 'up')
      inNs('sysctl', '-qw', 'net.ipv4.conf.all.route_localnet=1', 'net.ipv4.conf.eth0.route_localnet=1')
      inNs('ip', 'route', 'del', 'local', '127.0.0.0/8', 'dev', 'lo', 'table', 'local')
      inNs('ip', 'addr', 'add', `${net}.${10 + i}/24`, 'dev', 'eth0')
      inNs('ip', 'link', 'set', 'eth0', 'up')
      hosts.push({
        name: ns,
        address: `${net}.${10 + i}`,
        /** `cmd args` run in this host's namespace: a child process. */
        exec: (cmd, args, options = {}) => spawn('ip', ['netns', 'exec', ns, cmd, ...args], options),
        /** `cmd args` run in this host's namespace to its end: { code, stdout, stderr }. */
        run: (cmd, args, options = {}) => finished(spawn('ip', ['netns', 'exec', ns, cmd, ...args],
          { stdio: ['ignore', 'pipe', 'pipe'], ...options }), options.timeoutMs),
        /** Its link cut: the interface down, every process on it left running. */
        cut: () => inNs('ip', 'link', 'set', 'eth0', 'down'),
        restore: () => inNs('ip', 'link', 'set', 'eth0', 'up')
      })
    }
    return { hosts, tag }
  } catch (error) {
    teardown()
    throw error
  }
}

/** A child's end: { code, stdout, stderr }; killed after `timeoutMs` when given. */
function finished (child, timeoutMs = null) {
  return new Promise((resolve) => {
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => { stdout += d })
    child.stderr.on('data', (d) => { stderr += d })
    const timer = timeoutMs ? setTimeout(() => child.kill('SIGTERM'), timeoutMs) : null
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer)
      resolve({ code, signal, stdout, stderr })
    })
  })
}

/** Whether anything a tag made is still on the machine: its namespaces and links. */
function leftOf (tag) {
  const namespaces = ip('netns', 'list').split('\n').filter((l) => l.startsWith(tag))
  const links = ip('-o', 'link', 'show').split('\n').filter((l) => new RegExp(`^\\d+: ${tag}`).test(l))
  return [...namespaces, ...links]
}

module.exports = { hostsUnavailable, makeHosts, leftOf, finished }
