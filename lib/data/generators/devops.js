'use strict'

const { Random } = require('../../base/random')
const { hostTags, maxHostTagsBytes, HostTable, TAG_NAMES } = require('./tsbs-hosts')
const { USAGE_COLUMNS } = require('./cpu')
const { writeLatin1Cell } = require('../pg-batch-rows')

// The TSBS devops data set: nine measurements per host and interval, 101 field values in all,
// with TSBS's names, types and extra tags. Values are seeded draws in TSBS's ranges: counters
// grow with time like TSBS's monotonic walks, gauges stay within TSBS's clamps.

const GIB = 2 ** 30
const TIB = 2 ** 40
const INODE_BYTES = 4096

const counter = (name, perStep) => ({ name, type: 'BIGINT', value: (r, step) => step * perStep + r.int(perStep + 1) })
const gauge = (name, max) => ({ name, type: 'BIGINT', value: (r) => r.int(max + 1) })

const MEASUREMENTS = [
  {
    name: 'cpu',
    fields: USAGE_COLUMNS.map((name) => ({ name, type: 'INTEGER', value: (r) => r.int(101) }))
  },
  {
    name: 'mem',
    // total is fixed per host; the rest follow from used, cached and buffered as in TSBS.
    hostExtra: (r) => ({ total: [8, 12, 16][r.int(3)] * GIB }),
    fields: ['total', 'available', 'used', 'free', 'cached', 'buffered']
      .map((name) => ({ name, type: 'BIGINT' }))
      .concat(
        ['used_percent', 'available_percent', 'buffered_percent'].map((name) => ({ name, type: 'DOUBLE PRECISION' }))
      ),
    values: (r, step, host) => {
      const total = host.total
      const used = r.int(total)
      const cached = r.int(total)
      const buffered = r.int(total)
      const available = total - used
      return [
        total,
        available,
        used,
        available,
        cached,
        buffered,
        (100 * used) / total,
        (100 * available) / total,
        (100 * buffered) / total
      ]
    }
  },
  {
    name: 'disk',
    tags: (r) => ({ path: `/dev/sda${r.int(10)}`, fstype: ['ext3', 'ext4', 'btrfs'][r.int(3)] }),
    fields: ['total', 'free', 'used', 'used_percent', 'inodes_total', 'inodes_free', 'inodes_used'].map((name) => ({
      name,
      type: 'BIGINT'
    })),
    values: (r) => {
      const free = r.int(TIB)
      const used = TIB - free
      return [
        TIB,
        free,
        used,
        Math.floor((100 * used) / TIB),
        TIB / INODE_BYTES,
        Math.floor(free / INODE_BYTES),
        TIB / INODE_BYTES - Math.floor(free / INODE_BYTES)
      ]
    }
  },
  {
    name: 'diskio',
    tags: (r) => ({ serial: `${pad3(r.int(1000))}-${pad3(r.int(1000))}-${pad3(r.int(1000))}` }),
    fields: [
      counter('reads', 50),
      counter('writes', 50),
      counter('read_bytes', 100),
      counter('write_bytes', 100),
      counter('read_time', 5),
      counter('write_time', 5),
      counter('io_time', 5)
    ]
  },
  {
    name: 'kernel',
    hostExtra: (r) => ({ bootTime: r.int(240) }),
    fields: [
      { name: 'boot_time', type: 'BIGINT', value: (r, step, host) => host.bootTime },
      counter('interrupts', 5),
      counter('context_switches', 5),
      counter('processes_forked', 5),
      counter('disk_pages_in', 5),
      counter('disk_pages_out', 5)
    ]
  },
  {
    name: 'net',
    tags: (r) => ({ interface: `eth${r.int(4)}` }),
    fields: [
      counter('bytes_sent', 50),
      counter('bytes_recv', 50),
      counter('packets_sent', 50),
      counter('packets_recv', 50),
      counter('err_in', 5),
      counter('err_out', 5),
      counter('drop_in', 5),
      counter('drop_out', 5)
    ]
  },
  {
    name: 'redis',
    tags: (r) => ({ port: String(1024 + r.int(20000)), server: `redis_${r.int(100000)}` }),
    fields: [
      { name: 'uptime_in_seconds', type: 'BIGINT', value: (r, step, host, intervalSeconds) => step * intervalSeconds },
      counter('total_connections_received', 5),
      counter('expired_keys', 50),
      counter('evicted_keys', 50),
      counter('keyspace_hits', 50),
      counter('keyspace_misses', 50),
      gauge('instantaneous_ops_per_sec', 10),
      gauge('instantaneous_input_kbps', 10),
      gauge('instantaneous_output_kbps', 10),
      gauge('connected_clients', 10000),
      gauge('used_memory', 16 * GIB),
      gauge('used_memory_rss', 16 * GIB),
      gauge('used_memory_peak', 16 * GIB),
      gauge('used_memory_lua', 16 * GIB),
      gauge('rdb_changes_since_last_save', 10000),
      ...[
        'sync_full',
        'sync_partial_ok',
        'sync_partial_err',
        'pubsub_channels',
        'pubsub_patterns',
        'latest_fork_usec',
        'connected_slaves',
        'master_repl_offset',
        'repl_backlog_active',
        'repl_backlog_size',
        'repl_backlog_histlen'
      ].map((name) => gauge(name, 1000)),
      gauge('mem_fragmentation_ratio', 100),
      ...['used_cpu_sys', 'used_cpu_user', 'used_cpu_sys_children', 'used_cpu_user_children'].map((name) =>
        gauge(name, 1000)
      )
    ]
  },
  {
    // TSBS spells the measurement "postgresl"; kept, so queries written for TSBS find it.
    name: 'postgresl',
    fields: [
      'numbackends',
      'xact_commit',
      'xact_rollback',
      'blks_read',
      'blks_hit',
      'tup_returned',
      'tup_fetched',
      'tup_inserted',
      'tup_updated',
      'tup_deleted',
      'conflicts',
      'temp_files'
    ]
      .map((name) => gauge(name, 1000))
      .concat([
        gauge('temp_bytes', GIB),
        gauge('deadlocks', 1000),
        gauge('blk_read_time', 1000),
        gauge('blk_write_time', 1000)
      ])
  },
  {
    name: 'nginx',
    tags: (r) => ({ port: String(1024 + r.int(20000)), server: `nginx_${r.int(100000)}` }),
    fields: [
      counter('accepts', 5),
      gauge('active', 100),
      counter('handled', 5),
      gauge('reading', 100),
      counter('requests', 5),
      gauge('waiting', 100),
      gauge('writing', 100)
    ]
  }
]

function pad3 (n) {
  return String(n).padStart(3, '0')
}

const FIELD_VALUES_PER_INTERVAL = MEASUREMENTS.reduce((sum, m) => sum + m.fields.length, 0)

function extraTagNames (measurement) {
  return measurement.tags ? Object.keys(measurement.tags(new Random(0, 'names'), 0)) : []
}

/** CREATE TABLE columns: the host tags plus the measurement's own tags, ts, then its fields. */
function columnDefinitions (measurement) {
  const tagColumns = [...TAG_NAMES, ...extraTagNames(measurement)].map((name) => `"${name}" TEXT`).join(', ')
  return [
    `"tags" OBJECT(DYNAMIC) AS (${tagColumns})`,
    '"ts" TIMESTAMP WITH TIME ZONE',
    ...measurement.fields.map((f) => `"${f.name}" ${f.type}`)
  ]
}

const insertColumns = (measurement) => ['tags', 'ts', ...measurement.fields.map((f) => f.name)]

/**
 * Rows of one measurement for one worker, with the cpu model's index mapping: row k of worker w
 * is host (k * workers + w) mod scale at step floor((k * workers + w) / scale), so rows are
 * unique on (host, ts) in every table and the nine tables advance through the same hosts.
 */
const MEASUREMENT_TAGS_MAX_BYTES = 64

class DevopsRowWriter {
  constructor ({ measurement, seed, scale, workerIndex, workerCount, startMs, intervalMs }) {
    this.measurement = measurement
    this.scale = scale
    this.stride = workerCount
    this.index = workerIndex
    this.startMs = startMs
    this.intervalMs = intervalMs
    this.random = new Random(seed, 'devops', measurement.name, workerIndex)
    // Built on first use: start-up does not grow with --scale.
    this.hosts = new HostTable(scale, (h) => {
      const r = new Random(seed, 'devops-host', measurement.name, h)
      const tags = { ...hostTags(seed, h), ...(measurement.tags ? measurement.tags(r, h) : {}) }
      return { tagsJson: JSON.stringify(tags), ...(measurement.hostExtra ? measurement.hostExtra(r) : {}) }
    })
    // The host tags at their longest, and the measurement's own tags (a path, a serial, a server
    // name: at most 40 characters of values and keys beyond the host's).
    const longest = maxHostTagsBytes(scale) + MEASUREMENT_TAGS_MAX_BYTES
    // Tags, a 15-digit timestamp and every field at its widest (20 digits or a double).
    this.maxRowBytes = longest + 20 + measurement.fields.length * 25 + 4
    // The longest tags of hosts spread over the scale.
    const spreadLongest = Math.max(...this.hosts.spread().map((host) => host.tagsJson.length))
    this.typicalRowBytes = spreadLongest + 16 + measurement.fields.length * 8
  }

  writeRows (buffer, offset, count) {
    let pos = offset
    for (let n = 0; n < count; n++) {
      const { host, ts, values } = this.nextRow()
      pos += buffer.write(`${n > 0 ? ',' : ''}[${host.tagsJson},${ts},${values.join(',')}]`, pos, 'latin1')
    }
    return pos
  }

  /** The same rows as Bind and Execute messages of `frame` (lib/data/pg-batch-rows.js). */
  writeBatchRows (buffer, offset, count, frame) {
    let pos = offset
    for (let n = 0; n < count; n++) {
      const { host, ts, values } = this.nextRow()
      const start = pos
      pos = frame.openRow(buffer, pos)
      pos = writeLatin1Cell(buffer, pos, host.tagsJson)
      pos = writeLatin1Cell(buffer, pos, String(ts))
      for (const value of values) pos = writeLatin1Cell(buffer, pos, String(value))
      pos = frame.closeRow(buffer, start, pos)
    }
    return pos
  }

  /** The next row's host, timestamp and field values. */
  nextRow () {
    const m = this.measurement
    const i = this.index
    this.index = i + this.stride
    const step = Math.floor(i / this.scale)
    const host = this.hosts.get(i % this.scale)
    const values = m.values
      ? m.values(this.random, step, host)
      : m.fields.map((f) => f.value(this.random, step, host, this.intervalMs / 1000))
    return { host, ts: this.startMs + step * this.intervalMs, values }
  }
}

module.exports = {
  MEASUREMENTS,
  FIELD_VALUES_PER_INTERVAL,
  DevopsRowWriter,
  columnDefinitions,
  insertColumns,
  extraTagNames
}
