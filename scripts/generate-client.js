#!/usr/bin/env node
'use strict';
/**
 * Regenerates the typed client's types (packages/client/src/schema.d.ts) from the OpenAPI
 * document. By default the document comes from the service itself, built in this process on a
 * throw-away data dir and loopback port 0 (stopped again before generating); `--url <base>`
 * reads `<base>/openapi.json` from a service that is already running instead; `--output <file>`
 * writes elsewhere (the e2e test compares that with the committed file).
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'packages/client/src/schema.d.ts');

async function fromService() {
  const build = spawnSync(process.execPath, [path.join(__dirname, 'ensure-build.js')], { stdio: 'inherit' });
  if (build.status !== 0) throw new Error('build failed');
  const { startApp } = require(path.join(ROOT, 'dist/apps/api/src/bootstrap'));
  const { loadConfig } = require(path.join(ROOT, 'dist/libs/platform/src/config/strata-config'));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-openapi-'));
  try {
    const running = await startApp({ ...loadConfig({}), port: 0, host: '127.0.0.1', logLevel: 'error', dataDir }, { logger: false });
    try {
      return await fromUrl(running.url);
    } finally {
      await running.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function fromUrl(base) {
  const res = await fetch(new URL('/openapi.json', base));
  if (!res.ok) throw new Error(`GET /openapi.json: ${res.status}`);
  return res.text();
}

async function main() {
  const arg = (name) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const url = arg('--url');
  const doc = url ? await fromUrl(url) : await fromService();
  const tmp = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'strata-openapi-')), 'openapi.json');
  fs.writeFileSync(tmp, doc);
  const bin = path.join(ROOT, 'node_modules/.bin/openapi-typescript');
  // fields with a default stay optional in request bodies: the service fills them in
  const gen = spawnSync(bin, [tmp, '--output', arg('--output') ?? OUT, '--default-non-nullable=false'], { stdio: 'inherit' });
  fs.rmSync(path.dirname(tmp), { recursive: true, force: true });
  if (gen.status !== 0) throw new Error('openapi-typescript failed');
}

main().then(
  () => process.exit(0), // the service's pools and timers are closed, but do not wait on stragglers
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
