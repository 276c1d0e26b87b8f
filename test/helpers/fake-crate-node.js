'use strict'

// A CrateDB node as the provisioner sees one, for its tests: the bin/crate of a fake distribution
// (test/helpers/fake-distribution.js) runs this script with CrateDB's -C settings. It serves the CrateDB test double
// on -Chttp.port, answers that it is one of N nodes of -Ccluster.name (N: its seed hosts, 1 for a single node), and
// refuses a setting CrateDB does not know as CrateDB 6.4.3 does (its cause printed, exit 1); its PostgreSQL protocol
// on -Cpsql.port. -Cfake.never_ready=true answers 0 nodes for ever (a cluster that never forms); -Cfake.delay_ms=N
// answers every bulk N ms late.

const { CrateTestDouble } = require('./crate-test-double')

const KNOWN = new RegExp('^(node\\.name|cluster\\.name|network\\.host|http\\.port|psql\\.port|transport\\.port|' +
  'path\\.(data|logs)|discovery\\.(type|seed_hosts)|cluster\\.initial_master_nodes|processors|thread_pool\\..*|' +
  'indices\\..*|fake\\.never_ready|fake\\.delay_ms)$')

function settingsOf (argv) {
  const settings = {}
  for (const arg of argv) {
    const m = /^-C([^=]+)=(.*)$/s.exec(arg)
    if (m) settings[m[1]] = m[2]
  }
  return settings
}

async function main (argv) {
  const settings = settingsOf(argv)
  const unknown = Object.keys(settings).find((key) => !KNOWN.test(key))
  if (unknown) {
    console.log('[ERROR][o.e.b.Bootstrap] Exception')
    console.log(`Caused by: java.lang.IllegalArgumentException: unknown setting [${unknown}] please check that any ` +
      'required plugins are installed, or check the breaking changes documentation for removed settings')
    console.log('\tat org.elasticsearch.common.settings.AbstractScopedSettings.validate(AbstractScopedSettings.java)')
    process.exit(1)
  }
  const seeds = settings['discovery.seed_hosts'] ? settings['discovery.seed_hosts'].split(',') : []
  const nodes = seeds.length || 1
  // Every node after the first serves the first one's state, as the nodes of one cluster do: it passes each
  // request on to the first node's HTTP port (its transport port less 200, as the provisioner gives them).
  const firstHttp = seeds.length ? Number(seeds[0].split(':')[1]) - 200 : null
  if (firstHttp && firstHttp !== Number(settings['http.port'])) return proxyTo(firstHttp, settings)
  const answers = {
    'SELECT name FROM sys.cluster': [[settings['cluster.name']]],
    "SELECT version['number'], version['build_hash'] FROM sys.nodes LIMIT 1": [['9.9.9', 'fake-build-hash']]
  }
  // The first node holds the cluster's state; the double lists as many nodes in sys.nodes (its other endpoints idle).
  const double = new CrateTestDouble({
    nodeCount: settings['fake.never_ready'] === 'true' ? 0 : nodes,
    // -Cfake.delay_ms=N: every bulk answered N ms late (a slower build, for a comparison that must see it).
    fault: ({ bulk }) => (bulk && settings['fake.delay_ms'] ? { delayMs: Number(settings['fake.delay_ms']) }
      : undefined),
    query: (stmt) => (answers[stmt] ? { cols: ['x'], rows: answers[stmt], rowcount: answers[stmt].length }
      : /^SELECT heap\['used'\], heap\['max'\] FROM sys\.nodes/.test(stmt)
        ? { cols: ['used', 'max'], rows: [[100 * 2 ** 20, 512 * 2 ** 20]], rowcount: 1 } : anyQueryOfATable(stmt))
  }, { nodes })
  // A query mix's SELECT on a table the node has: one row, as CrateDB answers one (the double has no query engine).
  const anyQueryOfATable = (stmt) => {
    const from = /^SELECT\b[\s\S]*?\bFROM\s+([\w."]+)/i.exec(stmt)
    const name = from ? from[1].replace(/"/g, '') : null
    const full = name && (name.includes('.') ? name : `doc.${name}`)
    return full && double.tables.has(full) ? { cols: ['x'], rows: [[1]], rowcount: 1 } : null
  }
  await double.start({ ports: [Number(settings['http.port'])] })
  // Its PostgreSQL protocol on -Cpsql.port, over the same tables.
  await require('./pg-test-double').startPgFront(double, { port: Number(settings['psql.port']) })
  console.log(`[INFO ][o.e.n.Node] [${settings['node.name']}] started on ${settings['http.port']}`)
  process.on('SIGTERM', () => double.stop().finally(() => process.exit(0)))
}

/** A node that passes every request on to the first node of its cluster (its PostgreSQL port's to the first's). */
function proxyTo (port, settings) {
  const http = require('node:http')
  const pg = require('node:net').createServer((socket) => {
    const ahead = require('node:net').connect(port + 100, '127.0.0.1')
    socket.pipe(ahead).pipe(socket)
    for (const end of [socket, ahead]) end.on('error', () => { socket.destroy(); ahead.destroy() })
  })
  pg.listen(Number(settings['psql.port']), '127.0.0.1')
  const server = http.createServer((req, res) => {
    const ahead = http.request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode, answer.headers)
        answer.pipe(res)
      })
    ahead.on('error', () => res.destroy())
    req.pipe(ahead)
  })
  server.listen(Number(settings['http.port']), '127.0.0.1', () => {
    console.log(`[INFO ][o.e.n.Node] [${settings['node.name']}] started on ${settings['http.port']}`)
  })
  process.on('SIGTERM', () => process.exit(0))
}

main(process.argv.slice(2)).catch((error) => {
  console.log(`Caused by: ${error.message}`)
  process.exit(1)
})
