'use strict'

// What a table holds on disk, as the cluster reports it: merges and a growing table are what slow a long ingest.
const SHARDS_SQL = 'SELECT count(*), sum(size), sum(num_docs) FROM sys.shards WHERE schema_name = ? AND ' +
  'table_name = ? AND "primary" = true'
const SEGMENTS_SQL = 'SELECT count(*) FROM sys.segments WHERE table_schema = ? AND table_name = ? AND "primary" = true'

/**
 * The primary shards' size, documents and Lucene segments of `tables` ({ schema, table }), summed; null (with the
 * warning logged) when the cluster would not say: a figure beside the run, never a reason to fail it.
 */
async function tableStorage (client, tables, log = () => {}) {
  const total = { shards: 0, size_bytes: 0, docs: 0, segments: 0 }
  try {
    for (const t of tables) {
      const [shards, size, docs] = (await client.sql(SHARDS_SQL, [t.schema, t.table])).rows[0]
      const [segments] = (await client.sql(SEGMENTS_SQL, [t.schema, t.table])).rows[0]
      total.shards += Number(shards) || 0
      total.size_bytes += Number(size) || 0
      total.docs += Number(docs) || 0
      total.segments += Number(segments) || 0
    }
    return total
  } catch (error) {
    log(`warning: could not read the table's size and segments: ${error.message}`)
    return null
  }
}

module.exports = { tableStorage, SHARDS_SQL, SEGMENTS_SQL }
