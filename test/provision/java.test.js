'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const zlib = require('node:zlib')
const { findJava, requiredJava, zipEntry } = require('../../lib/provision/java')
const { tempDir } = require('../helpers/temp-files')

/** A zip of one deflated entry, as a jar's manifest is stored. */
function zipOf (name, text) {
  const data = zlib.deflateRawSync(Buffer.from(text))
  const nameBytes = Buffer.from(name)
  const local = Buffer.alloc(30)
  local.writeUInt32LE(0x04034b50, 0)
  local.writeUInt16LE(8, 8)
  local.writeUInt32LE(data.length, 18)
  local.writeUInt32LE(text.length, 22)
  local.writeUInt16LE(nameBytes.length, 26)
  const central = Buffer.alloc(46)
  central.writeUInt32LE(0x02014b50, 0)
  central.writeUInt16LE(8, 10)
  central.writeUInt32LE(data.length, 20)
  central.writeUInt32LE(text.length, 24)
  central.writeUInt16LE(nameBytes.length, 28)
  central.writeUInt32LE(0, 42)
  const centralAt = local.length + nameBytes.length + data.length
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(1, 8)
  end.writeUInt16LE(1, 10)
  end.writeUInt32LE(central.length + nameBytes.length, 12)
  end.writeUInt32LE(centralAt, 16)
  return Buffer.concat([local, nameBytes, data, central, nameBytes, end])
}

/** A JDK folder whose java answers as Java `major` does. */
function jdk (dir, major) {
  fs.mkdirSync(path.join(dir, 'bin'), { recursive: true })
  fs.writeFileSync(path.join(dir, 'bin', 'java'), `#!/bin/sh\necho "    java.specification.version = ${major}" >&2\n`,
    { mode: 0o755 })
  return dir
}

test('the Java a distribution needs, from its server jar\'s manifest; the bundled one first, else JAVA_HOME, else ' +
  'the newest that fits; none: one line naming what was checked', (t) => {
  const root = tempDir(t)
  const home = path.join(root, 'crate')
  fs.mkdirSync(path.join(home, 'lib'), { recursive: true })
  fs.writeFileSync(path.join(home, 'lib', 'crate-server-6.4.3.jar'),
    zipOf('META-INF/MANIFEST.MF', 'Manifest-Version: 1.0\r\nJava-Version: 25\r\nBuild-Jdk-Spec: 25\r\n'))
  assert.equal(zipEntry(path.join(home, 'lib', 'crate-server-6.4.3.jar'), 'nothing'), null)
  assert.equal(requiredJava(home), 25)
  const jvms = path.join(root, 'jvm')
  jdk(path.join(jvms, 'java-17'), 17)
  jdk(path.join(jvms, 'temurin-25'), 25)
  jdk(path.join(jvms, 'temurin-26'), 26)
  assert.deepEqual(findJava(home, { env: {}, folders: [jvms] }),
    { home: path.join(jvms, 'temurin-26'), major: 26, bundled: false })
  assert.deepEqual(findJava(home, { env: { JAVA_HOME: path.join(jvms, 'temurin-25') }, folders: [jvms] }),
    { home: path.join(jvms, 'temurin-25'), major: 25, bundled: false })
  assert.throws(() => findJava(home, { env: { JAVA_HOME: path.join(jvms, 'java-17') },
    folders: [path.join(root, 'none')] }), new RegExp('this CrateDB has no bundled jdk/ and needs Java 25 or ' +
    `newer: checked JAVA_HOME ${path.join(jvms, 'java-17')} \\(Java 17\\), no JDK under .*none; install one or ` +
    'set JAVA_HOME$'))
  jdk(path.join(home, 'jdk'), 21)
  assert.equal(findJava(home, { env: {}, folders: [] }).bundled, true, 'a release\'s own jdk/ first')
})
