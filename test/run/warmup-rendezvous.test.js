'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { WarmupRendezvous } = require('../../lib/run/warmup-rendezvous')
const { tempDir } = require('../helpers/temp-files')

test('the runs of a duet meet in their folder: each says once that it is steady, and counts who has', (t) => {
  const dir = tempDir(t)
  const a = new WarmupRendezvous({ dir, peers: 2, name: '101' })
  const b = new WarmupRendezvous({ dir, peers: 2, name: '102' })
  assert.equal(a.arrived(), 0)
  assert.equal(a.arrive({ at_ms: 21_000 }), true)
  assert.equal(a.arrive({ at_ms: 22_000 }), false, 'said once: its file is never written again')
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, '101.steady'), 'utf8')), { at_ms: 21_000 })
  // Nothing else in the folder counts: only a run's own mark.
  fs.writeFileSync(path.join(dir, 'notes.steady.txt'), '')
  assert.equal(b.arrived(), 1)
  assert.equal(b.arrive({ at_ms: 30_000 }), true)
  assert.equal(a.arrived(), 2)
})

test('a mark\'s name taken by a link is not followed: the run is left to its own cap', (t) => {
  const dir = tempDir(t)
  const target = path.join(dir, 'elsewhere')
  fs.writeFileSync(target, 'kept\n')
  fs.symlinkSync(target, path.join(dir, '103.steady'))
  assert.equal(new WarmupRendezvous({ dir, peers: 2, name: '103' }).arrive({ at_ms: 1 }), false)
  assert.equal(fs.readFileSync(target, 'utf8'), 'kept\n')
  const gone = new WarmupRendezvous({ dir: path.join(dir, 'none'), peers: 2, name: '104' })
  assert.deepEqual([gone.arrive({}), gone.arrived()], [false, 0], 'a folder that is gone: nobody arrived')
})
