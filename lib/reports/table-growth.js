'use strict'

// Whether a study's filled table stayed near one size: a table its cells append to (a grid's --prefill) grows with
// every run, and a study whose later runs found several times the rows of its first measured two tables.

// A table that grows this many times through a study: its runs did not measure one table size.
const TABLE_GROWTH_FACTOR = 3

/**
 * The fewest and the most rows a study's runs found at their start, when the table grew several-fold through it; null
 * otherwise (an empty table each run, or one that stayed near its size). `grid.cells[].table_at_start`: the table each
 * run of a cell found, as grid.json keeps it.
 */
function tableGrowth (grid) {
  const cells = Array.isArray(grid.cells) ? grid.cells.filter((c) => c && Array.isArray(c.table_at_start)) : []
  const docs = cells.flatMap((c) => c.table_at_start).map((t) => t && t.docs).filter((d) => typeof d === 'number')
  if (docs.length < 2) return null
  const first = Math.min(...docs)
  const last = Math.max(...docs)
  return first > 0 && last >= first * TABLE_GROWTH_FACTOR ? { first, last } : null
}

module.exports = { tableGrowth, TABLE_GROWTH_FACTOR }
