'use strict'

const { UsageError } = require('../../base/errors')
const { REGIONS, SERVICE_ENVIRONMENTS } = require('./tsbs-hosts')
const { parseDuration } = require('../../base/values')
const { kvKey, KV_KEY_MIN_BYTES } = require('./strings')

const VALUE_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-'

function byteCount (params, fallback, min, what, where) {
  const bytes = params && params.bytes !== undefined ? params.bytes : fallback
  if (!Number.isSafeInteger(bytes) || bytes < min) {
    throw new UsageError(`${where}: ${what} bytes must be a whole number of at least ${min} (got ${bytes})`)
  }
  return bytes
}

const DATACENTERS = REGIONS.flatMap(([, datacenters]) => datacenters)

/**
 * Per-execution query parameters drawn from the same TSBS data model the ingest writes.
 * An arg is a literal, or an object with one key naming a generator:
 *   {hostname: {}}                a host of --scale, host_0 .. host_{scale-1}
 *   {region: {}}, {datacenter: {}}, {service_environment: {}}
 *   {int: {min: 1, max: 10}}      an integer in [min, max]
 *   {timestamp: {last: '1h'}}     an ISO time within the last hour of the data (before --data_end)
 *   {choice: [a, b, c]}           one of the listed values
 *   {kv_key: {bytes: 40}}         a key the kv ingest model wrote (--kv_keys, or count(*) of --table)
 *   {kv_value: {bytes: 16}}       a random value of that many characters
 * The values go to the server as args, never into the SQL text.
 */
// No prototype: a YAML key such as `constructor` or `__proto__` must not find a generator.
const GENERATORS = Object.assign(Object.create(null), {
  hostname: (_params, ctx) => (random) => `host_${random.int(ctx.scale)}`,
  region: () => (random) => REGIONS[random.int(REGIONS.length)][0],
  datacenter: () => (random) => DATACENTERS[random.int(DATACENTERS.length)],
  service_environment: () => (random) => SERVICE_ENVIRONMENTS[random.int(SERVICE_ENVIRONMENTS.length)],
  int: (params, _ctx, where) => {
    const { min, max } = params || {}
    if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || min > max) {
      throw new UsageError(`${where}: int needs whole numbers min <= max, e.g. {int: {min: 1, max: 10}}`)
    }
    return (random) => random.intBetween(min, max)
  },
  timestamp: (params, ctx, where) => {
    const last = params && params.last
    if (last === undefined) throw new UsageError(`${where}: timestamp needs last, e.g. {timestamp: {last: 1h}}`)
    let spanMs
    try {
      spanMs = parseDuration(last, 'last')
    } catch {
      throw new UsageError(`${where}: timestamp last must be a duration such as 15m or 6h (got '${last}')`)
    }
    ctx.needsDataEnd = true
    return (random) => new Date(ctx.dataEndMs - Math.floor(random.next() * spanMs)).toISOString()
  },
  kv_key: (params, ctx, where) => {
    const bytes = byteCount(params, 40, KV_KEY_MIN_BYTES, 'kv_key', where)
    ctx.needsKvKeys = true
    return (random) => kvKey(random.int(ctx.kvKeys), bytes)
  },
  kv_value: (params, _ctx, where) => {
    const bytes = byteCount(params, 16, 1, 'kv_value', where)
    return (random) => {
      let value = ''
      for (let i = 0; i < bytes; i++) value += VALUE_ALPHABET[random.nextUint32() & 63]
      return value
    }
  },
  choice: (params, _ctx, where) => {
    if (!Array.isArray(params) || params.length === 0) throw new UsageError(`${where}: choice needs a non-empty list`)
    return (random) => params[random.int(params.length)]
  }
})

function isLiteral (value) {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value) || Array.isArray(value)
}

/**
 * Compiles the arg specs of one query into a function random -> values. `ctx` carries the data
 * model (scale, dataEndMs); compiling with ctx.dataEndMs unset records whether a data end is needed.
 */
function compileArgs (specs, ctx, where) {
  if (specs === undefined || specs === null) return () => undefined
  if (!Array.isArray(specs)) throw new UsageError(`${where}: args must be a list`)
  const makers = specs.map((spec, i) => {
    if (isLiteral(spec)) return () => spec
    const keys = Object.keys(spec)
    const at = `${where}, arg ${i + 1}`
    if (keys.length !== 1 || !GENERATORS[keys[0]]) {
      throw new UsageError(
        `${at}: unknown arg generator '${keys.join(', ')}' (known: ${Object.keys(GENERATORS).join(', ')})`
      )
    }
    return GENERATORS[keys[0]](spec[keys[0]], ctx, at)
  })
  return (random) => makers.map((make) => make(random))
}

module.exports = { compileArgs, GENERATORS }
