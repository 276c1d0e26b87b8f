#!/usr/bin/env node
'use strict'

require('dotenv').config({ quiet: true })
require('./lib/runner').main(require('./lib/workloads/analytical'))
