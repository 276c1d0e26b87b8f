'use strict'

const fs = require('node:fs')
const zlib = require('node:zlib')
const { Header } = require('tar')

// Tarballs written entry by entry, with whatever an attacker would put in a header (a mode of 4755, an owner of 0, a
// FIFO, a device, a link out of the archive), which no packing of real files makes on an unprivileged machine.

const BLOCK = 512

/**
 * Writes the gzipped tarball `file` of `entries`, each { path, type ('File', 'Directory', 'FIFO', 'CharacterDevice',
 * 'SymbolicLink', …), mode, uid, gid, body (text or Buffer, files), size (a file of zeros), linkpath }.
 */
function writeTarball (file, entries) {
  const blocks = []
  for (const entry of entries) {
    const body = entry.body === undefined ? Buffer.alloc(entry.size ?? 0) : Buffer.from(entry.body)
    const header = new Header({ path: entry.path, type: entry.type ?? 'File', mode: entry.mode ?? 0o644,
      uid: entry.uid ?? 0, gid: entry.gid ?? 0, size: ['File', undefined].includes(entry.type) ? body.length : 0,
      mtime: new Date(0), linkpath: entry.linkpath, devmaj: 0, devmin: 0 })
    header.encode()
    blocks.push(header.block)
    if (header.size > 0) {
      blocks.push(body, Buffer.alloc((BLOCK - (body.length % BLOCK)) % BLOCK))
    }
  }
  blocks.push(Buffer.alloc(2 * BLOCK))
  fs.writeFileSync(file, zlib.gzipSync(Buffer.concat(blocks)))
  return file
}

/** The entries of a minimal release: its top folder `top` with bin/crate, lib/ and a jar naming `version`. */
function releaseEntries (top = 'crate', version = '9.9.9') {
  return [
    { path: `${top}/`, type: 'Directory', mode: 0o755 },
    { path: `${top}/bin/`, type: 'Directory', mode: 0o755 },
    { path: `${top}/bin/crate`, mode: 0o755, body: '#!/bin/sh\nexit 0\n' },
    { path: `${top}/lib/`, type: 'Directory', mode: 0o755 },
    { path: `${top}/lib/crate-server-${version}.jar`, body: '' }
  ]
}

module.exports = { writeTarball, releaseEntries }
