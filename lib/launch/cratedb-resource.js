'use strict'

const { UsageError } = require('../base/errors')
const { heapSize } = require('../provision/preflight')

// The cluster under test on Kubernetes: a `CrateDB` resource of the CrateDB operator (group cloud.crate.io), from
// the options that start one on this machine (--start_cluster N, --crate_version, --crate_heap, --crate_setting) and
// the pod's size (--crate_cpus, --crate_disk, --crate_storage_class). The operator gives a node the heap of its
// memory limit times heapRatio: the limit is the heap asked for, over that ratio.

const HEAP_RATIO = 0.5
const GI = 1024 ** 3
const MI = 1024 ** 2

/** "2g" as the memory a pod needs for that heap at HEAP_RATIO: "4Gi" (Mi below a whole Gi). */
function memoryFor (heap) {
  const bytes = heapSize(heap, '--crate_heap').bytes / HEAP_RATIO
  return bytes % GI === 0 ? `${bytes / GI}Gi` : `${Math.ceil(bytes / MI)}Mi`
}

/**
 * The CrateDB resource `name` in `namespace`: `nodes` data nodes of `version`, each `cpus` cores and the memory its
 * `heap` needs, one disk of `disk` of `storageClass`, `settings` ([key, value]) for every node.
 */
function crateDbResource ({ name, namespace, labels, nodes, version, heap = '1g', cpus = 2, disk = '100Gi',
  storageClass = 'default', settings = [] }) {
  if (!version) {
    throw new UsageError('a CrateDB resource needs --crate_version X.Y.Z (the operator runs CrateDB\'s images; a ' +
      'tarball is for this machine)')
  }
  if (!/^[0-9]+\.[0-9]+\.[0-9]+$/.test(version)) {
    throw new UsageError(`--crate_version must be X.Y.Z (got '${version}')`)
  }
  const cores = Number(cpus)
  if (!(cores > 0)) throw new UsageError(`--crate_cpus must be a number of cores above 0 (got '${cpus}')`)
  if (!/^[1-9][0-9]*(Gi|Ti|Mi)$/.test(String(disk))) {
    throw new UsageError(`--crate_disk must be a Kubernetes size such as 100Gi (got '${disk}')`)
  }
  const memory = memoryFor(heap)
  return {
    apiVersion: 'cloud.crate.io/v1',
    kind: 'CrateDB',
    metadata: { name, namespace, labels },
    spec: {
      cluster: { imageRegistry: 'crate', name, version, ...(settings.length ? { settings: Object.fromEntries(
        settings) } : {}) },
      nodes: {
        data: [{
          name: 'hot',
          replicas: nodes,
          resources: {
            heapRatio: HEAP_RATIO,
            requests: { cpu: cores, memory },
            limits: { cpu: cores, memory },
            disk: { count: 1, size: String(disk), storageClass: String(storageClass) }
          }
        }]
      }
    }
  }
}

/** The address the generators reach the operator's cluster at: its Service crate-NAME in the namespace. */
const serviceHost = (name, namespace) => `crate-${name}.${namespace}.svc`

module.exports = { crateDbResource, memoryFor, serviceHost, HEAP_RATIO }
