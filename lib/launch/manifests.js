'use strict'

const crypto = require('node:crypto')
const path = require('node:path')

// The Kubernetes objects of a fleet, as plain objects (printed as YAML by manifest-command.js; validated against the
// Kubernetes schemas in the tests). One Indexed Job runs every generator: each pod is generator
// JOB_COMPLETION_INDEX + 1 of N (`--generators N`), so one pod template serves them all.

const METRICS_PORT = 9464
const CONFIG_DIR = '/etc/crate-bench'
const PASSWORD_PLACEHOLDER = 'REPLACE-WITH-THE-PASSWORD'

/**
 * A name Kubernetes takes (DNS-1123 label): lower case, digits and '-', at most 52 characters (Job + suffix). Where
 * the text had to change, a short hash of it follows, so that two run ids never share their objects' names
 * (Rack_1:A and rack-1-a).
 */
function dnsName (text) {
  const name = String(text).toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '')
  if (name === text && name.length <= 52) return name
  const hash = crypto.createHash('sha256').update(String(text)).digest('hex').slice(0, 8)
  return `${(name.slice(0, 43).replace(/-+$/, '') || 'crate-bench')}-${hash}`
}

/** A ConfigMap key Kubernetes takes ([-._a-zA-Z0-9]+, at most 253): the queries file's name, made one. */
function configKey (fileName) {
  const key = String(fileName).replace(/[^-._a-zA-Z0-9]+/g, '_').replace(/^\.+$/, '_').slice(-200)
  return key || 'queries.yml'
}

/**
 * @param {object} fleet { workload, generators, runId, shared (each generator's flags), processes, image,
 *        namespace, crate: { host, port, ssl, user }, queriesFile: { name, text } | null }
 * @returns {object[]} Secret, ConfigMap, Job and the PodMonitor
 */
function fleetManifests (fleet) {
  const name = dnsName(`crate-bench-${fleet.runId}`)
  const labels = { 'app.kubernetes.io/name': 'crate-bench', 'app.kubernetes.io/instance': name }
  const metadata = (suffix) => ({ name: `${name}${suffix}`, namespace: fleet.namespace, labels })
  const processes = fleet.processes
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: metadata('-credentials'),
    type: 'Opaque',
    // The password is never printed: a placeholder to replace before applying (see the comment above the manifests).
    stringData: { CRATE_USER: fleet.crate.user, CRATE_PASSWORD: PASSWORD_PLACEHOLDER }
  }
  const configMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: metadata('-config'),
    data: {
      CRATE_HOST: fleet.crate.host,
      CRATE_PORT: String(fleet.crate.port),
      CRATE_SSL: String(fleet.crate.ssl),
      CRATE_PROTOCOL: fleet.crate.protocol ?? 'http',
      ...(fleet.crate.pgPort ? { CRATE_PG_PORT: String(fleet.crate.pgPort) } : {}),
      ...(fleet.queriesFile ? { [configKey(fleet.queriesFile.name)]: fleet.queriesFile.text } : {})
    }
  }
  const fromConfig = (key) => ({ name: key, valueFrom: { configMapKeyRef: { name: configMap.metadata.name, key } } })
  const fromSecret = (key) => ({ name: key, valueFrom: { secretKeyRef: { name: secret.metadata.name, key } } })
  const container = {
    name: 'generator',
    image: fleet.image,
    args: [fleet.workload, ...fleet.shared, '--generators', String(fleet.generators), '--metrics_port',
      String(METRICS_PORT), '--metrics_host', '0.0.0.0'],
    env: [fromConfig('CRATE_HOST'), fromConfig('CRATE_PORT'), fromConfig('CRATE_SSL'), fromConfig('CRATE_PROTOCOL'),
      ...(fleet.crate.pgPort ? [fromConfig('CRATE_PG_PORT')] : []), fromSecret('CRATE_USER'),
      fromSecret('CRATE_PASSWORD')],
    ports: [{ name: 'metrics', containerPort: METRICS_PORT }],
    // One core per worker process, and the master's share: the client must not be the bottleneck.
    resources: {
      requests: { cpu: String(processes), memory: `${256 * processes + 128}Mi` },
      limits: { memory: `${512 * processes + 256}Mi` }
    },
    securityContext: { runAsNonRoot: true, allowPrivilegeEscalation: false, readOnlyRootFilesystem: true }
  }
  const podSpec = { restartPolicy: 'Never', containers: [container] }
  if (fleet.queriesFile) {
    container.volumeMounts = [{ name: 'config', mountPath: CONFIG_DIR, readOnly: true }]
    podSpec.volumes = [{ name: 'config', configMap: { name: configMap.metadata.name,
      items: [{ key: configKey(fleet.queriesFile.name), path: configKey(fleet.queriesFile.name) }] } }]
  }
  const job = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: metadata('-generators'),
    spec: {
      completionMode: 'Indexed',
      completions: fleet.generators,
      parallelism: fleet.generators,
      // A generator that fails is not started again: a run that has begun cannot take it back.
      backoffLimit: fleet.generators,
      podFailurePolicy: {
        rules: [
          // Bad options (2) or a run that could not run (3): the fleet cannot succeed; stop every generator.
          { action: 'FailJob', onExitCodes: { containerName: 'generator', operator: 'In', values: [2, 3] } },
          // A node drained or a pod preempted before the start: its replacement takes its place at the barrier.
          { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }
        ]
      },
      template: {
        metadata: {
          labels,
          annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(METRICS_PORT),
            'prometheus.io/path': '/metrics' }
        },
        spec: podSpec
      }
    }
  }
  const podMonitor = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PodMonitor',
    metadata: metadata('-metrics'),
    spec: {
      selector: { matchLabels: labels },
      podMetricsEndpoints: [{ port: 'metrics', path: '/metrics', interval: '5s' }]
    }
  }
  return [secret, configMap, job, podMonitor]
}

/** A --queries_config file travels in the ConfigMap; the generators read it from the mounted directory. */
function mountedQueriesPath (file) {
  return path.posix.join(CONFIG_DIR, configKey(path.basename(file)))
}

module.exports = { fleetManifests, mountedQueriesPath, dnsName, configKey, METRICS_PORT, PASSWORD_PLACEHOLDER }
