'use strict'

// The cluster under test as a CrateDB resource of the CrateDB operator, validated against the operator's own
// CustomResourceDefinition (test/fixtures/k8s, from crate/crate-operator) with a JSON-schema validator.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const yaml = require('js-yaml')
const Ajv = require('ajv')
const { crateDbResource, memoryFor } = require('../../lib/launch/cratedb-resource')
const { runTool } = require('../helpers/run-tool')

const CRD = yaml.load(fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'k8s', 'cratedbs-cloud-crate-io.yaml'),
  'utf8'))

/** A validator of the CRD's schema: Kubernetes' own keywords (x-kubernetes-*) and formats are its server's to judge. */
function crdValidator () {
  const version = CRD.spec.versions.find((v) => v.served)
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true })
  return ajv.compile(version.schema.openAPIV3Schema)
}

test('the heap becomes the memory limit through heapRatio; the resource is what the operator\'s CRD accepts', () => {
  assert.deepEqual([memoryFor('1g'), memoryFor('2g'), memoryFor('768m')], ['2Gi', '4Gi', '1536Mi'])
  const validate = crdValidator()
  const resource = crateDbResource({ name: 'crate-bench-r1', namespace: 'bench', labels: { a: 'b' }, nodes: 3,
    version: '6.4.3', heap: '2g', cpus: 4, disk: '50Gi', settings: [['thread_pool.write.queue_size', '200']] })
  assert.equal(validate(resource), true, JSON.stringify(validate.errors))
  assert.equal(resource.apiVersion, `${CRD.spec.group}/${CRD.spec.versions[0].name}`)
  assert.equal(resource.kind, CRD.spec.names.kind)
  // The validator is no rubber stamp: a resource without its nodes' disk is refused, as the API server would.
  const broken = JSON.parse(JSON.stringify(resource))
  delete broken.spec.nodes.data[0].resources.disk
  assert.equal(validate(broken), false)
  assert.throws(() => crateDbResource({ name: 'x', nodes: 1, tarball: 'x' }),
    /a CrateDB resource needs --crate_version/)
  assert.throws(() => crateDbResource({ name: 'x', nodes: 1, version: '6.4.3', disk: '100GB' }),
    /--crate_disk must be a Kubernetes size such as 100Gi/)
})

test('crate-bench fleet manifest --start_cluster: the CrateDB resource first, the generators pointed at its Service',
  async () => {
    const run = await runTool('bin/crate-bench.js', ['fleet', 'manifest', '--generators', '2', '--namespace', 'bench',
      'ingest', '--start_cluster', '3', '--crate_version', '6.4.3', '--crate_heap', '2g', '--crate_cpus', '4',
      '--run_id', 'study-1', '--duration', '5m'])
    assert.equal(run.code, 0, run.stderr)
    const docs = yaml.loadAll(run.stdout).filter(Boolean)
    const [crate] = docs
    assert.equal(crdValidator()(crate), true)
    assert.deepEqual([crate.kind, crate.spec.nodes.data[0].replicas, crate.spec.cluster.version,
      crate.spec.nodes.data[0].resources.limits], ['CrateDB', 3, '6.4.3', { cpu: 4, memory: '4Gi' }])
    const config = docs.find((d) => d.kind === 'ConfigMap')
    assert.equal(config.data.CRATE_HOST, `crate-${crate.metadata.name}.bench.svc`)
    const job = docs.find((d) => d.kind === 'Job')
    const args = job.spec.template.spec.containers[0].args
    assert.ok(!args.some((a) => /^--(start_cluster|crate_)/.test(a)), `the generators start no cluster: ${args}`)
    const withHost = await runTool('bin/crate-bench.js', ['fleet', 'manifest', '--generators', '2', 'ingest',
      '--start_cluster', '1', '--crate_version', '6.4.3', '--host', 'db'])
    assert.equal(withHost.code, 2)
    assert.match(withHost.stderr, /--start_cluster writes the cluster the generators use: leave --host out/)
  })

test('fleet manifest refuses sizes the operator could never run (its CRD has no minimum): non-positive CPU or heap',
  async () => {
    for (const [flag, value, error] of [
      ['--crate_cpus', '-4', /--crate_cpus must be a number of cores above 0 \(got '-4'\)/],
      ['--crate_cpus', '0', /--crate_cpus must be a number of cores above 0 \(got '0'\)/],
      ['--crate_heap', '0', /--crate_heap must be a size such as 512m or 2g \(got '0'\)/],
      ['--crate_heap', '-1g', /--crate_heap must be a size such as 512m or 2g/]]) {
      const run = await runTool('bin/crate-bench.js', ['fleet', 'manifest', '--generators', '2', 'ingest',
        '--start_cluster', '3', '--crate_version', '6.4.3', flag, value, '--max_rows', '10'])
      assert.equal(run.code, 2, `${flag} ${value}: ${run.stderr}`)
      assert.match(run.stderr, error)
      assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr)
      assert.equal(run.stdout, '', 'no manifest written')
    }
  })
