'use strict'

const { userOf } = require('../../lib/provision/preflight')

/**
 * Another user for the tests of what root may do on a shared machine: `nobody`, standing for `who` (a co-tenant, the
 * nodes' user). { root, other, skip }: `skip` says why such a test cannot run here (not root, no nobody), printed
 * once as the visible skip line of `tests`.
 */
function otherUser ({ who, tests }) {
  const root = Boolean(process.getuid && process.getuid() === 0)
  const other = userOf('nobody')
  const skip = !root ? 'not root: chown needs root' : !other ? `no user nobody to stand for ${who}` : null
  if (skip) console.log(`# ${skip}: ${tests} skip`)
  return { root, other, skip }
}

module.exports = { otherUser }
