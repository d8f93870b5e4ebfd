#!/usr/bin/env node
'use strict';
// The `strata` operator CLI: runs the built CLI, building dist/ first when it is missing or stale.
const path = require('node:path');
const { ensureBuild } = require('../scripts/ensure-build.js');

const entry = path.join('apps', 'cli', 'src', 'main.js');
if (!ensureBuild({ entry })) process.exit(1);
require(path.join(__dirname, '..', 'dist', entry));
