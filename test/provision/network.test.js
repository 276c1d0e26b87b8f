'use strict'

// Nodes that other hosts reach (--listen, --seed_hosts, --cluster_name): asked for in so many words, checked before
// anything starts, and said in a warning; loopback stays the default and every --setting that widens it stays refused.

const test = require('node:test')
const assert = require('node:assert/strict')
const { listenOf, seedHostsOf, clusterNameOf, nodeNamesOf, listenWarning } = require('../../lib/provision/network')
const { nodeSettings } = require('../../lib/provision/nodes')
const { clusterSpec } = require('../../lib/provision/cluster')
const { registryKeyOf } = require('../../lib/provision/state')

test('--listen takes one IP address; loopback is the default; every address at once is refused', () => {
  assert.equal(listenOf(undefined), null)
  assert.equal(listenOf('127.0.0.1'), null, 'loopback: the default')
  assert.equal(listenOf('10.0.0.5'), '10.0.0.5')
  assert.equal(listenOf('fd00::5'), 'fd00::5')
  assert.throws(() => listenOf('0.0.0.0'), /--listen must name one address/)
  assert.throws(() => listenOf('db.example'), /--listen must be an IP address of this machine \(got 'db\.example'\)/)
  assert.throws(() => listenOf('10.0.0.5; rm -rf /'), /--listen must be an IP address/)
})

test('--seed_hosts needs --listen and --cluster_name; each is a HOST:PORT', () => {
  assert.deepEqual(seedHostsOf(undefined, null), [])
  assert.throws(() => seedHostsOf('10.0.0.6:4450', null), /--seed_hosts joins nodes on other hosts: give --listen/)
  assert.deepEqual(seedHostsOf('10.0.0.6:4450, 10.0.0.7:4450', '10.0.0.5'), ['10.0.0.6:4450', '10.0.0.7:4450'])
  assert.deepEqual(seedHostsOf('[fd00::6]:4450', 'fd00::5'), ['[fd00::6]:4450'])
  for (const bad of ['10.0.0.6', '10.0.0.6:0', '10.0.0.6:70000', 'a b:1', '[nothex]:1']) {
    assert.throws(() => seedHostsOf(bad, '10.0.0.5'), /--seed_hosts: '.*' is no HOST:PORT/, bad)
  }
  assert.throws(() => clusterNameOf(undefined, ['10.0.0.6:4450']), /--seed_hosts: give --cluster_name too/)
  assert.equal(clusterNameOf(undefined, []), null)
  assert.equal(clusterNameOf('bench', ['10.0.0.6:4450']), 'bench')
  assert.throws(() => clusterNameOf('Bench!', []), /--cluster_name must be lowercase letters, digits, _ and -/)
  assert.throws(() => clusterSpec({ seedHosts: '10.0.0.6:4450', listen: '10.0.0.5' }), /give --cluster_name/)
  assert.deepEqual(Object.entries(clusterSpec({ listen: '10.0.0.5', seedHosts: '10.0.0.6:4450',
    clusterName: 'bench' })).filter(([k]) => ['listen', 'seedHosts', 'clusterName'].includes(k)),
  [['listen', '10.0.0.5'], ['seedHosts', ['10.0.0.6:4450']], ['clusterName', 'bench']])
})

test('nodes beyond loopback: bound there and on loopback, published there, named by their host, seeded across hosts',
  () => {
    const spec = { name: 'bench', nodes: 1, httpPort: 4250, nodeDir: '/d/node1', processors: null, settings: [],
      listen: '10.0.0.5', seedHosts: ['10.0.0.6:4450'] }
    const args = nodeSettings(spec, 0)
    assert.deepEqual(args.slice(0, 3), ['-Cnode.name=bench-10-0-0-5-n1', '-Ccluster.name=bench',
      '-Cnetwork.bind_host=127.0.0.1,10.0.0.5'])
    assert.ok(args.includes('-Cnetwork.publish_host=10.0.0.5'))
    assert.ok(!args.some((a) => a.startsWith('-Cnetwork.host')), 'no loopback-only setting beside it')
    assert.ok(args.includes('-Cdiscovery.seed_hosts=10.0.0.5:4450,10.0.0.6:4450'))
    assert.ok(args.includes('-Ccluster.initial_master_nodes=10.0.0.5:4450,10.0.0.6:4450'))
    assert.ok(!args.includes('-Cdiscovery.type=single-node'), 'one node here, but a cluster across hosts')
    assert.deepEqual(nodeNamesOf({ name: 'bench', nodes: 2, listen: 'fd00::5' }),
      ['bench-fd00-5-n1', 'bench-fd00-5-n2'])
    assert.deepEqual(nodeNamesOf({ name: 'c', nodes: 2 }), ['c-n1', 'c-n2'], 'loopback: names as before')
    assert.match(listenWarning('10.0.0.5', [4250, 4350, 4450]), /^warning: the nodes listen on 10\.0\.0\.5 as well as /)
    assert.match(listenWarning('10.0.0.5', [4250]), /whoever reaches 10\.0\.0\.5 can try them\. CrateDB lets its /)
    // Two starts of one cluster on one machine (network namespaces) keep an entry each in the registry.
    assert.notEqual(registryKeyOf({ name: 'bench', spec: { listen: '10.0.0.5' } }),
      registryKeyOf({ name: 'bench', spec: { listen: '10.0.0.6' } }))
    assert.equal(registryKeyOf({ name: 'crate-bench-1a2b3c', spec: {} }), 'crate-bench-1a2b3c')
  })

test('--listen beyond the loopback class: CrateDB\'s production checks checked first, one line naming what to raise',
  (t) => {
    const { checkListenLimits } = require('../../lib/provision/preflight')
    const fs = require('node:fs')
    const path = require('node:path')
    const { tempDir } = require('../helpers/temp-files')
    const proc = (openFiles, maps) => {
      const root = tempDir(t)
      fs.mkdirSync(path.join(root, 'self'))
      fs.mkdirSync(path.join(root, 'sys', 'vm'), { recursive: true })
      fs.writeFileSync(path.join(root, 'self', 'limits'), 'Limit                     Soft Limit           Hard Limit ' +
        `          Units\nMax open files            ${openFiles}                ${openFiles}                files\n`)
      fs.writeFileSync(path.join(root, 'sys', 'vm', 'max_map_count'), `${maps}\n`)
      return { procRoot: root }
    }
    assert.throws(() => checkListenLimits('10.0.0.5', proc(20000, 262144)), new RegExp('^UsageError: --listen: a ' +
      'node others reach runs CrateDB\'s production checks, and its open-files limit would be 20000, below the 65536 ' +
      'they need: raise it for the start \\(ulimit -n 65536'))
    assert.throws(() => checkListenLimits('10.0.0.5', proc(65536, 65530)),
      /vm\.max_map_count is 65530, below the 262144 they need: sysctl -w vm\.max_map_count=262144 \(the tool changes /)
    assert.doesNotThrow(() => checkListenLimits('10.0.0.5', proc(65536, 262144)))
    assert.doesNotThrow(() => checkListenLimits('127.77.0.11', proc(20000, 65530)), 'the loopback class: no checks')
    assert.doesNotThrow(() => checkListenLimits(null, proc(20000, 65530)), 'loopback only: no checks')
  })

test('--listen refuses a host-based-authentication setting (one that could open the nodes to that network); its ' +
  'warning says the superuser comes in through 127.0.0.1 only and what the transport port admits', () => {
  for (const setting of ['auth.host_based.enabled=false', 'auth.host_based.config.0.method=trust',
    'auth.trust.http_default_user=crate']) {
    assert.throws(() => clusterSpec({ listen: '10.0.0.5', settings: [setting] }), new RegExp(`^UsageError: --setting ` +
      `${setting.split('=')[0].replace(/\./g, '\\.')} with --listen: the nodes on that network are guarded by ` +
      'CrateDB\'s host-based authentication'))
  }
  // On loopback only, a user's own node may be set as they please.
  assert.deepEqual(clusterSpec({ settings: ['auth.host_based.enabled=false'] }).settings,
    [['auth.host_based.enabled', 'false']])
  const warning = listenWarning('10.0.0.5', [4250])
  assert.match(warning, /superuser crate in through 127\.0\.0\.1 only \(not through 10\.0\.0\.5, even from this /)
  assert.match(warning, /transport ports admit any node that knows the cluster's name unless TLS is set up/)
})
