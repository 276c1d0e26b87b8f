'use strict'

// What watching a run live costs the client: --metrics_port scraped as Prometheus would, --ui with a page open as a
// browser keeps it, and the arithmetic that brings an amplified watch back to one a second.

const { freePort, median } = require('./harness')

/**
 * --metrics_port, scraped as Prometheus would (every second by default), one scrape at a time: what watching a run
 * live costs the client. Returns the run's result and how many scrapes a second were served.
 */
async function withScraper (fn, { everyMs = 1000 } = {}) {
  const port = await freePort()
  let stopped = false
  const served = []
  const scraping = (async () => {
    while (!stopped) {
      try {
        await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
        served.push(performance.now())
      } catch { /* not listening yet, or gone */ }
      await new Promise((resolve) => setTimeout(resolve, everyMs))
    }
  })()
  let result
  try {
    result = await fn(['--metrics_port', String(port)])
  } finally {
    stopped = true
    await scraping
  }
  return { result, scrapesPerSec: perSecond(served) }
}

/** How many a second, from the moments they happened at (ms). */
function perSecond (moments) {
  const spanMs = moments.length > 1 ? moments[moments.length - 1] - moments[0] : 0
  return spanMs > 0 ? ((moments.length - 1) * 1000) / spanMs : 0
}

/**
 * What one scrape (or one tick of the live page) a second costs, as a multiple of the unwatched run's CPU: from a run
 * that had `perSec` of them a second (far more than Prometheus or the page ask for, so that their cost stands well
 * above the machine's noise), each one's CPU (the extra CPU of the load, for as many units, over how many it had)
 * against the unwatched run's CPU a second. Runs: { cpuSeconds, loadSeconds, units }.
 */
function oneASecond (unwatched, watched, perSec) {
  const extraSeconds = watched.cpuSeconds - unwatched.cpuSeconds * (watched.units / unwatched.units)
  const each = extraSeconds / (perSec * watched.loadSeconds)
  return 1 + each / (unwatched.cpuSeconds / unwatched.loadSeconds)
}

/** The watched run's CPU per unit against the unwatched run's: what the many scrapes or ticks cost together. */
const perUnitRatio = (unwatched, watched) =>
  (watched.cpuSeconds / watched.units) / (unwatched.cpuSeconds / unwatched.units)

/** The median over rounds of a figure of each round's pair of runs. */
const pairedMedian = (as, bs, figure) => Math.round(median(as.map((a, i) => figure(a, bs[i]))) * 1000) / 1000

/**
 * --ui with one page open, as a browser keeps it: the page loaded once, its event stream read to the end, then the
 * report it turns into. What serving the live page costs the client (the browser's own work is not the tool's).
 * With `tickMs` the tool ticks that often instead of every second. Returns the run's result and the ticks a second
 * the page received.
 */
async function withOpenPage (fn, { tickMs = null } = {}) {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  let stopped = false
  const ticks = []
  const watching = (async () => {
    while (!stopped) {
      try {
        await (await fetch(`${base}/`)).text()
        const events = await fetch(`${base}/events`)
        const reader = events.body.getReader()
        let text = ''
        while (!(await reader.read().then(({ value, done }) => {
          if (value) {
            const chunk = Buffer.from(value).toString()
            text += chunk
            const at = performance.now()
            for (let k = (chunk.match(/^event: tick$/gm) || []).length; k > 0; k--) ticks.push(at)
          }
          return done
        }))) { /* read every event, as the page does */ }
        if (/event: done/.test(text)) await (await fetch(`${base}/report`)).text()
        return
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
  })()
  let result
  try {
    result = await fn(['--ui', String(port)], tickMs ? { CRATE_BENCH_UI_TICK_MS: String(tickMs) } : {})
  } finally {
    stopped = true
    await watching
  }
  return { result, ticksPerSec: perSecond(ticks) }
}

/** A run's load as oneASecond takes it: its CPU and wall seconds, and the units it carried. */
function loadOf (result, units) {
  return { cpuSeconds: result.client.cpu_seconds, loadSeconds: result.seconds, units }
}

module.exports = { withScraper, withOpenPage, perSecond, oneASecond, perUnitRatio, pairedMedian, loadOf }
