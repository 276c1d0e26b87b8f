'use strict'

// Bad and hostile input, as a careless or hostile user gives it: each answer is one line, the
// documented exit code, no stack trace and no secret, and comes at once.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const { withCrateTestDouble } = require('../helpers/crate-test-double')
const { runTool, childPids } = require('../helpers/run-tool')
const { tempFile, tempDir } = require('../helpers/temp-files')
const path = require('node:path')
const { closedPort } = require('../helpers/ports')
const { joined } = require('../helpers/patterns')

const SECRET = 'S3cr3t-pw'
const stackTrace = /\n\s+at .+:\d+:\d+/

function danglingLink (t) {
  const link = path.join(tempDir(t), 'report.html')
  fs.symlinkSync('/nonexistent/dir/report.html', link)
  return link
}

function fifo (t) {
  const file = path.join(tempDir(t), '.env')
  require('node:child_process').execFileSync('mkfifo', [file])
  return file
}

/** [what, script, args, env, exit code, pattern of the error line] */
function cases (t, double, port) {
  const env = (extra = {}) => double.env({ CRATE_PASSWORD: SECRET, ...extra })
  const mix = (text) => tempFile(t, 'mix.yml', text)
  // Nine levels of ten aliases: ten billion values if anything expanded them.
  const level = (n) => `    - choice: &a${n} [${Array(10).fill(`*a${n - 1}`).join(', ')}]`
  const bomb = '- name: bomb\n  query: "SELECT ?"\n  ratio: 1\n  args:\n' +
    `    - choice: &a0 [x, x, x, x, x, x, x, x, x, x]\n${[1, 2, 3, 4, 5, 6, 7, 8, 9].map(level).join('\n')}\n`
  return [
    ['password in the host URL, host unreachable', 'appClusterIngest.js', [],
      { CRATE_HOST: `http://crate:${SECRET}@127.0.0.1:${port}` }, 3,
        /cannot reach CrateDB: connection refused by http:\/\/127\.0\.0\.1:\d+$/],
    ['password in a host with a path', 'appClusterIngest.js', ['--host', `http://crate:${SECRET}@h/path`], env(), 2,
      /invalid host 'http:\/\/crate:\*\*\*@h\/path': a host has no path/],
    ['a bad port in a URL with a password', 'appClusterIngest.js', ['--host', `http://crate:${SECRET}@h:99999`], env(),
      2, /invalid host 'http:\/\/crate:\*\*\*@h:99999'/],
    ['a password without a scheme, host unreachable', 'appClusterIngest.js', [],
      { CRATE_HOST: `crate:${SECRET}@127.0.0.1:${port}` }, 3, /cannot reach CrateDB: connection refused/],
    ['a password with a slash', 'appClusterIngest.js', ['--host', `https://crate:Zq/9x${SECRET}@h:99999`], env(), 2,
      /invalid host 'https:\/\/crate:\*\*\*@h:99999'/],
    ['a password with an @', 'appClusterIngest.js', [], env({ CRATE_HOST: `https://crate:pw@x${SECRET}@h:99999` }), 2,
      /invalid host 'https:\/\/crate:\*\*\*@h:99999'/],
    ['crate-bench report --host with a password', 'bin/crate-bench.js', ['report', '--results_table', 'doc.runs',
      '--run_id', 'r1', '--host', `http://crate:${SECRET}/x@127.0.0.1:${port}`], {}, 3, /connection refused/],
    ['--results_table the same as --table', 'appClusterIngest.js', ['--results_table', 'cpu'], env(), 2,
      /--results_table doc\.cpu is a table this run writes its rows into/],
    ['--results_table the table the companion ingest writes', 'appClusterAnalytical.js', ['--queries_config',
      mix('- {query: "SELECT 1", ratio: 1}\n'), '--ingest_rate', '100', '--results_table', 'doc.cpu'], env(), 2,
        /--results_table doc\.cpu is a table this run writes/],
    ['achieved_pct without --rate', 'appClusterIngest.js', ['--threshold', 'achieved_pct>=99'], env(), 2,
      /achieved_pct needs a target rate: give --rate/],
    ['--rate 5e-324', 'appClusterIngest.js', ['--rate', '5e-324'], env(), 2,
      /--rate must be a decimal number from 0\.001 to 1e\+9 per second \(got '5e-324'\)/],
    ['--rate 0.001', 'appClusterIngest.js', ['--rate', '0.001'], env(), 2, /less than once an hour per process/],
    ['--extra_tags_length 1000000', 'appClusterIngest.js', ['--extra_tags_length', '1000000', '--batch_size', '5'],
      env(), 2, /--extra_tags_length must be at most 900/],
    ['a tab inside CRATE_HOST', 'appClusterIngest.js', [], env({ CRATE_HOST: 'local\thost' }), 2,
      /invalid host 'local\\thost': a host has no white space/],
    ['--report to a dangling link', 'appClusterIngest.js', ['--report', danglingLink(t)], env(), 2,
      /is a symbolic link to nothing/],
    ['--max_answer_mb 0', 'appClusterIngest.js', ['--max_answer_mb', '0'], env(), 2,
      /--max_answer_mb must be a number of megabytes/],
    ['a .env that is a FIFO', 'appClusterIngest.js', [], { ...env(), CRATE_BENCH_ENV_FILE: fifo(t) }, 2,
      /\.env '.*' is not a regular file/],
    ['find-capacity --max_failed -1', 'bin/crate-bench.js', ['sweep', 'capacity', '--slo', 'p99=1s', '--max_failed',
      '-1'], env(), 2, /--max_failed must be a whole number >= 0/],
    ['find-capacity --min_achieved_pct 1000', 'bin/crate-bench.js', ['sweep', 'capacity', '--slo', 'p99=1s',
      '--min_achieved_pct', '1000'], env(), 2, /--min_achieved_pct must be above 0 and at most 100/],
    ['--table twice', 'appClusterIngest.js', ['--table', 'doc.a', '--table', 'doc.cpu'], env(), 2,
      /--table was given 2 times \(doc\.a, doc\.cpu\): give it once/],
    ['crate-bench ingest names itself', 'bin/crate-bench.js', ['ingest', '--model', 'foo'], env(), 2,
      /^crate-bench ingest: error: --model must be one of/],
    ['CRATE_PORT in hex', 'appClusterIngest.js', [], env({ CRATE_PORT: '0x1068' }), 2,
      /CRATE_PORT must be a port number 1-65535 in decimal \(got '0x1068'\)/],
    ['a host with a query string', 'appClusterIngest.js', [], env({ CRATE_HOST: 'http://h?x=1' }), 2,
      /a host has no query string/],
    ['a host with a fragment', 'appClusterIngest.js', [], env({ CRATE_HOST: 'http://h#top' }), 2,
      /a host has no #fragment/],
    ['--timeout 999h', 'appClusterIngest.js', ['--timeout', '999h'], env(), 2,
      /--timeout must be between 1ms and 24h \(got '999h'\)/],
    ['--monitor_interval 999h', 'appClusterIngest.js', ['--monitor_interval', '999h'], env(), 2,
      /--monitor_interval must be between 100ms and 1h/],
    ['--timeout -1s', 'appClusterIngest.js', ['--timeout', '-1s'], env(), 2,
      /--timeout must be a positive duration .* \(got '-1s'\)/],
    ['--duration 0.001ms', 'appClusterIngest.js', ['--duration', '0.001ms'], env(), 2,
      /--duration must be between 1ms and 720h/],
    ['--interval 0', 'appClusterIngest.js', ['--interval', '0'], env(), 2, /--interval must be a positive duration/],
    ['--rate too low for --duration', 'appClusterIngest.js', ['--rate', '0.01', '--duration', '3s'], env(), 2,
      /cannot hold two of them; raise --rate or --duration/],
    ['more in flight than files may be opened', 'appClusterIngest.js', ['--concurrent_requests', '50000000',
      '--batch_size', '1'], env(), 2, /--concurrent_requests 50000000 needs a socket per request in flight/],
    ['a batch no server takes', 'appClusterIngest.js', ['--batch_size', '50000000', '--max_rows', '50000000'], env(), 2,
      /--batch_size 50000000 makes request bodies of about \d+ MB .*use --batch_size \d+ or less/],
    ['--model bogus', 'appClusterIngest.js', ['--model', 'bogus'], env(), 2,
      /--model must be one of cpu, devops, loadtest, kv \(got 'bogus'\)/],
    ['a user name with a line break', 'appClusterIngest.js', [], env({ CRATE_USER: 'bench\nevil' }), 2,
      /--user\/CRATE_USER must not contain a control character/],
    ['a YAML alias bomb', 'appClusterAnalytical.js', ['--queries_config', mix(bomb)], env(), 2,
      /expands to more than 100000 values \(YAML aliases\?\)/],
    ['an arg named constructor', 'appClusterAnalytical.js', ['--queries_config',
      mix('- {query: "SELECT ?", ratio: 1, args: [{constructor: {}}]}\n')], env(), 2,
        /unknown arg generator 'constructor'/],
    ['an arg named __proto__', 'appClusterAnalytical.js', ['--queries_config',
      mix('- {query: "SELECT ?", ratio: 1, args: [{__proto__: {}}]}\n')], env(), 2, /unknown arg generator/],
    ['--queries_config /dev/zero', 'appClusterAnalytical.js', ['--queries_config', '/dev/zero'], env(), 2,
      /--queries_config '\/dev\/zero' is not a regular file/],
    ['--queries_config a directory', 'appClusterAnalytical.js', ['--queries_config', '/tmp'], env(), 2,
      /is not a regular file/],
    ['a query name with an escape sequence that fails validation', 'appClusterAnalytical.js', ['--queries_config',
      mix('- {name: "red\\e[31m", query: "SELECT * FROM doc.none", ratio: 1}\n')], env(), 3,
        /query 'red\\u001b\[31m' failed validation: RelationUnknown/],
    // Issue 49: what a new user tripped on.
    ['--processes 1e3', 'appClusterIngest.js', ['--processes', '1e3'], env(), 2,
      joined(
        /--processes 1000 is more than this machine runs well: at most \d+ \(8 /,
        /per CPU, \d+ CPUs? here; each worker process takes about 60 MB\)/)],
    ['--batchsize', 'appClusterIngest.js', ['--batchsize', '5'], env(), 2,
      /unknown option --batchsize \(did you mean --batch_size\? see --help\)$/],
    ['a misspelt {tabel}', 'appClusterAnalytical.js', ['--queries_config',
      mix('- {query: "SELECT 1 FROM {tabel}", ratio: 1}\n')], env(), 2,
        /unknown placeholder \{tabel\} \(known: \{table\}\)/],
    ['a validation error over several lines', 'appClusterAnalytical.js', ['--queries_config',
      mix('- {name: multi, query: "SELECT 42", ratio: 1}\n')], env(), 3,
        /query 'multi' failed validation: SQLParseException\[line one line two\]/]
  ]
}

test('every bad input: one line, its exit code, no stack trace, no secret, at once', (t) => withCrateTestDouble({
  fault: ({ stmt }) => (stmt === 'SELECT 42' ? { status: 400, code: 4000,
    message: 'SQLParseException[line one\nline two]' } : undefined)
}, async (double) => {
  const port = await closedPort()
  for (const [what, script, args, env, code, pattern] of cases(t, double, port)) {
    const run = await runTool(script, args, { env, timeoutMs: 20_000 })
    const lines = run.stderr.trimEnd().split('\n')
    const errorLine = lines.at(-1)
    assert.equal(run.code, code, `${what}: exit ${run.code}\n${run.stderr}`)
    const command = args[0] === 'sweep' ? 'find-capacity.sh' : `crate-bench ${args[0]}`
    const prefix = script === 'bin/crate-bench.js' ? command : script
    assert.ok(errorLine.startsWith(`${prefix}: error: `), `${what}: the last line is the error: ${errorLine}`)
    assert.match(errorLine, pattern, what)
    assert.equal(lines.filter((l) => / error: /.test(l)).length, 1, `${what}: one error line`)
    if (code === 2) assert.equal(lines.length, 1, `${what}: a usage error is all there is:\n${run.stderr}`)
    assert.ok(!stackTrace.test(run.stderr), `${what}: no stack trace`)
    assert.ok(!`${run.stdout}${run.stderr}`.includes(SECRET), `${what}: the password is never shown`)
    assert.ok(!run.stderr.includes('\u001b'), `${what}: no raw escape character`)
  }
  assert.equal(double.statementsMatching(/^(CREATE|DROP|INSERT)/).length, 0, 'no bad input reached DDL or a load')
}))

test('a table dropped by another client mid-run: the run stops after ten unknown-table answers, not at --max_rows',
  () => withCrateTestDouble({}, async (double) => {
  let bulks = 0
  double.script.fault = ({ bulk }) => {
    if (bulk && ++bulks === 3) double.tables.delete('doc.cpu')
    return undefined
  }
  const run = await runTool('appClusterIngest.js', ['--processes', '1', '--batch_size', '10', '--max_rows', '100000',
    '--concurrent_requests', '1', '--json'], { env: double.env() })
  assert.equal(run.code, 3, run.stderr)
  assert.match(run.stderr.trimEnd().split('\n').at(-1),
    joined(
      /error: RelationUnknown\[Relation 'doc\.cpu' unknown\] \(10 /,
      /answers in a row: the table was dropped during the run\?\)$/))
  assert.ok(bulks <= 14, `${bulks} bulk requests sent`)
  assert.equal(run.json.workers[0].stop_reason, 'fatal')
}))

test('workers are forked without the password in their environment', () => withCrateTestDouble({}, async (double) => {
  // Read while the worker waits for the answer to its first insert: it is alive then, whatever the machine's load.
  let environ = null
  let readError = null
  const tool = {}
  double.script.fault = ({ bulk }) => {
    if (bulk && environ === null && readError === null) {
      try {
        const [worker] = childPids(tool.child.pid)
        environ = fs.readFileSync(`/proc/${worker}/environ`, 'utf8')
      } catch (error) {
        readError = error
      }
    }
    return bulk ? { delayMs: 50 } : undefined
  }
  const run = await runTool('appClusterIngest.js', ['--processes', '2', '--max_rows', '500', '--batch_size', '100',
    '--concurrent_requests', '1'], {
    env: double.env({ CRATE_PASSWORD: SECRET, CRATE_USER: 'crate' }),
    onSpawn: (child) => { tool.child = child }
  })
  assert.equal(run.code, 0, run.stderr)
  assert.ok(environ !== null && environ.includes('PATH='),
    `the worker environment was read${readError ? `: ${readError.message}` : ''}`)
  assert.ok(!environ.includes(SECRET) && !environ.includes('CRATE_PASSWORD'), 'no password in a worker environment')
}))

test('--scale 100000000 starts sending at once', () => withCrateTestDouble({}, async (double) => {
  const run = await runTool('appClusterIngest.js', ['--processes', '1', '--scale', '100000000', '--max_rows', '2000',
    '--json'], { env: double.env(), timeoutMs: 30_000 })
  assert.equal(run.code, 0, run.stderr)
  assert.equal(run.json.rows_ok, 2000)
}))

test('a sweep whose benchmark options carry a password shows it nowhere: stderr, CSV, chart',
  (t) => withCrateTestDouble({}, async (double) => {
  const out = tempDir(t)
  const host = `http://crate:${SECRET}@127.0.0.1:${double.port}`
  const run = await runTool('scripts/find-optimal-batch-size.sh', ['--values', '100', '--out', out, '--', '--host',
    host, '--max_rows', '200'], { timeoutMs: 60_000 })
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stderr, /with --host http:\/\/crate:\*\*\*@127\.0\.0\.1:\d+ --max_rows 200/)
  const files = fs
    .readdirSync(out, { recursive: true })
    .map((f) => path.join(out, f))
    .filter((f) => fs.statSync(f).isFile())
  assert.ok(files.some((f) => f.endsWith('.svg')), `a chart was written: ${files.join(', ')}`)
  for (const file of [...files]) assert.ok(!fs.readFileSync(file, 'utf8').includes(SECRET), `no password in ${file}`)
  assert.ok(!`${run.stdout}${run.stderr}`.includes(SECRET), 'no password on stdout or stderr')
}))

test('stdout that cannot be written (a full disk, a closed pipe): one line, exit 3, no stack trace',
  () => withCrateTestDouble({}, async (double) => {
  const { spawn } = require('node:child_process')
  const shell = (command) => new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], { env: { PATH: process.env.PATH, ...double.env() }, stdio: ['ignore',
      'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => { stdout += chunk })
    child.stderr.on('data', (chunk) => { stderr += chunk })
    child.on('exit', () => resolve({ stdout, stderr }))
  })
  const app = path.join(__dirname, '..', '..', 'appClusterIngest.js')
  for (const [what, command] of [
    ['a full disk', `node ${app} --max_rows 2000 --json > /dev/full; echo "exit $?"`],
    ['a closed pipe', `node ${app} --max_rows 2000 --json | true; echo "exit \${PIPESTATUS[0]}"`]
  ]) {
    const run = await shell(command)
    assert.equal(run.stdout.trim(), 'exit 3', `${what}: ${run.stderr}`)
    assert.match(run.stderr, /appClusterIngest\.js: error: cannot write the results to stdout: E(NOSPC|PIPE)/, what)
    assert.ok(!stackTrace.test(run.stderr), `${what}: no stack trace`)
  }
}))
