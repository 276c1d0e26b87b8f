'use strict'

/**
 * @typedef {object} Transport How statements reach the cluster: CrateDB's HTTP endpoint (lib/cluster/http-client.js,
 * CrateClient), or its PostgreSQL wire protocol (lib/cluster/pg-client.js, PgClient). The engine, the workloads'
 * prepare and finish, the monitor and the fleet use only these members, so they do not know which one they have.
 * @property {{ base: string }[]} hosts every host of the cluster, by its base URL
 * @property {'json'|'pg-batch'} bulkEncoding what a bulk body may be besides the HTTP endpoint's JSON, which every
 *   transport takes: 'pg-batch' is the PostgreSQL protocol's messages of a JDBC batch (lib/data/pg-batch-rows.js),
 *   sent as written; a bulk answer may then be { allRowsOk: n } for n rows each stored
 * @property {(body: string|Buffer, options?: { target?: object, parse?: Function, timeoutMs?: number }) =>
 *   Promise<object>} post one request of a workload (a prepared body) to the next host that answers, with its
 *   deadline (--timeout, headers and body together) and a cap on its answer's size; resolves with the parsed answer,
 *   rejects with CrateHttpError (the server said no) or TransportError (no answer; `sent` says whether it may have
 *   reached the server)
 * @property {(stmt: string, args?: Array, options?: object) => Promise<object>} sql one statement, its values as
 *   parameters, never in its text
 * @property {() => Promise<Error[]>} requireOneHost a check of every host before any DDL; throws when none answers or
 *   a setting is wrong (password, TLS), returns the failures of the hosts that did not answer
 * @property {() => string[]} downHosts the hosts down now, for transports started later (the workers)
 * @property {() => void} abort abandons every request in flight (Ctrl-C twice): each rejects as ABORTED
 * @property {() => void} close
 * @property {(event: 'host-down'|'host-up', listener: Function) => void} on failover's events: 'host-down'
 *   ({ host, detail, at }), 'host-up' ({ host, at })
 */

// The members a transport has: test/cluster/transport.test.js holds CrateClient to them.
const TRANSPORT_MEMBERS = ['hosts', 'bulkEncoding', 'post', 'sql', 'requireOneHost', 'downHosts', 'abort', 'close',
  'on']

/**
 * The transport a connection's settings ask for: the HTTP endpoint (CrateClient), or with protocol 'pg' the
 * PostgreSQL wire protocol (PgClient). Only what is loaded is paid for.
 */
function createTransport (connection, settings = {}) {
  if (connection.protocol === 'pg') {
    const { PgClient } = require('./pg-client')
    return new PgClient({ ...connection, ...settings })
  }
  const { CrateClient } = require('./http-client')
  return new CrateClient({ ...connection, ...settings })
}

module.exports = { TRANSPORT_MEMBERS, createTransport }
