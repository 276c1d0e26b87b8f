'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { parseHeap, checkMemory, checkDisk, nodeUser, userOf } = require('../../lib/provision/preflight')
const { parseSettings, clusterSpec } = require('../../lib/provision/cluster')
const { nodeSettings } = require('../../lib/provision/nodes')
const { tempDir } = require('../helpers/temp-files')

const GB = 2 ** 30

test('the heap: a size CrateDB takes, at least 256m; memory for every node\'s heap and a quarter more', () => {
  assert.deepEqual(parseHeap('1g'), { text: '1g', bytes: GB })
  assert.deepEqual(parseHeap('512M'), { text: '512m', bytes: GB / 2 })
  for (const bad of ['1', '1gb', '-1g', '0m', '1.5g']) assert.throws(() => parseHeap(bad), /--heap must be a size/, bad)
  assert.throws(() => parseHeap('128m'), /below the 256m a CrateDB node needs/)
  assert.doesNotThrow(() => checkMemory(3, parseHeap('1g'), { available: 4 * GB }))
  assert.throws(() => checkMemory(3, parseHeap('1g'), { available: 3 * GB }),
    /3 nodes × 1g heap need about 3\.8 GB of memory \(the heap and a quarter more\); 3\.0 GB is available/)
})

test('free disk under the folder (its nearest existing parent): refused below 1 GB a node, warned past 85%', (t) => {
  const dir = path.join(tempDir(t), 'not', 'yet')
  const statfs = (blocks, bavail) => () => ({ bsize: 4096, blocks, bavail })
  const gbBlocks = GB / 4096
  assert.equal(checkDisk(dir, 2, { statfs: statfs(100 * gbBlocks, 50 * gbBlocks) }), null)
  assert.throws(() => checkDisk(dir, 3, { statfs: statfs(100 * gbBlocks, 2 * gbBlocks) }),
    /has 2\.0 GB free; 3 nodes need at least 3\.0 GB: give --dir on a larger disk/)
  assert.match(checkDisk(dir, 1, { statfs: statfs(100 * gbBlocks, 10 * gbBlocks) }),
    /^warning: the disk of .* is 90% full, past CrateDB's low watermark \(85%\)/)
})

test('as root the nodes run as another user, who must exist and not be root; as anyone else, as that user', (t) => {
  const passwd = path.join(tempDir(t), 'passwd')
  fs.writeFileSync(passwd, 'root:x:0:0:root:/root:/bin/bash\ncrate:x:998:997::/home/crate:/usr/sbin/nologin\n')
  assert.equal(nodeUser('crate', { uid: 1000, passwd }), null)
  assert.deepEqual(nodeUser('crate', { uid: 0, passwd }), { name: 'crate', uid: 998, gid: 997, home: '/home/crate' })
  assert.throws(() => nodeUser('elastic', { uid: 0, passwd }), new RegExp('CrateDB refuses to run as root, and the ' +
    'user elastic the nodes would run as does not exist: create it \\(useradd --system --no-create-home --shell ' +
    '/usr/sbin/nologin elastic\\) or give --run_as USER$'))
  assert.throws(() => nodeUser('root', { uid: 0, passwd }), /--run_as root is root: CrateDB refuses to run as root/)
  assert.equal(userOf('crate', { passwd: '/no/such/file' }), null)
})

test('settings: key=value, none of those the tool sets; discovery explicit, ports per node, processors when shared',
  () => {
    assert.deepEqual(parseSettings(['thread_pool.write.size=1', 'indices.memory.index_buffer_size=20%']),
      [['thread_pool.write.size', '1'], ['indices.memory.index_buffer_size', '20%']])
    for (const own of ['node.name=x', 'cluster.name=x', 'http.port=1', 'discovery.seed_hosts=a', 'path.data=/x',
      'cluster.initial_master_nodes=a']) {
      assert.throws(() => parseSettings([own]), /is set by the tool for every node/, own)
    }
    // The nodes stay on loopback: no setting widens where one listens or what it publishes.
    for (const address of ['network.host=0.0.0.0', 'network.bind_host=0.0.0.0', 'http.host=0.0.0.0',
      'http.bind_host=0.0.0.0', 'transport.host=10.0.0.1', 'transport.bind_host=0.0.0.0', 'psql.bind_host=0.0.0.0',
      'http.publish_host=10.0.0.1']) {
      assert.throws(() => parseSettings([address]), new RegExp(`^UsageError: --setting ${address.split('=')[0]
        .replace('.', '\\.')}: the nodes listen on loopback only`), address)
    }
    assert.throws(() => parseSettings(['novalue']), /--setting must be key=value \(got 'novalue'\)/)
    const spec = { name: 'c', nodes: 3, httpPort: 4250, nodeDir: '/d/node2', processors: 1,
      settings: [['thread_pool.write.size', '1']] }
    const args = nodeSettings(spec, 1)
    assert.deepEqual(args, ['-Cnode.name=c-n2', '-Ccluster.name=c', '-Cnetwork.host=127.0.0.1', '-Chttp.port=4251',
      '-Cpsql.port=4351', '-Ctransport.port=4451', '-Cpath.data=/d/node2/data', '-Cpath.logs=/d/node2/logs',
      '-Cdiscovery.seed_hosts=127.0.0.1:4450,127.0.0.1:4451,127.0.0.1:4452',
      '-Ccluster.initial_master_nodes=c-n1,c-n2,c-n3', '-Cprocessors=1', '-Cthread_pool.write.size=1'])
    assert.ok(nodeSettings({ ...spec, nodes: 1, processors: null }, 0).includes('-Cdiscovery.type=single-node'))
    assert.throws(() => clusterSpec({ nodes: 2, httpPort: 65_400 }), /--http_port must be a port from 1024 that leaves/)
    assert.throws(() => clusterSpec({ nodes: 'x' }), /--nodes must be a whole number from 1 to 20/)
    // Decimal digits only: 1e1, 0x2 or 2.0 are no node count a user meant.
    for (const nodes of ['1e1', '0x2', '2.0', ' ', '', ' 2', '2 ', '\t3']) {
      assert.throws(() => clusterSpec({ nodes }), /--nodes must be a whole number from 1 to 20/, nodes)
    }
    assert.equal(clusterSpec({ nodes: '3' }).nodes, 3)
    assert.throws(() => clusterSpec({ httpPort: '4e3' }), /--http_port must be a port from 1024/)
    assert.throws(() => clusterSpec({ httpPort: ' 4300' }), /--http_port must be a port from 1024/)
    // CORS would let any web page in a browser on this machine send SQL to the loopback node.
    for (const setting of ['http.cors.enabled=true', 'http.cors.allow-origin=*', 'HTTP.CORS.ENABLED=true']) {
      assert.throws(() => clusterSpec({ settings: [setting] }), /^UsageError: --setting http\.cors\.[a-z-]+: CORS /i,
        setting)
    }
  })
