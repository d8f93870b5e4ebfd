import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { eventually } from '@strata/domain/testing/eventually';

/** The built service as its own process, for tests that kill it (SIGKILL) and start it again. */

export const ROOT = path.resolve(__dirname, '../..');
const SHARED_BUILD = path.join(ROOT, 'dist');
const MAIN = 'apps/api/src/main.js';

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

/**
 * The shared `dist` when it is newer than every source file; otherwise a private build under
 * tmp/ (git-ignored), so this test never races another build writing `dist`.
 */
export function builtService(): string {
  const sources = Math.max(newestSource(path.join(ROOT, 'apps')), newestSource(path.join(ROOT, 'libs')));
  const shared = path.join(SHARED_BUILD, MAIN);
  if (fs.existsSync(shared) && fs.statSync(shared).mtimeMs > sources) return shared;
  const out = privateBuild();
  const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);
  try {
    execFileSync(bin('tsc'), ['-p', 'tsconfig.build.json', '--outDir', out], { cwd: ROOT, stdio: 'pipe' });
  } catch (err) {
    // type errors elsewhere in the tree still emit JavaScript; only a missing entry point is fatal
    if (!fs.existsSync(path.join(out, MAIN))) throw new Error(`build failed: ${(err as { stdout?: Buffer }).stdout?.toString() ?? err}`);
  }
  execFileSync(bin('tsc-alias'), ['-p', 'tsconfig.build.json', '--outDir', out], { cwd: ROOT, stdio: 'pipe' });
  return path.join(out, MAIN);
}

function privateBuild(): string {
  return path.join(ROOT, 'tmp', `crash-build-${process.pid}`);
}

/** Removes the private build `builtService` may have made (call it from the suite's afterAll). */
export function removePrivateBuild(): void {
  fs.rmSync(privateBuild(), { recursive: true, force: true });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface Service {
  url: string;
  child: ChildProcess;
  output: string[];
}

export async function startService(entry: string, dataDir: string, env: Record<string, string> = {}): Promise<Service> {
  const port = await freePort();
  const output: string[] = [];
  const child = spawn(process.execPath, [entry], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      HOST: '127.0.0.1',
      STRATA_DATA_DIR: dataDir,
      STRATA_LOG_LEVEL: 'warn',
      STRATA_EMBEDDING_PROVIDER: 'none',
      STRATA_RATE_LIMIT_PER_MINUTE: '10000000',
      NO_COLOR: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => output.push(String(d)));
  child.stderr!.on('data', (d) => output.push(String(d)));
  const url = `http://127.0.0.1:${port}`;
  await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}:\n${output.join('')}`);
      try {
        return (await fetch(`${url}/health`)).status === 200;
      } catch {
        return false; // not listening yet
      }
    },
    { timeoutMs: 30_000, everyMs: 100, what: 'the service to become ready' },
  ).catch((err: Error) => {
    throw new Error(`${err.message}:\n${output.join('')}`);
  });
  return { url, child, output };
}

export async function kill(s: Service): Promise<void> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  const exited = new Promise((r) => s.child.once('exit', r));
  s.child.kill('SIGKILL');
  await exited;
}

