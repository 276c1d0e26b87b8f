'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { platformOf, parseVersion, downloadUrl } = require('../../lib/provision/platform')

test('the release URL per platform: CrateDB\'s folders, from 4.2 on; a mirror\'s template with {version}', () => {
  const linux = platformOf({ platform: 'linux', arch: 'x64' })
  const mac = platformOf({ platform: 'darwin', arch: 'arm64' })
  assert.deepEqual([linux, mac], [{ os: 'linux', arch: 'x64' }, { os: 'mac', arch: 'aarch64' }])
  assert.equal(downloadUrl('6.4.3', { env: {}, platform: linux }),
    'https://cdn.crate.io/downloads/releases/cratedb/x64_linux/crate-6.4.3.tar.gz')
  assert.equal(downloadUrl('4.2.0', { env: {}, platform: mac }),
    'https://cdn.crate.io/downloads/releases/cratedb/aarch64_mac/crate-4.2.0.tar.gz')
  const mirror = { CRATE_BENCH_DOWNLOAD_URL: 'http://mirror.internal/crate/{os}/{arch}/crate-{version}.tgz' }
  assert.equal(downloadUrl('5.10.1', { env: mirror, platform: linux }),
    'http://mirror.internal/crate/linux/x64/crate-5.10.1.tgz')
  assert.throws(() => platformOf({ platform: 'win32', arch: 'x64' }), /no release for win32 on x64: give --tarball/)
  assert.throws(() => parseVersion('4.1.9'), /CrateDB 4\.1\.9 has no release per platform .*: give --tarball/)
  assert.throws(() => parseVersion('3.3.5'), /has no release per platform/)
  assert.doesNotThrow(() => parseVersion('10.0.0'))
  for (const bad of ['6.4', 'latest', '6.4.3-rc1', '../6.4.3']) {
    assert.throws(() => parseVersion(bad), /--version must be a CrateDB release such as 6\.4\.3/, bad)
  }
  assert.throws(() => downloadUrl('6.4.3', { env: { CRATE_BENCH_DOWNLOAD_URL: 'http://m/crate.tgz' }, platform: linux }),
    /must contain \{version\}/)
  assert.throws(() => downloadUrl('6.4.3', { env: { CRATE_BENCH_DOWNLOAD_URL: 'ftp://m/{version}' }, platform: linux }),
    /must be an http, https or file URL/)
})
