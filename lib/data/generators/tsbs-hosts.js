'use strict'

const { Random } = require('../../base/random')

// The TSBS devops host model: tags are fixed per host, and a datacenter always lies in its region.
const REGIONS = [
  ['us-east-1', ['us-east-1a', 'us-east-1b', 'us-east-1c', 'us-east-1e']],
  ['us-west-1', ['us-west-1a', 'us-west-1b']],
  ['us-west-2', ['us-west-2a', 'us-west-2b', 'us-west-2c']],
  ['eu-west-1', ['eu-west-1a', 'eu-west-1b', 'eu-west-1c']],
  ['eu-central-1', ['eu-central-1a', 'eu-central-1b']],
  ['ap-southeast-1', ['ap-southeast-1a', 'ap-southeast-1b']],
  ['ap-southeast-2', ['ap-southeast-2a', 'ap-southeast-2b']],
  ['ap-northeast-1', ['ap-northeast-1a', 'ap-northeast-1c']],
  ['sa-east-1', ['sa-east-1a', 'sa-east-1b', 'sa-east-1c']]
]
const TEAMS = ['SF', 'NYC', 'LON', 'CHI']
const OPERATING_SYSTEMS = ['Ubuntu16.10', 'Ubuntu16.04LTS', 'Ubuntu15.10']
const ARCHITECTURES = ['x64', 'x86']
const SERVICE_ENVIRONMENTS = ['production', 'staging', 'test']
const RACKS_PER_DATACENTER = 100
const SERVICES = 20
const SERVICE_VERSIONS = 2

const TAG_NAMES = [
  'arch',
  'datacenter',
  'hostname',
  'os',
  'rack',
  'region',
  'service',
  'service_environment',
  'service_version',
  'team'
]

/**
 * The tags of host number `index`. They depend only on the seed and the index, so every worker
 * (and the query generators of the analytical benchmark) derive the same host without talking.
 */
function hostTags (seed, index, extraTagsLength = 0) {
  const random = new Random(seed, 'host', index)
  const [region, datacenters] = random.pick(REGIONS)
  const tags = {
    hostname: `host_${index}`,
    region,
    datacenter: random.pick(datacenters),
    rack: String(random.int(RACKS_PER_DATACENTER)),
    os: random.pick(OPERATING_SYSTEMS),
    arch: random.pick(ARCHITECTURES),
    team: random.pick(TEAMS),
    service: String(random.int(SERVICES)),
    service_version: String(random.int(SERVICE_VERSIONS)),
    service_environment: random.pick(SERVICE_ENVIRONMENTS)
  }
  for (let i = 0; i < extraTagsLength; i++) tags[`tag_${i}`] = `v${random.int(1000)}`
  return tags
}

const longest = (values) => values.reduce((a, b) => (b.length > a.length ? b : a), '')

/**
 * The most bytes the tags JSON of any host of `scale` can take: every tag at its longest value,
 * in hostTags' key order. Request buffers are sized from it, so it must never be exceeded.
 */
function maxHostTagsBytes (scale, extraTagsLength = 0) {
  const tags = {
    hostname: `host_${scale - 1}`,
    region: longest(REGIONS.map(([r]) => r)),
    datacenter: longest(REGIONS.flatMap(([, d]) => d)),
    rack: String(RACKS_PER_DATACENTER - 1),
    os: longest(OPERATING_SYSTEMS),
    arch: longest(ARCHITECTURES),
    team: longest(TEAMS),
    service: String(SERVICES - 1),
    service_version: String(SERVICE_VERSIONS - 1),
    service_environment: longest(SERVICE_ENVIRONMENTS)
  }
  for (let i = 0; i < extraTagsLength; i++) tags[`tag_${i}`] = 'v999'
  return Buffer.byteLength(JSON.stringify(tags))
}

// Hosts whose tags are kept once built. Past this many, each row builds its host's tags again:
// a run at --scale 100,000,000 must neither build a hundred million hosts before its first
// request nor keep the ones it met (rows go through the hosts in order, so none comes back soon).
const HOST_CACHE_LIMIT = 100_000

/** Host h's value, built on first use by `build(h)`, kept when the scale is small enough. */
class HostTable {
  constructor (scale, build) {
    this.scale = scale
    this.build = build
    this.cache = scale <= HOST_CACHE_LIMIT ? new Array(scale) : null
  }

  get (h) {
    if (this.cache === null) return this.build(h)
    return this.cache[h] ?? (this.cache[h] = this.build(h))
  }

  /**
   * At most `count` hosts spread evenly over the whole scale, whose names have the lengths of most
   * hosts': what request buffers are sized from (an estimate below the rows makes them grow and churn).
   */
  spread (count = 200) {
    const sampled = Math.min(this.scale, count)
    return Array.from({ length: sampled }, (_, k) => this.get(Math.floor((k * this.scale) / sampled)))
  }
}

module.exports = {
  REGIONS,
  TEAMS,
  OPERATING_SYSTEMS,
  ARCHITECTURES,
  SERVICE_ENVIRONMENTS,
  TAG_NAMES,
  HOST_CACHE_LIMIT,
  hostTags,
  maxHostTagsBytes,
  HostTable
}
