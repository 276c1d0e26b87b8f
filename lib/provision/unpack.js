'use strict'

const fs = require('node:fs')
const path = require('node:path')
const zlib = require('node:zlib')
const { pipeline } = require('node:stream/promises')
const { Transform, Writable } = require('node:stream')

// A tarball unpacked as a careful root would: streamed from disk to disk (gunzip, then the tar entries written one at a
// time with back-pressure, so memory stays flat whatever the archive holds), stopped at a cap on the bytes it unpacks
// (a gzip bomb ends there, not in the machine's memory), and at once on an abort signal (Ctrl-C). What lands on disk
// belongs to the user who unpacks, with no setuid, setgid or sticky bit and nothing writable by others: a release's
// `id` of mode 4755 and owner 0 must never become a root shell for the nodes' user. Only files, folders and links
// that stay inside the archive's top folder are taken; a device, a FIFO, a socket or a link out is refused.

const ALLOWED_TYPES = new Set(['File', 'OldFile', 'ContiguousFile', 'Directory', 'SymbolicLink', 'Link'])
// Permission bits kept: the owner's all, read and execute for the rest. setuid, setgid, sticky and write by the
// group or others never survive.
const KEPT_MODE = 0o755

/** Ends the stream with `refuse()` once more than `maxBytes` have passed. */
function capped (maxBytes, refuse) {
  let bytes = 0
  return new Transform({
    transform (chunk, _encoding, done) {
      bytes += chunk.length
      if (bytes > maxBytes) return done(refuse())
      done(null, chunk)
    }
  })
}

/** Why an archive's entry is refused, or null: its kind, or a link whose target leaves the top folder. */
function refusal (entry) {
  if (!ALLOWED_TYPES.has(entry.type)) return `it holds ${entry.path}, a ${entry.type} entry (only files, folders and ` +
    'links are unpacked)'
  if (entry.type === 'SymbolicLink') {
    const target = String(entry.linkpath)
    const top = String(entry.path).split('/')[0]
    const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(String(entry.path)), target))
    if (path.posix.isAbsolute(target) || !(resolved === top || resolved.startsWith(`${top}/`))) {
      return `it holds ${entry.path}, a link to ${target} outside its top folder`
    }
  }
  return null
}

/** A stream writable into tar's Unpack: its back-pressure (write() false until 'drain') honoured, its end awaited. */
function intoUnpacker (unpacker) {
  let failure = null
  unpacker.on('error', (error) => { failure ||= error })
  return new Writable({
    write (chunk, _encoding, done) {
      if (failure) return done(failure)
      if (unpacker.write(chunk)) return done()
      unpacker.once('drain', () => done(failure))
    },
    final (done) {
      if (failure) return done(failure)
      unpacker.once('close', () => done(failure))
      unpacker.end()
    },
    destroy (error, done) {
      if (error) unpacker.abort(error)
      done(error)
    }
  })
}

/**
 * Unpacks the gzipped tarball `file` into the folder `into` (made by the caller, empty), hashing its bytes on the
 * way with `hash` (a Transform). Throws an Error saying why when it holds what is refused, unpacks past `maxBytes`,
 * or `signal` aborts; the caller removes `into` then.
 */
async function unpackInto (file, into, { maxBytes, signal, hash }) {
  const tar = require('tar')
  let refused = null
  const unpacker = new tar.Unpack({
    cwd: into,
    strict: true,
    preservePaths: false,
    // Entries belong to whoever unpacks, never to the uid the archive names (root's 0, say).
    preserveOwner: false,
    filter: (_path, entry) => {
      const why = refusal(entry)
      if (why) {
        refused ||= why
        return false
      }
      entry.mode = (entry.mode ?? KEPT_MODE) & KEPT_MODE
      return true
    }
  })
  const stages = [fs.createReadStream(file), ...(hash ? [hash] : []), zlib.createGunzip(),
    capped(maxBytes, () => new Error(`it unpacks to more than ${mb(maxBytes)}, the cap of --max_unpacked`)),
    intoUnpacker(unpacker)]
  await pipeline(stages, signal ? { signal } : {})
  if (refused) throw new Error(refused)
  checkTree(into)
}

const mb = (bytes) => `${Math.round(bytes / 1024 / 1024)} MB`

/**
 * Every path under `dir` as a careful unpack leaves it, checked again on disk: owned by this user, no special bits,
 * nothing writable by others, files, folders and links only. Modes are mended where tar's own left more.
 */
function checkTree (dir, { uid = process.getuid ? process.getuid() : null } = {}) {
  for (const entry of fs.readdirSync(dir)) {
    const at = path.join(dir, entry)
    const stat = fs.lstatSync(at)
    if (uid !== null && stat.uid !== uid) throw new Error(`${at} belongs to uid ${stat.uid}, not the unpacking user`)
    if (stat.isSymbolicLink()) continue
    if (!stat.isFile() && !stat.isDirectory()) throw new Error(`it holds ${at}, neither a file nor a folder`)
    if ((stat.mode & 0o7777 & ~KEPT_MODE) !== 0) fs.chmodSync(at, stat.mode & KEPT_MODE)
    if (stat.isDirectory()) checkTree(at, { uid })
  }
}

/**
 * Why the unpacked release `top` is refused, or null: a link anywhere in it that, resolved on disk (where a link to
 * `.` makes `sub/sub/..` another place than the text says), leads outside `top` or nowhere; or a `bin` that is no
 * real folder holding a real bin/crate (a start copies the files of bin/).
 */
function linksLeaving (top) {
  const realTop = fs.realpathSync.native(top)
  const inside = (real) => real === realTop || real.startsWith(`${realTop}${path.sep}`)
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir)) {
      const at = path.join(dir, entry)
      const stat = fs.lstatSync(at)
      if (stat.isSymbolicLink()) {
        let real
        try {
          real = fs.realpathSync.native(at)
        } catch {
          return `it holds ${path.relative(top, at)}, a link to ${fs.readlinkSync(at)} that leads nowhere`
        }
        if (!inside(real)) {
          return `it holds ${path.relative(top, at)}, a link that leads outside its top folder (to ${real})`
        }
      } else if (stat.isDirectory()) {
        const why = walk(at)
        if (why) return why
      }
    }
    return null
  }
  const why = walk(top)
  if (why) return why
  let bin
  try {
    bin = fs.lstatSync(path.join(top, 'bin'))
  } catch {
    return 'it has no bin/'
  }
  if (!bin.isDirectory()) return 'its bin is no real folder (a link?)'
  let crate
  try {
    crate = fs.lstatSync(path.join(top, 'bin', 'crate'))
  } catch {
    return 'it has no bin/crate'
  }
  return crate.isFile() ? null : 'its bin/crate is no regular file'
}

module.exports = { unpackInto, checkTree, refusal, linksLeaving, KEPT_MODE }
