'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { StringDecoder } = require('node:string_decoder')
const { visible } = require('../base/format')
const { LET_GO, signalGroup } = require('./hook-watchdog')

// A user's command (a study target's up: or down:), run by the shell in a process group of its own. It is done when
// its shell exits: a server it started in the background (`./server &`) may keep the output pipe open, and is the
// user's, never waited for nor ended. A command past its bound (or on Ctrl-C) has failed whatever its exit code: its
// group gets SIGTERM, then SIGKILL after the grace. Its output is on the terminal a line at a time (each line cut at
// MAX_LINE_CHARS, control characters shown as escapes) and in its log file (mode 600, the first MAX_LOG_BYTES); what
// comes after is counted, never held. A watchdog process ends its group should the tool be killed outright.

const MAX_LINE_CHARS = 2000
const MAX_LOG_BYTES = 1024 * 1024
const GRACE_MS = 10_000
// After the shell exits, what it wrote last is read for this long at most (a background child may hold the pipe).
const SETTLE_MS = 300

/** A log file opened to append, mode 600, never through a link planted at its name. */
function openLog (file) {
  const { O_WRONLY, O_APPEND, O_CREAT, O_NOFOLLOW } = fs.constants
  const fd = fs.openSync(file, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW, 0o600)
  fs.fchmodSync(fd, 0o600)
  return fd
}

/** The lines of a stream: each one handed to `line`, cut at `maxChars` (the rest of a long line counted, not held). */
function lineSplitter (line, maxChars) {
  let rest = ''
  let cut = 0
  const push = (text) => {
    let start = 0
    for (;;) {
      const at = text.indexOf('\n', start)
      const piece = at < 0 ? text.slice(start) : text.slice(start, at)
      const room = maxChars - rest.length
      if (piece.length > room) cut += piece.length - Math.max(room, 0)
      if (room > 0) rest += piece.slice(0, room)
      if (at < 0) return
      flush()
      start = at + 1
    }
  }
  const flush = () => {
    if (rest || cut) line(cut ? `${rest}… (${cut} more characters not shown)` : rest)
    rest = ''
    cut = 0
  }
  return { push, flush }
}

/**
 * Runs `command` by the shell in `cwd`, its output on `log` and in `logFile`. `onStart({ pid })` when it runs (its
 * pid is its group's). Resolves at its shell's exit: { code, signal, timedOut, interrupted, failed, outputBytes }.
 * `failed` is what the caller goes by: exit non-zero, a signal, past `timeoutMs`, or interrupted.
 */
function runHook (command, { cwd, log, logFile, timeoutMs, graceMs = GRACE_MS, signals, onStart = () => {},
  maxLineChars = MAX_LINE_CHARS, maxLogBytes = MAX_LOG_BYTES, env = process.env }) {
  return new Promise((resolve) => {
    const out = openLog(logFile)
    const child = spawn('/bin/sh', ['-c', command], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
    const watchdog = spawn(process.execPath, [path.join(__dirname, 'hook-watchdog.js'), String(child.pid),
      String(graceMs)], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] })
    watchdog.unref()
    watchdog.stdin.on('error', () => {})
    if (typeof watchdog.stdin.unref === 'function') watchdog.stdin.unref()
    let timedOut = false
    let interrupted = false
    let outputBytes = 0
    let logged = 0
    let killTimer = null
    const end = () => {
      signalGroup(child.pid, 'SIGTERM')
      killTimer = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), graceMs)
    }
    const timer = setTimeout(() => { timedOut = true; end() }, timeoutMs)
    const onInterrupt = () => { interrupted = true; end() }
    if (signals) signals.once('interrupt', onInterrupt)
    const splitters = []
    const onData = (splitter, decoder = new StringDecoder('utf8')) => (chunk) => {
      outputBytes += chunk.length
      if (logged < maxLogBytes) {
        const kept = chunk.subarray(0, maxLogBytes - logged)
        fs.writeSync(out, kept)
        logged += kept.length
        if (logged >= maxLogBytes) fs.writeSync(out, `\n[crate-bench: output past ${maxLogBytes} bytes not kept]\n`)
      }
      splitter.push(decoder.write(chunk))
    }
    const streams = [child.stdout, child.stderr]
    for (const stream of streams) {
      const splitter = lineSplitter((line) => log(visible(line)), maxLineChars)
      splitters.push(splitter)
      stream.on('data', onData(splitter))
    }
    onStart({ pid: child.pid })
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      if (signals) signals.removeListener('interrupt', onInterrupt)
      // What the shell wrote last, read until its pipes close or for SETTLE_MS: a background child may hold them.
      const closed = Promise.all(streams.map((s) => new Promise((done) => {
        if (s.destroyed || s.closed) return done()
        s.once('close', done)
      })))
      let settle = null
      Promise.race([closed, new Promise((done) => { settle = setTimeout(done, SETTLE_MS) })]).then(() => {
        clearTimeout(settle)
        clearTimeout(killTimer)
        for (const splitter of splitters) splitter.flush()
        // A background child's later output is drained and dropped: the pipe kept open never fills nor breaks.
        for (const s of streams) {
          s.removeAllListeners('data')
          s.on('data', () => {})
          if (typeof s.unref === 'function') s.unref()
        }
        fs.closeSync(out)
        // Ended in time: what it left running is the user's. Past its bound: what is left of its group ends with the
        // watchdog (SIGTERM, then SIGKILL after the grace).
        if (timedOut || interrupted) watchdog.stdin.end()
        else watchdog.stdin.end(LET_GO)
        resolve({ code, signal, timedOut, interrupted, failed: timedOut || interrupted || code !== 0, outputBytes })
      })
    })
  })
}

module.exports = { runHook, lineSplitter, MAX_LINE_CHARS, MAX_LOG_BYTES, GRACE_MS }
