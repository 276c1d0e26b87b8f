'use strict'

const { CURRENT_TIMESTAMP_SQL } = require('./statements')

/**
 * This machine's clock against the server's CURRENT_TIMESTAMP (capture 65), NTP-style: the server read its clock
 * somewhere between send and answer, so offset = server - (sent + answered) / 2, within half the round trip. Of a
 * few samples the one with the shortest round trip wins. Returns { offsetMs, rttMs }: server time = local + offset.
 */
async function measureClockOffset (client, { samples = 5, clock = Date.now } = {}) {
  let best = null
  for (let i = 0; i < samples; i++) {
    const sent = clock()
    const answer = await client.sql(CURRENT_TIMESTAMP_SQL)
    const answered = clock()
    const server = Number(answer.rows[0][0])
    const rtt = answered - sent
    if (!Number.isFinite(server)) throw new Error(`CURRENT_TIMESTAMP answered ${JSON.stringify(answer.rows[0][0])}`)
    if (!best || rtt < best.rttMs) best = { offsetMs: server - (sent + answered) / 2, rttMs: rtt }
  }
  return { offsetMs: Math.round(best.offsetMs), rttMs: best.rttMs }
}

module.exports = { measureClockOffset }
