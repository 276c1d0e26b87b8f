'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { chartsOf } = require('../reports/html')
const { escapeHtml, echartsSource, ERROR_COUNTER, chartPageHead } = require('../reports/html/parts')

const REPORT_PAGE_SCRIPT = path.join(__dirname, '..', 'reports', 'html', 'page.js')
const LIVE_SCRIPT = path.join(__dirname, 'live-page-script.js')

const LIVE_STYLE = `.bar { display: flex; flex-wrap: wrap; gap: 8px 24px; align-items: baseline; margin: 8px 0; }
.figure b { font-size: 18px; }
.progress { height: 6px; background: #eee; border-radius: 3px; margin: 8px 0 16px; }
.progress div { height: 6px; background: #5470c6; border-radius: 3px; width: 0; }
.controls { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; padding: 8px 12px; background: #f6f6f6;
  border-radius: 4px; margin-bottom: 16px; }
.controls input { width: 110px; margin-left: 4px; }
/* A group's rate and its Set button stay together, apart from the next group's label. */
#rate-controls button { margin: 0 16px 0 6px; }
#message { color: #555; }
#message.error { color: #b00; }
.behind b { color: #b00; }
[hidden] { display: none !important; }`

/**
 * The live page: one file with nothing from outside the tool (ECharts inlined, as in the report). Its charts are
 * the report's, drawn by the report's own code (reports/html/page.js) each second from the server-sent events; the
 * latency distribution waits for the report, which the page turns into at the end.
 */
function renderLivePage ({ workload, options }) {
  const charts = chartsOf({ queries: workload.name === 'analytical' ? [] : undefined })
    .filter(([id]) => id !== 'distribution')
  const title = `${workload.name} benchmark, run ${options.runId}: live`
  return `${chartPageHead(title, LIVE_STYLE)}
<body data-charts="0" data-errors="0" data-phase="starting" data-ticks="0">
${ERROR_COUNTER}
<h1>${escapeHtml(title)}</h1>
<div class="bar">
  <span class="figure">phase <b id="phase">starting</b></span>
  <span class="figure">time <b id="elapsed">-</b></span>
  <span class="figure">${escapeHtml(workload.unit)} ok <b id="ok">-</b></span>
  <span class="figure">${escapeHtml(workload.unit)}/s <b id="rate">-</b></span>
  <span class="figure">target/s <b id="target">-</b></span>
  <span class="figure">failed <b id="failed">-</b></span>
  <span class="figure">in doubt <b id="in-doubt">-</b></span>
  <span class="figure" id="stage-figure" hidden>stage <b id="stage">-</b></span>
  <span class="figure behind" id="behind-figure" hidden>not holding its target: <b id="behind">-</b></span>
  <span class="figure" id="companion-figure" hidden>ingest beside it <b id="companion">-</b></span>
</div>
<div class="progress"><div id="progress"></div></div>
<div class="controls">
  <span id="rate-controls"></span>
  <label id="token-label" hidden>token <input id="token" type="password" autocomplete="off"></label>
  <button id="stop" type="button">Stop the run</button>
  <span id="message"></span>
</div>
<div class="charts">
${charts.map(([id, text]) => `<div class="chart" id="chart-${id}" data-title="${escapeHtml(text)}"></div>`).join('\n')}
</div>
<script>${echartsSource()}</script>
<script>${fs.readFileSync(REPORT_PAGE_SCRIPT, 'utf8')}</script>
<script type="application/json" id="live-charts">${JSON.stringify(charts.map(([id]) => id))}</script>
<script>${fs.readFileSync(LIVE_SCRIPT, 'utf8')}</script>
</body>
</html>
`
}

module.exports = { renderLivePage }
