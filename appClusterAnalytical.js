#!/usr/bin/env node
'use strict'

require('dotenv').config({ quiet: true })
require('./lib/run/runner').main(require('./lib/workloads/analytical'))
