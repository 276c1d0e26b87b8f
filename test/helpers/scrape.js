'use strict'

/**
 * Scrapes a running tool's /metrics until its text matches `patterns` (one or a list, each to match), as often as
 * every `everyMs`, and gives up once the child has exited: the text of the last scrape. A single scrape after a fixed
 * wait misses what a loaded machine has not reported yet (its workers still starting when the endpoint answers).
 */
async function scrapeUntil (port, patterns, child, { everyMs = 200 } = {}) {
  const all = [patterns].flat()
  let text = ''
  for (;;) {
    const exited = child.exitCode !== null || child.signalCode !== null
    try {
      text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
    } catch {
      // The endpoint is gone with the run: the last scrape's text stands.
    }
    if (all.every((pattern) => pattern.test(text)) || exited) return text
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
}

module.exports = { scrapeUntil }
