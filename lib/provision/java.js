'use strict'

const fs = require('node:fs')
const path = require('node:path')
const zlib = require('node:zlib')
const { spawnSync } = require('node:child_process')
const { UsageError } = require('../base/errors')

// The Java a distribution runs on: its own jdk/ where the release bundles one; otherwise JAVA_HOME, otherwise a JDK in
// the usual places, of the version the distribution's jars were built for (their manifest says so).

const JVM_FOLDERS = ['/usr/lib/jvm', '/usr/java', '/Library/Java/JavaVirtualMachines']

/** The entry `name` of a zip (a jar): its bytes, or null. Reads the central directory only: no unzip needed. */
function zipEntry (file, name) {
  const data = fs.readFileSync(file)
  // End of central directory: its signature within the last 64 KiB (a comment may follow it).
  let end = -1
  for (let i = data.length - 22; i >= Math.max(0, data.length - 65_557); i--) {
    if (data.readUInt32LE(i) === 0x06054b50) {
      end = i
      break
    }
  }
  if (end < 0) return null
  const count = data.readUInt16LE(end + 10)
  let at = data.readUInt32LE(end + 16)
  for (let n = 0; n < count && at + 46 <= data.length; n++) {
    if (data.readUInt32LE(at) !== 0x02014b50) return null
    const method = data.readUInt16LE(at + 10)
    const size = data.readUInt32LE(at + 20)
    const nameLength = data.readUInt16LE(at + 28)
    const extraLength = data.readUInt16LE(at + 30)
    const commentLength = data.readUInt16LE(at + 32)
    const local = data.readUInt32LE(at + 42)
    if (data.toString('utf8', at + 46, at + 46 + nameLength) === name) {
      const start = local + 30 + data.readUInt16LE(local + 26) + data.readUInt16LE(local + 28)
      const bytes = data.subarray(start, start + size)
      return method === 0 ? bytes : method === 8 ? zlib.inflateRawSync(bytes) : null
    }
    at += 46 + nameLength + extraLength + commentLength
  }
  return null
}

/** The Java major a distribution needs: its server jar's manifest (Java-Version, else Build-Jdk-Spec), or null. */
function requiredJava (home) {
  let jars = []
  try {
    jars = fs.readdirSync(path.join(home, 'lib')).filter((n) => /^crate(-server|-app)?-[0-9.]+\.jar$/.test(n))
      .sort((a, b) => Number(/server/.test(b)) - Number(/server/.test(a)))
  } catch {
    return null
  }
  for (const jar of jars) {
    try {
      const manifest = zipEntry(path.join(home, 'lib', jar), 'META-INF/MANIFEST.MF')
      const m = manifest && /^(?:Java-Version|Build-Jdk-Spec):\s*([0-9]+)/m.exec(manifest.toString('utf8'))
      if (m) return Number(m[1])
    } catch {
      // An unreadable jar says nothing: the next one may.
    }
  }
  return null
}

/** The major version of the Java at `javaHome`, from the JVM itself; null when it does not run. */
function javaMajor (javaHome, { run = spawnSync } = {}) {
  const java = path.join(javaHome, 'bin', 'java')
  if (!fs.existsSync(java)) return null
  const answer = run(java, ['-XshowSettings:properties', '-version'], { encoding: 'utf8', timeout: 20_000 })
  const text = `${answer.stdout || ''}${answer.stderr || ''}`
  const m = /java\.specification\.version = ([0-9.]+)/.exec(text)
  if (!m) return null
  const [first, second] = m[1].split('.').map(Number)
  return first === 1 ? second : first
}

/** The JDK folders of the usual places (macOS: their Contents/Home). */
function installedJdks (folders = JVM_FOLDERS) {
  const found = []
  for (const folder of folders) {
    let names = []
    try {
      names = fs.readdirSync(folder)
    } catch {
      continue
    }
    for (const name of names.sort()) {
      const home = fs.existsSync(path.join(folder, name, 'Contents', 'Home', 'bin', 'java'))
        ? path.join(folder, name, 'Contents', 'Home') : path.join(folder, name)
      if (fs.existsSync(path.join(home, 'bin', 'java'))) found.push(home)
    }
  }
  return found
}

/**
 * The Java to run distribution `home` on: { home, major, bundled }. Its own jdk/ first; then JAVA_HOME when it is of
 * the version needed (or newer); then the newest such JDK of the usual places. None: one line naming what was checked.
 */
function findJava (home, { env = process.env, folders = JVM_FOLDERS, run = spawnSync } = {}) {
  const bundled = path.join(home, 'jdk')
  if (fs.existsSync(path.join(bundled, 'bin', 'java'))) {
    return { home: fs.realpathSync.native(bundled), major: javaMajor(bundled, { run }), bundled: true }
  }
  const needed = requiredJava(home)
  const checked = []
  const fits = (major) => major !== null && (needed === null || major >= needed)
  if (env.JAVA_HOME) {
    const major = javaMajor(env.JAVA_HOME, { run })
    if (fits(major)) return { home: path.resolve(env.JAVA_HOME), major, bundled: false }
    checked.push(`JAVA_HOME ${env.JAVA_HOME} (${major === null ? 'no java' : `Java ${major}`})`)
  } else checked.push('JAVA_HOME (not set)')
  const candidates = installedJdks(folders).map((jdk) => ({ home: jdk, major: javaMajor(jdk, { run }) }))
  const usable = candidates.filter((c) => fits(c.major)).sort((a, b) => b.major - a.major)
  if (usable.length) return { ...usable[0], bundled: false }
  checked.push(...candidates.map((c) => `${c.home} (${c.major === null ? 'does not run' : `Java ${c.major}`})`))
  if (!candidates.length) checked.push(`no JDK under ${folders.join(', ')}`)
  throw new UsageError(`this CrateDB has no bundled jdk/ and needs Java ${needed ?? 'of its release'}${needed
    ? ' or newer' : ''}: checked ${checked.join(', ')}; install one or set JAVA_HOME`)
}

module.exports = { findJava, requiredJava, javaMajor, zipEntry, installedJdks }
