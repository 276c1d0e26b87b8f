'use strict'

const Table = require('cli-table3')

/** A cli-table3 table in the tool's plain style (no colours), for every table it prints. */
function table (head) {
  return new Table({
    head,
    style: { head: [], border: [], compact: true }
  })
}

module.exports = { table }
