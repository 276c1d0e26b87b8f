'use strict'

const path = require('node:path')
const fs = require('node:fs')
const { spawn } = require('node:child_process')

const ROOT = path.join(__dirname, '..', '..')

/**
 * Runs an app script (or a scripts/*.sh sweep, with bash) as a user would and collects its exit
 * code and output. `whileRunning` gets the child process once its stderr shows `waitFor`, e.g. to
 * send Ctrl-C.
 */
function runTool (script, args, { env = {}, waitFor, whileRunning, timeoutMs = 60_000, cwd = ROOT } = {}) {
  return new Promise((resolve, reject) => {
    const command = script.endsWith('.sh') ? ['bash', [path.join(ROOT, script), ...args]] : [process.execPath, [path.join(ROOT, script), ...args]]
    const child = spawn(command[0], command[1], {
      cwd,
      // A clean environment: no .env from the developer's machine, no CRATE_* leaking in.
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let stdout = ''
    let stderr = ''
    let triggered = false
    const killer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${script} ${args.join(' ')} did not finish within ${timeoutMs} ms\n${stderr}`))
    }, timeoutMs)
    child.stdout.on('data', (chunk) => { stdout += chunk })
    child.stderr.on('data', (chunk) => {
      stderr += chunk
      if (!triggered && waitFor && waitFor.test(stderr) && whileRunning) {
        triggered = true
        whileRunning(child)
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
      resolve({ code, signal, stdout, stderr, json })
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

module.exports = { runTool, childPids, ROOT }
