'use strict'

/**
 * Reads a server-sent-events body (a fetch response's) to its end, calling onEvent(name, data) with each event's
 * JSON: the fleet's page follows its generators' pages this way, as a browser's EventSource would.
 */
async function readEventStream (body, onEvent) {
  const reader = body.getReader()
  let text = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return
    text += Buffer.from(value).toString()
    let end
    while ((end = text.indexOf('\n\n')) >= 0) {
      const block = text.slice(0, end)
      text = text.slice(end + 2)
      const event = /^event: (.*)$/m.exec(block)
      const data = /^data: (.*)$/m.exec(block)
      if (event && data && onEvent(event[1], JSON.parse(data[1])) === false) return reader.cancel().catch(() => {})
    }
  }
}

module.exports = { readEventStream }
