'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { CpuRowGenerator, METRICS_PER_ROW } = require('../../../lib/data/generators/cpu')
const { hostTags, REGIONS, TAG_NAMES } = require('../../../lib/data/generators/tsbs-hosts')

const { START, generatorSettings } = require('../../helpers/generator-settings')

const make = (over = {}) => new CpuRowGenerator(generatorSettings(over))

test('rows have tags, ts and ten usage values in 0..100', () => {
  const rows = make().nextRows(500)
  assert.equal(rows.length, 500)
  for (const row of rows) {
    assert.equal(row.length, 2 + METRICS_PER_ROW)
    assert.deepEqual(Object.keys(row[0]).sort(), [...TAG_NAMES].sort())
    for (const v of row.slice(2)) assert.ok(Number.isInteger(v) && v >= 0 && v <= 100, `usage ${v}`)
  }
  const values = rows.flatMap((r) => r.slice(2))
  assert.ok(values.includes(0) && values.includes(100), 'both ends of 0..100 occur')
})

test('tags are fixed per host and a datacenter lies in its region', () => {
  const rows = make({ scale: 5 }).nextRows(50)
  const byHost = new Map()
  for (const [tags] of rows) {
    const seen = byHost.get(tags.hostname)
    if (seen) assert.deepEqual(tags, seen)
    else byHost.set(tags.hostname, tags)
    const region = REGIONS.find(([name]) => name === tags.region)
    assert.ok(region[1].includes(tags.datacenter), `${tags.datacenter} in ${tags.region}`)
  }
  assert.equal(byHost.size, 5)
  assert.deepEqual(hostTags(1, 3), hostTags(1, 3))
  assert.notDeepEqual(hostTags(1, 3), hostTags(2, 3))
})

test('each host advances by one interval per row it gets', () => {
  const rows = make({ scale: 3 }).nextRows(9)
  const tsOf = (host) => rows.filter(([t]) => t.hostname === host).map((r) => r[1])
  assert.deepEqual(tsOf('host_0'), [START, START + 10_000, START + 20_000])
  assert.deepEqual(tsOf('host_2'), [START, START + 10_000, START + 20_000])
})

test('rows are unique on (hostname, ts) across workers and cover the index space exactly', () => {
  const workers = 3
  const keys = new Set()
  for (let w = 0; w < workers; w++) {
    const g = make({ scale: 7, workerIndex: w, workerCount: workers })
    for (const [tags, ts] of g.nextRows(100)) keys.add(`${tags.hostname}|${ts}`)
  }
  assert.equal(keys.size, 300)
  // Global indexes 0..299 map to hosts 0..6 and steps 0..42.
  assert.ok(keys.has(`host_0|${START}`) && keys.has(`host_5|${START + 42 * 10_000}`))
})

test('the same seed gives the same rows; another seed other values', () => {
  assert.equal(make().nextRowsJson(100), make().nextRowsJson(100))
  assert.notEqual(make().nextRowsJson(100), make({ seed: 2 }).nextRowsJson(100))
  // Batch boundaries do not change the data.
  const g = make()
  assert.equal(`${g.nextRowsJson(40)},${g.nextRowsJson(60)}`, make().nextRowsJson(100))
})

test('extra tags tag_0..tag_{N-1}', () => {
  const [[tags]] = make({ extraTagsLength: 3 }).nextRows(1)
  assert.ok('tag_0' in tags && 'tag_1' in tags && 'tag_2' in tags && !('tag_3' in tags))
})

test('writeRows never writes past maxRowBytes per row', () => {
  const g = make({ scale: 4000, extraTagsLength: 5 })
  const buffer = Buffer.alloc(1000 * g.maxRowBytes)
  const end = g.writeRows(buffer, 0, 1000)
  assert.ok(end <= buffer.length)
  assert.equal(JSON.parse(`[${buffer.toString('latin1', 0, end)}]`).length, 1000)
})

test('the row bound holds for every host: no tags JSON is longer than maxHostTagsBytes', () => {
  const { maxHostTagsBytes } = require('../../../lib/data/generators/tsbs-hosts')
  for (const [scale, extra] of [[1, 0], [10_000, 0], [3000, 4]]) {
    const bound = maxHostTagsBytes(scale, extra)
    for (let h = 0; h < scale; h++) {
      const bytes = Buffer.byteLength(JSON.stringify(hostTags(7, h, extra)))
      if (bytes > bound) assert.fail(`host ${h} of ${scale}: ${bytes} bytes over the bound ${bound}`)
    }
  }
})

test('a scale of 100 million builds no host up front and keeps none: rows start at once', () => {
  const { HOST_CACHE_LIMIT } = require('../../../lib/data/generators/tsbs-hosts')
  const generator = make({ scale: 100_000_000, workerIndex: 1, workerCount: 2 })
  assert.equal(generator.hosts.cache, null, `no cache past ${HOST_CACHE_LIMIT} hosts`)
  const rows = generator.nextRows(3)
  assert.deepEqual(rows.map(([tags]) => tags.hostname), ['host_1', 'host_3', 'host_5'])
  assert.deepEqual(rows[0][0], hostTags(1, 1))
  assert.ok(make({ scale: 50 }).hosts.cache.length === 50)
})

test('HostTable.spread: at most the count asked, evenly over the whole scale, every host when the scale is small',
  () => {
  const { HostTable } = require('../../../lib/data/generators/tsbs-hosts')
  const built = []
  const hosts = new HostTable(1000, (h) => built.push(h) && h)
  assert.deepEqual(hosts.spread(4), [0, 250, 500, 750])
  assert.deepEqual(new HostTable(3, (h) => h).spread(), [0, 1, 2])
  assert.equal(new HostTable(100_000_000, (h) => h).spread().at(-1), 99_500_000)
  assert.deepEqual(built, [0, 250, 500, 750], 'only the hosts sampled are built')
})
