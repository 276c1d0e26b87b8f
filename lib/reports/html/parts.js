'use strict'

const fs = require('node:fs')

// What every page of the tool (the run's report, the comparison) is made of.

const escapeHtml = (text) =>
  String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c])

// JSON inside <script>: "</script>" and "<!--" must not end or open anything.
const scriptJson = (value) => JSON.stringify(value).replace(/</g, '\\u003c')

function echartsSource () {
  return fs.readFileSync(require.resolve('echarts/dist/echarts.min.js'), 'utf8')
}

// First in <body>: counts errors and console.error calls in body[data-errors], so a headless
// browser's DOM shows whether the page drew without complaint.
const ERROR_COUNTER = `<script>
window.__errors = [];
function __fail (message) {
  window.__errors.push(String(message)); document.body.dataset.errors = window.__errors.length
}
window.addEventListener('error', function (e) { __fail(e.message) });
(function () {
  var original = console.error
  console.error = function () { __fail([].join.call(arguments, ' ')); original.apply(console, arguments) }
})();
</script>`

// What every page with charts shares: the font and the charts' grid.
const CHART_PAGE_STYLE = `body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
h1 { font-size: 20px; margin: 0 0 8px; } h2 { font-size: 16px; margin: 24px 0 8px; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); gap: 16px; }
.chart { height: 320px; border: 1px solid #ddd; border-radius: 4px; }`

/** The start of a page of charts, to its <body>: its title, the shared style and the page's own. */
function chartPageHead (title, style = '') {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<style>
${CHART_PAGE_STYLE}
${style}
</style>
</head>`
}

module.exports = { escapeHtml, scriptJson, echartsSource, ERROR_COUNTER, chartPageHead }
