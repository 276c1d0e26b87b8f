'use strict'

// crate-bench study on the real distribution (CRATE_TEST_TARBALL, CRATE_BENCH_CACHE as the provisioner's test has
// them): a short study of one node and three, each started fresh, measured and stopped, then sized.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { runTool } = require('../helpers/run-tool')
const { assertSizingExit } = require('../helpers/sizing-exit')
const { tempDir } = require('../helpers/temp-files')
const { freeClusterPort } = require('../helpers/ports')
const { openDir } = require('../helpers/fake-distribution')
const { figureCellOf } = require('../../lib/reports/sizing/evidence')

const tarball = process.env.CRATE_TEST_TARBALL
const SKIP = tarball && fs.existsSync(tarball) ? false
  : 'CRATE_TEST_TARBALL does not name a CrateDB tarball: the study on a real distribution skipped'
if (SKIP) console.log(`# ${SKIP}`)

test('a short study of 1 and 3 nodes of the real distribution: each shape fresh, measured, stopped, sized',
  { skip: SKIP, timeout: 600_000 }, async (t) => {
    const root = openDir(tempDir(t))
    const port = await freeClusterPort(3)
    const file = path.join(root, 'study.yml')
    fs.writeFileSync(file, `cluster: {tarball: ${path.resolve(tarball)}, nodes: [1, 3], heap: 384m, http_port: ${port}}
grid:
  vary: {batch_size: [1000, 5000], concurrent_requests: [1, 2]}
  repeat: 1
  duration: 2s
  warmup: 1s
  args: [--processes, '1', --monitor_interval, '1s']
sustained: {duration: 3s, args: [--processes, '1']}
`)
    const out = path.join(root, 'out')
    const env = { CRATE_BENCH_CACHE: process.env.CRATE_BENCH_CACHE }
    const run = await runTool('bin/crate-bench.js', ['study', file, '--out', out], { env, timeoutMs: 540_000 })
    assertSizingExit(run, out)
    const sizing = JSON.parse(fs.readFileSync(path.join(out, 'sizing.json'), 'utf8'))
    const shapes = sizing.groups[0].shapes
    assert.deepEqual(shapes.map((s) => s.nodes), [1, 3])
    assert.equal(sizing.started['3-nodes'].nodes, 3)
    assert.match(sizing.started['3-nodes'].build_hash, /^[0-9a-f]{40}$/)
    for (const s of shapes) {
      // On a loaded machine every run of a shape may be left out (too short for a steady rate, the load generator the
      // limit): then the sizing names each one and why, and offers no figure (CI beside four busy loops: 3 nodes).
      if (s.best === null) {
        assert.ok(s.excluded.every((e) => /too short for a steady rate|the load generator was the limit/.test(e.why)),
          JSON.stringify(s))
      }
      if (s.best !== null) assert.ok(s.best.per_sec > 0, JSON.stringify(s.best))
    }
    assert.match(sizing.study_caveats[0], /^3 nodes on one \d+-core machine/)
    // What was measured heads the page: the real distribution's version, build and hash (issue 62).
    assert.deepEqual(sizing.measured.crate.map((c) => c.version), ['6.4.3'])
    assert.match(fs.readFileSync(path.join(out, 'sizing.html'), 'utf8'), /CrateDB 6\.4\.3, build [0-9a-f]{40}/)
    // The sustained run at the cell the grid's figure to plan with stands on (its recommended cell where it has one,
    // else the best bounded of the cells equivalent within noise: which one depends on this run's figures), with the
    // grid's args (--processes 1, --monitor_interval 1s).
    for (const shape of ['1-node', '3-nodes']) {
      const grid = JSON.parse(fs.readFileSync(path.join(out, shape, 'grid', 'grid.json'), 'utf8'))
      const figure = figureCellOf(grid)
      assert.ok(figure, `${shape}: the grid has a cell to plan with`)
      const cell = figure.cell.settings
      const o = JSON.parse(fs.readFileSync(path.join(out, shape, 'sustained.json'), 'utf8')).options
      assert.deepEqual([o.batch_size, o.concurrent_requests, o.processes], [cell.batch_size, cell.concurrent_requests,
        1], `${shape} (${figure.which})`)
    }
    // Every cluster of the study stopped (CI's own servers, in the same cache's registry, still run).
    const listed = await runTool('bin/crate-bench.js', ['cluster', 'list'], { env })
    for (const shape of ['1-node', '3-nodes']) {
      assert.ok(!listed.stdout.includes(sizing.started[shape].name), `${shape}'s cluster stopped:\n${listed.stdout}`)
    }
    console.log(`# ${run.stderr.split('\n').filter((l) => /^(study:|\[shape \d of 2: \d nodes?\] (grid|sustained):)/
      .test(l)).join(' | ')}`)
  })
