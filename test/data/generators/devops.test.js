'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { MEASUREMENTS, FIELD_VALUES_PER_INTERVAL, DevopsRowWriter, columnDefinitions,
  insertColumns } = require('../../../lib/data/generators/devops')
const { TAG_NAMES } = require('../../../lib/data/generators/tsbs-hosts')

const { START, generatorSettings } = require('../../helpers/generator-settings')

const measurement = (name) => MEASUREMENTS.find((m) => m.name === name)
const rowsOf = (name, count, over = {}) => {
  const writer = new DevopsRowWriter(generatorSettings({ measurement: measurement(name), ...over }))
  const buffer = Buffer.alloc(count * writer.maxRowBytes)
  const end = writer.writeRows(buffer, 0, count)
  return JSON.parse(`[${buffer.toString('latin1', 0, end)}]`)
}

test('nine measurements with TSBS\'s names and field counts: 101 field values per host and interval', () => {
  assert.deepEqual(MEASUREMENTS.map((m) => [m.name, m.fields.length]), [
    ['cpu', 10], ['mem', 9], ['disk', 7], ['diskio', 7], ['kernel', 6], ['net', 8], ['redis', 31], ['postgresl', 16],
      ['nginx', 7]
  ])
  assert.equal(FIELD_VALUES_PER_INTERVAL, 101)
  assert.deepEqual(insertColumns(measurement('kernel')), ['tags', 'ts', 'boot_time', 'interrupts', 'context_switches',
    'processes_forked', 'disk_pages_in', 'disk_pages_out'])
})

test('extra tags per measurement, in the rows and in the table definition', () => {
  const extra = { disk: ['path', 'fstype'], diskio: ['serial'], net: ['interface'], redis: ['port', 'server'],
    nginx: ['port', 'server'] }
  for (const m of MEASUREMENTS) {
    const [row] = rowsOf(m.name, 1)
    assert.deepEqual(Object.keys(row[0]).sort(), [...TAG_NAMES, ...(extra[m.name] || [])].sort(), m.name)
    assert.equal(row.length, 2 + m.fields.length, m.name)
    for (const tag of extra[m.name] || []) assert.match(columnDefinitions(m)[0], new RegExp(`"${tag}" TEXT`))
  }
  const [disk] = rowsOf('disk', 1)
  assert.match(disk[0].path, /^\/dev\/sda\d$/)
  assert.ok(['ext3', 'ext4', 'btrfs'].includes(disk[0].fstype))
  assert.match(rowsOf('diskio', 1)[0][0].serial, /^\d{3}-\d{3}-\d{3}$/)
  assert.match(rowsOf('net', 1)[0][0].interface, /^eth[0-3]$/)
})

test('values are consistent with TSBS: memory adds up, disk within 1 TiB, counters grow, integers where TSBS has int64',
  () => {
  for (const [, ts, total, available, used, free, , , usedPct, availablePct] of rowsOf('mem', 50)) {
    assert.ok([8, 12, 16].map((g) => g * 2 ** 30).includes(total))
    assert.equal(available + used, total)
    assert.equal(free, available)
    assert.ok(Math.abs(usedPct + availablePct - 100) < 1e-9)
    assert.ok(ts >= START)
  }
  for (const [, , total, free, used, , inodesTotal, inodesFree, inodesUsed] of rowsOf('disk', 50)) {
    assert.equal(total, 2 ** 40)
    assert.equal(free + used, total)
    assert.equal(inodesFree + inodesUsed, inodesTotal)
  }
  // Host 0 at steps 0 and 1 (scale 10: rows 0 and 10): counters do not go back.
  const net = rowsOf('net', 20)
  for (let f = 2; f < 10; f++) assert.ok(net[10][f] >= net[0][f], `net field ${f}`)
  const redis = rowsOf('redis', 20)
  assert.equal(redis[0][2], 0)
  assert.equal(redis[10][2], 10, 'uptime_in_seconds follows the interval')
  for (const name of ['diskio', 'kernel', 'net', 'redis', 'postgresl', 'nginx', 'cpu']) {
    for (const row of rowsOf(name, 20)) assert.ok(row.slice(2).every(Number.isSafeInteger), name)
  }
})

test('rows are unique on (host, ts) across workers, and the same seed gives the same rows', () => {
  const seen = new Set()
  for (let w = 0; w < 3; w++) {
    for (const [tags, ts] of rowsOf('nginx', 40, { workerIndex: w, workerCount: 3 })) seen.add(`${tags.hostname}|${ts}`)
  }
  assert.equal(seen.size, 120)
  assert.deepEqual(rowsOf('redis', 5), rowsOf('redis', 5))
  assert.notDeepEqual(rowsOf('redis', 5), rowsOf('redis', 5, { seed: 2 }))
})

test('writeRows stays within maxRowBytes per row', () => {
  for (const m of MEASUREMENTS) {
    const writer = new DevopsRowWriter(generatorSettings({ measurement: m, seed: 3, scale: 100 }))
    const buffer = Buffer.alloc(200 * writer.maxRowBytes)
    const end = writer.writeRows(buffer, 0, 200)
    assert.ok(end <= 200 * writer.maxRowBytes, m.name)
  }
})
