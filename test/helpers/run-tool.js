'use strict'

const path = require('node:path')
const fs = require('node:fs')
const { spawn } = require('node:child_process')

const ROOT = path.join(__dirname, '..', '..')

/**
 * Runs an app script (or a scripts/*.sh sweep, with bash) as a user would and collects its exit
 * code and output. `whileRunning` gets the child process once its stderr shows `waitFor`, e.g. to
 * send Ctrl-C; `onSpawn` gets it at once. `detached` makes the tool a process group of its own,
 * so that a test can signal the whole group as `timeout` or systemd do.
 */
function runTool (script, args, {
  env = {}, waitFor, whileRunning, onSpawn, detached = false, timeoutMs = 60_000, cwd = ROOT
} = {}) {
  return new Promise((resolve, reject) => {
    const command = script.endsWith('.sh') ? ['bash', [path.join(ROOT, script), ...args]] : [process.execPath,
      [path.join(ROOT, script), ...args]]
    const startedAt = Date.now()
    const child = spawn(command[0], command[1], {
      cwd,
      // A clean environment: no .env from the developer's machine, no CRATE_* leaking in. Run from the checkout, the
      // tool would read the developer's own .env there (the README's quick start makes one): a file that is never
      // there is read instead, unless the test names one.
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...(cwd === ROOT ? { CRATE_BENCH_ENV_FILE:
        path.join(ROOT, 'test', 'fixtures', 'never-an.env') } : {}), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached
    })
    if (onSpawn) onSpawn(child)
    let stdout = ''
    let stderr = ''
    let triggered = false
    const killer = setTimeout(() => {
      if (detached) killGroup(child.pid)
      else child.kill('SIGKILL')
      reject(new Error(`${script} ${args.join(' ')} did not finish within ${timeoutMs} ms\n${stderr}`))
    }, timeoutMs)
    child.stdout.on('data', (chunk) => { stdout += chunk })
    child.stderr.on('data', (chunk) => {
      stderr += chunk
      if (!triggered && waitFor && waitFor.test(stderr) && whileRunning) {
        triggered = true
        whileRunning(child, stderr)
      }
    })
    child.on('exit', (code, signal) => {
      clearTimeout(killer)
      let json = null
      try {
        json = stdout.trim() ? JSON.parse(stdout) : null
      } catch {
        json = undefined
      }
      resolve({ code, signal, stdout, stderr, json, seconds: (Date.now() - startedAt) / 1000 })
    })
  })
}

/** Child processes of a pid, from /proc (Linux). */
function childPids (pid) {
  const pids = []
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid === pid) pids.push(Number(entry))
    } catch { /* process ended meanwhile */ }
  }
  return pids
}

function killGroup (pid) {
  try {
    process.kill(-pid, 'SIGKILL')
  } catch { /* the group has ended */ }
}

/** Polls until `pid` has `count` child processes (the tool's workers), and returns their pids. */
async function waitForChildren (pid, count, { timeoutMs = 20_000 } = {}) {
  const until = Date.now() + timeoutMs
  for (;;) {
    const pids = childPids(pid)
    if (pids.length >= count) return pids
    if (Date.now() > until) {
      throw new Error(`pid ${pid} has ${pids.length} children, not ${count}, after ${timeoutMs} ms`)
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

module.exports = { runTool, childPids, waitForChildren, ROOT }
