#!/usr/bin/env node
'use strict';
/**
 * Builds the dashboard (apps/dashboard, docs/dashboard.md) into `dist/dashboard` or the given
 * directory: TypeScript compiled by tsc to ES modules the browser loads as they are (no
 * bundler), plus the static files. The service serves that directory at /app.
 */
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const APP = path.join(ROOT, 'apps', 'dashboard');

/** Returns null on success, else the compiler's output. */
function buildDashboard(outDir = path.join(ROOT, 'dist', 'dashboard')) {
  const tsc = require.resolve('typescript/bin/tsc', { paths: [ROOT] });
  fs.rmSync(outDir, { recursive: true, force: true });
  const r = spawnSync(process.execPath, [tsc, '-p', path.join(APP, 'tsconfig.json'), '--outDir', outDir], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) return (r.stdout || '') + (r.stderr || '') || `tsc exited with ${r.status}`;
  fs.cpSync(path.join(APP, 'static'), outDir, { recursive: true });
  // Cytoscape's own ES module build, served from this origin (the CSP allows no other); `.js`
  // because that is what the service serves, and src/vendor/cytoscape.d.ts gives its types
  fs.mkdirSync(path.join(outDir, 'vendor'), { recursive: true });
  const cytoscape = path.join(ROOT, 'node_modules', 'cytoscape');
  fs.copyFileSync(path.join(cytoscape, 'dist', 'cytoscape.esm.min.mjs'), path.join(outDir, 'vendor', 'cytoscape.js'));
  fs.copyFileSync(path.join(cytoscape, 'LICENSE'), path.join(outDir, 'vendor', 'cytoscape.LICENSE.txt'));
  return null;
}

module.exports = { buildDashboard };

if (require.main === module) {
  const problem = buildDashboard(process.argv[2] ? path.resolve(process.argv[2]) : undefined);
  if (problem) {
    process.stderr.write(problem + '\nstrata: the dashboard build failed\n');
    process.exit(1);
  }
}
