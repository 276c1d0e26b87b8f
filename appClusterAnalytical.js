#!/usr/bin/env node
'use strict'

require('./lib/cli/interrupts').holdSignals()
require('./lib/run/runner').main(require('./lib/workloads/analytical'))
