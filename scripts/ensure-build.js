#!/usr/bin/env node
'use strict';
/**
 * Builds `dist/` (tsc + tsc-alias, as `npm run build`) when it is missing or older than the
 * sources, so `npm start`, `npm run bench` and the `strata` command always run current code.
 * A stamp file records the newest source time a build saw; a lock directory keeps two
 * processes from building at once (the second waits, then finds the build fresh).
 */
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
const STAMP = path.join(DIST, '.build-stamp.json');
const LOCK = path.join(DIST, '.build-lock');
const SOURCE_DIRS = ['apps', 'libs', 'bench'];
const SOURCE_FILES = ['tsconfig.json', 'tsconfig.build.json', 'package.json'];
const SKIP = /(\.spec\.ts|\.test\.tsx?|\.conformance\.ts|\.servers\.ts|\.d\.ts)$/;
const LOCK_STALE_MS = 10 * 60 * 1000;

function newestSource() {
  let newest = 0;
  const visit = (dir) => {
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.name === 'node_modules' || e.name === 'results' || e.name.startsWith('.')) continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) visit(p);
      else if ((/\.tsx?$/.test(e.name) && !SKIP.test(e.name)) || /\.(html|css|svg)$/.test(e.name)) newest = Math.max(newest, fs.statSync(p).mtimeMs);
    }
  };
  for (const d of SOURCE_DIRS) visit(path.join(ROOT, d));
  for (const f of SOURCE_FILES) {
    try {
      newest = Math.max(newest, fs.statSync(path.join(ROOT, f)).mtimeMs);
    } catch {
      /* optional */
    }
  }
  return newest;
}

function isFresh(entry) {
  if (!fs.existsSync(path.join(DIST, entry))) return false;
  try {
    const stamp = JSON.parse(fs.readFileSync(STAMP, 'utf8'));
    return typeof stamp.newest_source === 'number' && stamp.newest_source >= newestSource();
  } catch {
    return false;
  }
}

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function acquireLock() {
  for (;;) {
    try {
      fs.mkdirSync(DIST, { recursive: true });
      fs.mkdirSync(LOCK);
      return () => fs.rmSync(LOCK, { recursive: true, force: true });
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      try {
        if (Date.now() - fs.statSync(LOCK).mtimeMs > LOCK_STALE_MS) fs.rmSync(LOCK, { recursive: true, force: true });
      } catch {
        /* released meanwhile */
      }
      sleep(250);
    }
  }
}

function tool(pkg, bin) {
  try {
    return require.resolve(`${pkg}/${bin}`, { paths: [ROOT] });
  } catch {
    return null;
  }
}

function run(script, args) {
  return spawnSync(process.execPath, [script, ...args], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] }).status;
}

/**
 * Makes sure `dist/<entry>` exists and is current. Returns true when it is (built now or
 * before); false when it could not be built (messages already on stderr).
 */
function ensureBuild(opts = {}) {
  const entry = opts.entry || path.join('apps', 'api', 'src', 'main.js');
  if (isFresh(entry)) return true;
  const release = acquireLock();
  try {
    if (isFresh(entry)) return true;
    const tsc = tool('typescript', 'bin/tsc');
    const alias = tool('tsc-alias', 'dist/bin/index.js');
    if (!tsc || !alias) {
      if (fs.existsSync(path.join(DIST, entry))) {
        process.stderr.write('strata: sources are newer than dist/, but typescript is not installed; running the existing build\n');
        return true;
      }
      process.stderr.write('strata: dist/ is missing and typescript is not installed: run `npm install` then `npm run build`\n');
      return false;
    }
    const newest = newestSource();
    process.stderr.write('strata: building dist/ (missing or older than the sources)…\n');
    const t0 = Date.now();
    // tsc exits 2 when it reports type errors but still wrote every file: run that, loudly
    const compiled = run(tsc, ['-p', 'tsconfig.build.json']);
    if (compiled !== 0 && compiled !== 2) {
      process.stderr.write('strata: the build failed (errors above)\n');
      return false;
    }
    if (compiled === 2) process.stderr.write('strata: WARNING: type errors above; the build was written anyway\n');
    if (run(alias, ['-p', 'tsconfig.build.json']) !== 0) {
      process.stderr.write('strata: resolving path aliases in dist/ failed (errors above)\n');
      return false;
    }
    const dashboard = require('./build-dashboard').buildDashboard();
    if (dashboard !== null) {
      process.stderr.write(dashboard + '\nstrata: the dashboard build failed (errors above)\n');
      return false;
    }
    fs.mkdirSync(DIST, { recursive: true });
    fs.writeFileSync(STAMP, JSON.stringify({ newest_source: newest, built_at: new Date().toISOString() }) + '\n');
    process.stderr.write(`strata: built in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
    return true;
  } finally {
    release();
  }
}

module.exports = { ensureBuild, isFresh };

if (require.main === module) process.exit(ensureBuild() ? 0 : 1);
