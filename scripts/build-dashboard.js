#!/usr/bin/env node
'use strict';
/**
 * Builds the dashboard (apps/dashboard, docs/dashboard.md) into `dist/dashboard` or the given
 * directory: the TypeScript and React sources checked by tsc (the typed API calls are the
 * point: a route or body field that does not exist fails the build), then bundled by Vite
 * (apps/dashboard/vite.config.mts) into `main.js`, `app.css` and the icon. The service serves
 * that directory at /app and fills `{{ASSETS}}` in index.html with the build's asset URL.
 */
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const APP = path.join(ROOT, 'apps', 'dashboard');
// vite.config.mts's base: the bundle's URLs start with it; the service's template wants {{ASSETS}}
const ASSETS_PLACEHOLDER = '/__STRATA_ASSETS__/';

/** Returns null on success, else the compiler's or the bundler's output. */
function buildDashboard(outDir = path.join(ROOT, 'dist', 'dashboard')) {
  const tsc = require.resolve('typescript/bin/tsc', { paths: [ROOT] });
  const checked = spawnSync(process.execPath, [tsc, '-p', path.join(APP, 'tsconfig.json')], { cwd: ROOT, encoding: 'utf8' });
  if (checked.status !== 0) return (checked.stdout || '') + (checked.stderr || '') || `tsc exited with ${checked.status}`;
  const vite = path.join(path.dirname(require.resolve('vite/package.json', { paths: [ROOT] })), 'bin', 'vite.js');
  fs.rmSync(outDir, { recursive: true, force: true });
  const built = spawnSync(process.execPath, [vite, 'build', '--config', path.join(APP, 'vite.config.mts'), '--outDir', outDir, '--emptyOutDir'], {
    cwd: APP,
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (built.status !== 0) return (built.stdout || '') + (built.stderr || '') || `vite exited with ${built.status}`;
  const index = path.join(outDir, 'index.html');
  if (!fs.existsSync(index)) return `vite wrote no index.html into ${outDir}`;
  fs.writeFileSync(index, fs.readFileSync(index, 'utf8').split(ASSETS_PLACEHOLDER).join('{{ASSETS}}'));
  // Cytoscape is bundled into main.js; its licence travels with it
  fs.copyFileSync(path.join(ROOT, 'node_modules', 'cytoscape', 'LICENSE'), path.join(outDir, 'cytoscape.LICENSE.txt'));
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
