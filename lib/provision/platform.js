'use strict'

const { UsageError } = require('../base/errors')

// Where CrateDB's releases are, per platform: from 4.2 on one tarball per operating system and processor, with its own
// JDK (jdk/). A mirror or an air-gapped site's copy replaces the template (CRATE_BENCH_DOWNLOAD_URL).

const DEFAULT_DOWNLOAD_URL = 'https://cdn.crate.io/downloads/releases/cratedb/{arch}_{os}/crate-{version}.tar.gz'
const OS = { linux: 'linux', darwin: 'mac' }
const ARCH = { x64: 'x64', arm64: 'aarch64' }
// The first release published per platform; older ones were one tarball for every platform, without a JDK.
const FIRST_PER_PLATFORM = [4, 2, 0]

/** { os, arch } as CrateDB's release folders name them; a platform it publishes nothing for is one line. */
function platformOf ({ platform = process.platform, arch = process.arch } = {}) {
  if (!OS[platform] || !ARCH[arch]) {
    throw new UsageError(`CrateDB publishes no release for ${platform} on ${arch}: give --tarball with a build for ` +
      'this machine')
  }
  return { os: OS[platform], arch: ARCH[arch] }
}

/** [major, minor, patch] of "X.Y.Z", or a one-line error naming what a version looks like. */
function parseVersion (text) {
  const m = /^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})$/.exec(String(text))
  if (!m) throw new UsageError(`--version must be a CrateDB release such as 6.4.3 (got '${text}')`)
  const parts = m.slice(1).map(Number)
  const older = parts.findIndex((p, i) => p !== FIRST_PER_PLATFORM[i])
  if (older >= 0 && parts[older] < FIRST_PER_PLATFORM[older]) {
    throw new UsageError(`CrateDB ${text} has no release per platform (those begin with ` +
      `${FIRST_PER_PLATFORM.join('.')}): give --tarball`)
  }
  return parts
}

/**
 * The download URL of a release: the template's {version}, {os} and {arch} filled in. The template is
 * CRATE_BENCH_DOWNLOAD_URL when set (it must name {version}: one URL for every version would cache one as another).
 */
function downloadUrl (version, { env = process.env, platform = platformOf() } = {}) {
  parseVersion(version)
  const template = env.CRATE_BENCH_DOWNLOAD_URL || DEFAULT_DOWNLOAD_URL
  if (!template.includes('{version}')) {
    throw new UsageError(`CRATE_BENCH_DOWNLOAD_URL must contain {version} (got '${template}')`)
  }
  let url
  try {
    url = new URL(template.replaceAll('{version}', version).replaceAll('{os}', platform.os)
      .replaceAll('{arch}', platform.arch))
  } catch {
    throw new UsageError(`CRATE_BENCH_DOWNLOAD_URL is no URL (got '${template}')`)
  }
  if (!['http:', 'https:', 'file:'].includes(url.protocol)) {
    throw new UsageError(`CRATE_BENCH_DOWNLOAD_URL must be an http, https or file URL (got '${template}')`)
  }
  return url.href
}

module.exports = { platformOf, parseVersion, downloadUrl, DEFAULT_DOWNLOAD_URL }
