'use strict'

// What every measurement of the bench stands on: a fresh stand-in server per run, the tool and the bare reference
// loops as child processes (their JSON result), a process tree's CPU, and the medians the tables show.

const path = require('node:path')
const { spawn } = require('node:child_process')
const { QUERY_PATH_QUERIES } = require('./targets')

const ROOT = path.join(__dirname, '..')

function startStandIn ({ rowsFlushed = false, wholeWhenDone = false, selectRows = 0 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(__dirname, 'stand-in-server.js'), '0',
      ...(rowsFlushed ? ['--pg-rows-flushed'] : []), ...(wholeWhenDone ? ['--pg-whole-when-done'] : []),
      ...(selectRows ? [`--select-rows=${selectRows}`] : [])], {
      stdio: ['ignore', 'pipe', 'inherit']
    })
    child.stdout.once('data', (data) => {
      const [port, pgPort] = String(data).trim().split(' ').map(Number)
      resolve({ child, port, pgPort })
    })
    child.once('error', reject)
  })
}

// The stand-in keeps no tables: the tool's record of the tables it made (doc.crate_bench_tables) reads back nothing
// it can trust there, so every ingest run is told to drop and create its table, as it would a table of its own.
const OWN_TABLE = ['--drop_table']

function runApp (script, args, port, pgPort = null, env = {}) {
  const own = script === 'appClusterIngest.js' ? OWN_TABLE : []
  return runTool(script, [...args, ...own], { CRATE_HOST: '127.0.0.1', CRATE_PORT: String(port),
    ...(pgPort ? { CRATE_PG_PORT: String(pgPort) } : {}), ...env })
}

/** One of the tool's entry scripts with `args` and `env` (nothing else of the bench's environment): its --json. */
function runTool (script, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, script), ...args, '--json'], {
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (c) => {
      out += c
    })
    child.stderr.on('data', (c) => {
      err += c
    })
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${script} exited ${code}\n${err}`))
    )
  })
}

/** Each scenario gets a fresh stand-in, so one scenario's server-side garbage does not slow the next. */
async function withStandIn (fn, options) {
  const { child: server, port, pgPort } = await startStandIn(options)
  try {
    return await fn(port, pgPort)
  } finally {
    server.kill()
  }
}

/** A bare reference loop of bench/ as a child process: its one JSON line. */
function runBare (script, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(__dirname, script), ...args.map(String)],
      { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (c) => {
      out += c
    })
    child.on('exit', (code) => code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${script} exited ${code}`)))
  })
}

/** The bare undici loop of bench/bare-undici.js: SELECT 1, or `statement` at `rate` a second. */
function runBareUndici (port, { queries = QUERY_PATH_QUERIES, statement = 'SELECT 1', rate = 0 } = {}) {
  return runBare('bare-undici.js', [port, queries, 20, statement, rate])
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

/**
 * Runs the measurements of round `round` each in its turn, starting one further each round: a run's place in the
 * round (the machine warmer or cooler, a stand-in's first) must not favour one of them. Each ratio of a watched run to
 * an unwatched one is 3% wide: no order may carry more than that.
 */
async function inTurn (round, measurements) {
  for (let k = 0; k < measurements.length; k++) await measurements[(round + k) % measurements.length]()
}


/**
 * User + sys of a whole process tree (a command, its children; start-up and exit included), read from bash's
 * `times` after the command has exited and been reaped. Returns { seconds, stdout } of the command.
 */
function treeCpu (command, env) {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `${command} 2>/dev/null; times >&2`], {
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let out = ''
    let times = ''
    child.stdout.on('data', (c) => { out += c })
    child.stderr.on('data', (c) => { times += c })
    child.on('exit', () => {
      // The second line holds the children's user and sys time: "0m1.234s 0m0.456s".
      const children = times.trim().split('\n')[1] || ''
      const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]))
      if (seconds.length !== 2) return reject(new Error(`cannot read the process tree's CPU time from: ${times}`))
      resolve({ seconds: seconds[0] + seconds[1], stdout: out })
    })
  })
}

/** A free loopback port (bound, then released). */
async function freePort () {
  const server = require('node:net').createServer()
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address()
  await new Promise((resolve) => server.close(resolve))
  return port
}

const q = JSON.stringify
const ratio = (a, b) => Math.round((a / b) * 100) / 100
const round3 = (x) => Math.round(x * 1000) / 1000

module.exports = {
  ROOT, OWN_TABLE, startStandIn, runApp, runTool, withStandIn, runBare, runBareUndici, median, inTurn, treeCpu,
  freePort, q, ratio, round3
}
