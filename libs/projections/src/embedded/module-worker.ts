import * as path from 'node:path';
import { Worker } from 'node:worker_threads';

/** The repository root, from here (libs/projections/src/embedded or its copy under dist/). */
const SOURCE_ROOT = path.resolve(__dirname, '../../../..');

// Plain JavaScript, evaluated as the worker's first script. From dist/ it only requires the
// compiled entry. From TypeScript sources (the test suite runs them through swc) it compiles
// each .ts file with swc on require and maps @strata/* the way jest's moduleNameMapper does.
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
const { entry, root } = workerData.__module;
if (entry.endsWith('.ts')) {
  const fs = require('node:fs');
  const path = require('node:path');
  const Module = require('node:module');
  const swc = require('@swc/core');
  const options = JSON.parse(fs.readFileSync(path.join(root, '.swcrc'), 'utf8'));
  delete options.$schema;
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    const m = /^@strata\\/([a-z-]+)(?:\\/(.*))?$/.exec(request);
    return resolve.call(this, m ? path.join(root, 'libs', m[1], 'src', m[2] || 'index') : request, ...rest);
  };
  require.extensions['.ts'] = (module, filename) => {
    module._compile(swc.transformSync(fs.readFileSync(filename, 'utf8'), { ...options, filename }).code, filename);
  };
}
require(entry);
`;

/**
 * Starts a worker thread running one module of this repository (`entry` without extension,
 * resolved beside the caller's own file), whether the caller runs compiled or from sources.
 */
export function startModuleWorker(callerFile: string, entry: string, workerData: Record<string, unknown>): Worker {
  const ext = path.extname(callerFile);
  const file = path.resolve(path.dirname(callerFile), entry + ext);
  return new Worker(BOOTSTRAP, { eval: true, workerData: { ...workerData, __module: { entry: file, root: SOURCE_ROOT } } });
}
