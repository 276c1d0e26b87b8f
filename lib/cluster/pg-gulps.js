'use strict'

// How a pg connection reads a batch's answer (lib/cluster/pg-connection.js), in a file of its own so that the report
// can say it (lib/reports/text.js) without loading the PostgreSQL client into every run.
//
// CrateDB flushes a batch's answer row by row as it executes them (capture pgwire/15: 5,000 rows in 1,066-1,326 TCP
// reads of 21 or 42 bytes), all of them in a burst at the end of the batch (a real 6.4.3 node, batches of 5,000, 8
// in flight: nothing for the first 1.0-2.0 s of the request, then the 5,000 answers within 40-100 ms of the first).
// Read as it comes, each read wakes the client for one row (12 us of CPU a row there, 6x HTTP's). So a batch's answer
// is read in gulps: after a read the socket stops reading until its gulp is due, and what came meanwhile is one read.
// A gulp that outlasts the burst does most: the client's receive window closes, the node holds the rest of the
// answer and sends it in a few large segments once the gulp ends (reads of a request at 20-ms gulps on that node:
// 1, 13, 2,329, 1, 16, 1,714, 922 rows; at 100 ms: 1, then 4,999 in two full reads). A gulp waits GATHER_SHARE of the
// time the request has taken so far, at most MAX_GATHER_MS (a request younger than MIN_GATHER_MS / GATHER_SHARE reads
// as it comes): the ReadyForQuery, where the latency ends, is read at most that late, so a latency is never
// overstated by more than GATHER_SHARE of itself (5%: 50 ms of a 1-s batch) nor by more than MAX_GATHER_MS. On that
// node the client's CPU a row, alternated 3 times each (docs/pg-or-http.md): gulps of 2%, at most 20 ms, 2.67-3.05
// us (1.61x HTTP's 1.63-1.97); 5%, at most 100 ms, 2.02-2.41 (1.20x); 10%, at most 100 ms, 2.26-2.35 (1.28x).
// Once every row is answered, what is left (the ReadyForQuery) is read as it comes.
const GATHER_SHARE = 0.05
const MIN_GATHER_MS = 1
const MAX_GATHER_MS = 100

module.exports = { GATHER_SHARE, MIN_GATHER_MS, MAX_GATHER_MS }
