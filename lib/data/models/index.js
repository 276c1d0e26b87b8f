'use strict'

// The data models of the ingest benchmark (--model). Each names its tables and makes a row
// writer per table and worker; the engine, accounting and report are the same for all.
const MODELS = {
  cpu: require('./cpu'),
  devops: require('./devops'),
  loadtest: require('./loadtest'),
  kv: require('./kv')
}

module.exports = { MODELS, MODEL_NAMES: Object.keys(MODELS) }
