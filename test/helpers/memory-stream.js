'use strict'

/** A writable stand-in for stdout or stderr that keeps what is written in `text`. */
const memoryStream = () => ({ text: '', write (chunk) { this.text += chunk } })

module.exports = { memoryStream }
