'use strict'

// The Kubernetes manifests of a fleet, validated against the Kubernetes schemas that kubernetes-models ships (and
// the Prometheus operator's for the PodMonitor): nothing is fetched at test time. The committed example in
// deploy/kubernetes/ must be what its command prints today.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const yaml = require('js-yaml')
const { spawnSync } = require('node:child_process')
const { runTool, ROOT } = require('../helpers/run-tool')
const { tempDir } = require('../helpers/temp-files')

async function validators () {
  const { Job } = await import('kubernetes-models/batch/v1/Job')
  const { Secret } = await import('kubernetes-models/v1/Secret')
  const { ConfigMap } = await import('kubernetes-models/v1/ConfigMap')
  const { PodMonitor } = await import('@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor')
  return { Job, Secret, ConfigMap, PodMonitor }
}

async function validateAll (text) {
  const kinds = await validators()
  const docs = yaml.loadAll(text).filter(Boolean)
  for (const doc of docs) {
    assert.ok(kinds[doc.kind], `a validator for ${doc.kind}`)
    new kinds[doc.kind](doc).validate()
  }
  return Object.fromEntries(docs.map((d) => [d.kind, d]))
}

test('the committed example is what its command prints, and every manifest in it is valid', async () => {
  const file = path.join(ROOT, 'deploy', 'kubernetes', 'fleet-ingest.yaml')
  const text = fs.readFileSync(file, 'utf8')
  const command = /^# made by: crate-bench (fleet manifest .*)$/m.exec(text)[1].split(' ')
  const made = await runTool('bin/crate-bench.js', command, { env: {} })
  assert.equal(made.code, 0, made.stderr)
  assert.equal(made.stdout, text,
    'deploy/kubernetes/fleet-ingest.yaml is out of date: run the command in its first line')
  const { Job } = await validateAll(text)
  assert.equal(Job.spec.completions, 4)
})

test('fleet manifest: an Indexed Job of N pods, one core per worker process, exit codes 2 and 3 fail it, no password',
  async () => {
  const made = await runTool('bin/crate-bench.js', ['fleet', 'manifest', '--generators', '3', 'query',
    '--queries_config', 'queries/cpu-dashboard.yml', '--processes', '2', '--duration', '5m', '--run_id', 'Q_1'],
      { env: { CRATE_HOST: 'crate.example', CRATE_PASSWORD: 'hunter2-secret', CRATE_USER: 'bench' } })
  assert.equal(made.code, 0, made.stderr)
  assert.doesNotMatch(made.stdout, /hunter2-secret/, 'the password is never printed')
  const { Job, Secret, ConfigMap, PodMonitor } = await validateAll(made.stdout)
  assert.match(Job.metadata.name, /^crate-bench-q-1-[0-9a-f]{8}-generators$/, 'Q_1 is not a name: made one, hashed')
  assert.deepEqual([Job.spec.completionMode, Job.spec.completions, Job.spec.parallelism], ['Indexed', 3, 3])
  const pod = Job.spec.template.spec
  assert.equal(pod.restartPolicy, 'Never')
  const rules = Job.spec.podFailurePolicy.rules
  assert.deepEqual(rules[0], { action: 'FailJob', onExitCodes: { containerName: 'generator', operator: 'In', values: [2,
    3] } })
  assert.deepEqual(rules[1], { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] })
  const [container] = pod.containers
  assert.equal(container.resources.requests.cpu, '2')
  assert.deepEqual(container.args.slice(0, 1), ['query'])
  assert.ok(container.args.includes('--generators') && !container.args.includes('--generator'))
  const at = (flag) => container.args[container.args.indexOf(flag) + 1]
  assert.equal(at('--queries_config'), '/etc/crate-bench/cpu-dashboard.yml', 'the query file comes from the ConfigMap')
  assert.equal(ConfigMap.data['cpu-dashboard.yml'], fs.readFileSync(path.join(ROOT, 'queries', 'cpu-dashboard.yml'),
    'utf8'))
  assert.deepEqual([ConfigMap.data.CRATE_HOST, Secret.stringData.CRATE_USER], ['crate.example', 'bench'])
  assert.equal(at('--metrics_host'), '0.0.0.0')
  assert.equal(Job.spec.template.metadata.annotations['prometheus.io/scrape'], 'true')
  assert.equal(PodMonitor.spec.podMetricsEndpoints[0].port, 'metrics')
  assert.ok(/^\d+$/.test(at('--seed')), 'one seed for every pod')
})

test('fleet manifest: a queries file of any name is a ConfigMap key Kubernetes takes; run ids never share names',
  async (t) => {
    const dir = tempDir(t)
    const odd = path.join(dir, 'my q(1)ä.yml')
    fs.copyFileSync(path.join(ROOT, 'queries', 'select1.yml'), odd)
    const made = (runId) => runTool('bin/crate-bench.js', ['fleet', 'manifest', '--generators', '2', 'query',
      '--queries_config', odd, '--duration', '1m', '--run_id', runId], { env: { CRATE_HOST: 'crate.example' } })
    const first = await made('Rack_1:A')
    assert.equal(first.code, 0, first.stderr)
    const { ConfigMap, Job } = await validateAll(first.stdout)
    const keys = Object.keys(ConfigMap.data).filter((k) => !k.startsWith('CRATE_'))
    assert.deepEqual(keys, ['my_q_1_.yml'])
    for (const key of Object.keys(ConfigMap.data)) assert.match(key, /^[-._a-zA-Z0-9]+$/)
    const [container] = Job.spec.template.spec.containers
    assert.equal(container.args[container.args.indexOf('--queries_config') + 1], '/etc/crate-bench/my_q_1_.yml')
    assert.deepEqual(Job.spec.template.spec.volumes[0].configMap.items, [{ key: 'my_q_1_.yml', path: 'my_q_1_.yml' }])
    const second = await validateAll((await made('rack-1-a')).stdout)
    assert.notEqual(second.Job.metadata.name, Job.metadata.name, 'Rack_1:A and rack-1-a: two runs, two names')
    assert.equal(second.Job.metadata.name, 'crate-bench-rack-1-a-generators', 'a run id that is a name stays itself')
  })

test('the validator refuses what Kubernetes would refuse', async () => {
  const { Job } = await validators()
  assert.throws(() => new Job({ metadata: { name: 'x' }, spec: { completionMode: 'Indexed', completions: 'three',
    template: { spec: { containers: [] } } } }).validate(), /completions must be integer/)
})

// A second, strict validator: kubernetes-validate (PyPI; .ci/run installs it) against Kubernetes 1.33's schemas,
// refusing any property those schemas do not name. It knows no PodMonitor (a CRD): kubernetes-models checks that.
const STRICT = spawnSync('kubernetes-validate', ['--version'], { encoding: 'utf8' }).status === 0

function validateStrictly (t, text) {
  const file = path.join(tempDir(t), 'manifests.yaml')
  fs.writeFileSync(file, text)
  return spawnSync('kubernetes-validate', ['-k', '1.33', '--strict', '--no-warn', file], { encoding: 'utf8' })
}

test('every manifest passes strict validation against Kubernetes 1.33, which refuses a rule without its status',
  { skip: STRICT ? false : 'kubernetes-validate is not installed (pip install kubernetes-validate)' }, async (t) => {
  const made = await runTool('bin/crate-bench.js', ['fleet', 'manifest', '--generators', '3', 'query',
    '--queries_config', 'queries/cpu-dashboard.yml', '--processes', '2', '--duration', '5m', '--run_id', 'Q_1'])
  const example = fs.readFileSync(path.join(ROOT, 'deploy', 'kubernetes', 'fleet-ingest.yaml'), 'utf8')
  for (const text of [made.stdout, example]) {
    const checked = validateStrictly(t, text)
    assert.equal(checked.status, 0, checked.stdout + checked.stderr)
    assert.equal((checked.stdout.match(/ passed for resource /g) || []).length, 3,
      'the Secret, the ConfigMap and the Job')
  }
  const withoutStatus = made.stdout.replace(/(- type: DisruptionTarget\n)\s+status: ["']?True["']?\n/, '$1')
  assert.notEqual(withoutStatus, made.stdout)
  const refused = validateStrictly(t, withoutStatus)
  assert.notEqual(refused.status, 0)
  assert.match(refused.stdout + refused.stderr, /onPodConditions\.0: 'status' is a required property/)
})

test('fleet manifest: every connection setting is carried (pg and its port); a loopback host is refused', async () => {
  const made = await runTool('bin/crate-bench.js', ['fleet', 'manifest', '--generators', '2', 'ingest', '--run_id',
    'pg'],
    { env: { CRATE_HOST: 'crate.example', CRATE_PROTOCOL: 'pg', CRATE_PG_PORT: '5436' } })
  assert.equal(made.code, 0, made.stderr)
  const { Job, ConfigMap } = await validateAll(made.stdout)
  assert.deepEqual([ConfigMap.data.CRATE_PROTOCOL, ConfigMap.data.CRATE_PG_PORT], ['pg', '5436'])
  const env = Job.spec.template.spec.containers[0].env.map((e) => e.name)
  assert.ok(env.includes('CRATE_PROTOCOL') && env.includes('CRATE_PG_PORT'), env.join(' '))
  const flags = await runTool('bin/crate-bench.js', ['fleet', 'manifest', '--generators', '2', 'ingest', '--host',
    'crate.example', '--protocol', 'pg', '--pg_port', '5499', '--run_id', 'pg'])
  const fromFlags = (await validateAll(flags.stdout))
  assert.deepEqual([fromFlags.ConfigMap.data.CRATE_PROTOCOL, fromFlags.ConfigMap.data.CRATE_PG_PORT], ['pg', '5499'])
  assert.ok(!fromFlags.Job.spec.template.spec.containers[0].args.includes('--pg_port'), 'carried by the ConfigMap')
  for (const [env, args, source] of [[{ CRATE_HOST: 'localhost' }, [], 'CRATE_HOST "localhost"'],
    [{}, ['--host', 'http://127.0.0.1:4200'], '--host "http://127.0.0.1:4200"'],
    [{ CRATE_HOST: 'crate.example,[::1]' }, [], 'CRATE_HOST "[::1]"']]) {
    const run = await runTool('bin/crate-bench.js', ['fleet', 'manifest', '--generators', '2', 'ingest', ...args],
      { env })
    assert.equal(run.code, 2, run.stderr)
    assert.equal(run.stderr.trimEnd().split('\n').length, 1)
    assert.ok(run.stderr.includes(`${source} is this machine; in a pod it is the pod itself`), run.stderr)
    assert.equal(run.stdout, '')
  }
})

test('fleet manifest: bad input is one line and exit 2', async () => {
  for (const [args, pattern] of [
    [['fleet', 'manifest', 'ingest'], /give --generators N/],
    [['fleet', 'manifest', '--generators', '3', 'ingest', '--json'],
      /--json and --report are for a fleet on this machine/],
    [['fleet', 'manifest', '--generators', '3', '--ui', '5666', 'ingest'],
      /--ui is a page on this machine; a fleet in Kubernetes/],
    [['fleet', 'manifest', '--generators', '3', 'query', '--queries_config', 'nope.yml'],
      /--queries_config 'nope\.yml' cannot be read: no such file/],
    [['fleet', 'manifest', '--generators', '3', 'ingest', '--namespace', 'Bad_NS'],
      /--namespace must be a Kubernetes namespace name/],
    // What each pod's generator would refuse at start is refused here, before anything is printed.
    [['fleet', 'manifest', '--generators', '3', 'ingest', '--table', 'doc.t\nx'],
      /a flag value with a control character \("doc\.t\\nx"\)/],
    [['fleet', 'manifest', '--generators', '3', 'ingest', '--table', 'doc.T-1'],
      /--table 'doc\.T-1' is not a valid table name/],
    [['fleet', 'manifest', '--generators', '3', 'ingest', '--batch_size', '0'],
      /--batch_size must be a whole number >= 1/],
    [['fleet', 'manifest', '--generators', '3', 'query', '--queries_config', 'queries/cpu-dashboard.yml', '--threshold',
      'nope:p99<1ms'], /no query or table named 'nope'/]
  ]) {
    const run = await runTool('bin/crate-bench.js', args)
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`)
    assert.equal(run.stderr.trimEnd().split('\n').length, 1)
    assert.match(run.stderr, pattern)
    assert.equal(run.stdout, '', 'nothing printed')
  }
})
