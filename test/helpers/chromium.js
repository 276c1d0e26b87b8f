'use strict'

// Headless Chromium for the tests that look at what the tool draws: the report page and the SVG charts. Where it is
// not installed those tests skip with a visible line (CI installs it: .ci/run).

const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium',
  '/usr/bin/chromium-browser'].find((p) => p && fs.existsSync(p))
const NO_CHROMIUM = CHROMIUM ? false : 'Chromium is not installed (CHROMIUM_PATH or /usr/bin/chromium): nothing is ' +
  'drawn in a browser'

// The flags that keep a headless start quiet on a machine with no network (see the machine notes).
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run']

function chromium (args, { width = 1400, height = 1300 } = {}) {
  return spawnSync(CHROMIUM, [...FLAGS, `--window-size=${width},${height}`, ...args], { encoding: 'utf8',
    timeout: 60_000 })
}

// Runs in the page once it has drawn: every text's box, which boxes overlap and which leave the picture.
const LAYOUT_SCRIPT = `<script>
window.addEventListener('load', function () { setTimeout(function () {
  var svgs = [].slice.call(document.querySelectorAll('svg'))
  var texts = [].slice.call(document.querySelectorAll('svg text')).filter(function (t) { return t.textContent.trim() })
  var boxes = texts.map(function (t) {
    var r = t.getBoundingClientRect(); var svg = t.ownerSVGElement.getBoundingClientRect()
    var picture = svgs.indexOf(t.ownerSVGElement)
    return { text: t.textContent, picture: picture, x: r.left - svg.left, y: r.top - svg.top, w: r.width, h: r.height,
      W: svg.width, H: svg.height }
  })
  var overlaps = []
  var outside = []
  boxes.forEach(function (a, i) {
    if (a.x < -1 || a.y < -1 || a.x + a.w > a.W + 1 || a.y + a.h > a.H + 1) outside.push(a.text)
    boxes.slice(i + 1).forEach(function (b) {
      if (a.picture !== b.picture) return
      var w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x)
      var h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y)
      if (w > 2 && h > 2) overlaps.push([a.text, b.text])
    })
  })
  document.body.setAttribute('data-layout', JSON.stringify({ texts: boxes.length, overlaps: overlaps,
    outside: outside }))
}, 200) })
</script>`

/**
 * Loads a page (or an SVG, wrapped in a page) and measures its texts where Chromium laid them out: the pairs of
 * texts that overlap and the texts cut at the picture's edge. Writes a screenshot beside it.
 */
function textLayout (file, { width, height } = {}) {
  const source = fs.readFileSync(file, 'utf8')
  const page = file.endsWith('.svg')
    ? `<!doctype html><html><body style="margin:0">${source}${LAYOUT_SCRIPT}</body></html>`
    : source.slice(0, source.lastIndexOf('</body>')) + LAYOUT_SCRIPT + source.slice(source.lastIndexOf('</body>'))
  const wrapped = `${file}.layout.html`
  fs.writeFileSync(wrapped, page)
  const dom = chromium(['--virtual-time-budget=5000', '--dump-dom', `file://${wrapped}`], { width, height })
  const match = /data-layout="([^"]*)"/.exec(dom.stdout)
  if (!match) throw new Error(`Chromium measured nothing in ${path.basename(file)}:\n${dom.stderr.slice(-500)}`)
  chromium([`--screenshot=${file}.png`, `file://${wrapped}`], { width, height })
  return JSON.parse(match[1].replace(/&quot;/g, '"').replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>'))
}

/**
 * Debian's Chromium driven by playwright-core, for a page a test must interact with (the live page): nothing is
 * downloaded, the browser is the one `chromium` uses. Close it with browser.close().
 */
async function launchBrowser () {
  const { chromium: playwright } = require('playwright-core')
  return playwright.launch({
    executablePath: CHROMIUM,
    args: FLAGS.filter((flag) => flag !== '--headless').concat('--disable-quic')
  })
}

module.exports = { CHROMIUM, NO_CHROMIUM, chromium, textLayout, launchBrowser }
