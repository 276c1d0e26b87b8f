'use strict'

// How a pg connection reads a batch's answer (lib/cluster/pg-connection.js), in a file of its own so that the report
// can say it (lib/reports/text.js) without loading the PostgreSQL client into every run.
//
// CrateDB flushes a batch's answer row by row as it executes them (capture pgwire/15: 5,000 rows in 1,066-1,326 TCP
// reads of 21 or 42 bytes), all of them in a burst at the end of the batch (a real 6.4.3 node, batches of 5,000, 8
// in flight: nothing for the first 1.54 s of a 1.77-s request, then 5,000 answers in 0.22 s). Read as it comes,
// each read wakes the client for one row (12 us of CPU a row there, 6x HTTP's). So a batch's answer is read in
// gulps: after a read the socket stops reading until its gulp is due, and the rows flushed meanwhile come in one read
// (and the kernel joins their segments into a few while nobody reads them). A gulp waits GATHER_SHARE of the time
// the request has taken so far, at most MAX_GATHER_MS (a request younger than MIN_GATHER_MS / GATHER_SHARE reads as
// it comes): the ReadyForQuery, where the latency ends, is read at most that late, so a latency is never overstated
// by more than GATHER_SHARE of itself (2%: 20 ms of a 1-s batch) nor by more than MAX_GATHER_MS. On that real node
// the client's CPU a row went from 3.3-4.2 us with gulps of 0.5% (at most 10 ms) to 2.2-3.1 with these, HTTP's
// 1.8-1.9 (docs/pg-or-http.md). Once every row is answered, what is left (the ReadyForQuery) is read as it comes.
const GATHER_SHARE = 0.02
const MIN_GATHER_MS = 1
const MAX_GATHER_MS = 20

module.exports = { GATHER_SHARE, MIN_GATHER_MS, MAX_GATHER_MS }
