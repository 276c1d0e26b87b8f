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

module.exports = { escapeHtml, scriptJson, echartsSource, ERROR_COUNTER }
