import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/** A free TCP port on loopback. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export interface BenchServer {
  url: string;
  dataDir: string;
  token: string;
  /** the owner's JWT (management routes) */
  ownerToken: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

const ROOT = path.resolve(__dirname, '..', '..', '..');

/** The node flags of package.json's `start` script: the benches run the service as it is deployed. */
export function startFlags(): string[] {
  const start = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start;
  const m = /^node((?:\s+--?[\w-]+(?:=\S+)?)*)\s+dist\/apps\/api\/src\/main\.js$/.exec(start.trim());
  if (!m) throw new Error(`package.json's start script is not "node [flags] dist/apps/api/src/main.js": ${start}`);
  return m[1].split(/\s+/).filter(Boolean);
}

/**
 * Starts the BUILT service as its own process (so the load generator does not share its event
 * loop) on a fresh data dir, signs up and creates a read/write API key.
 */
export async function startServer(env: Record<string, string> = {}, opts: { drainStdout?: boolean } = {}): Promise<BenchServer> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-bench-'));
  // the flags `npm start` runs it with, then any for this run only (BENCH_SERVICE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles it)
  const nodeArgs = [...startFlags(), ...(process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean)];
  const child = spawn(process.execPath, [...nodeArgs, path.join(ROOT, 'dist/apps/api/src/main.js')], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', STRATA_DATA_DIR: dataDir, STRATA_LOG_LEVEL: 'error', STRATA_RATE_LIMIT_PER_MINUTE: '10000000', ...env },
    // drained: the service writes its log to a pipe, as under a process supervisor
    stdio: ['ignore', opts.drainStdout ? 'pipe' : 'ignore', 'inherit'],
  });
  child.stdout?.resume();
  const url = `http://127.0.0.1:${port}`;
  let exited: number | null = null;
  child.once('exit', (code) => (exited = code ?? -1));
  const post = async (p: string, body: unknown, token?: string) => {
    const r = await fetch(url + p, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    if (r.status >= 300) throw new Error(`${p}: ${r.status} ${await r.text()}`);
    return (await r.json()) as Record<string, any>;
  };
  let s: Record<string, any>;
  let key: Record<string, any>;
  try {
    await waitHealthy(url, 60_000, () => exited !== null);
    s = await post('/v1/auth/signup', { email: `bench-${port}@example.com`, password: 'bench password 123' });
    // the Free plan caps the node count; the benchmarks write far more
    await post('/v1/billing/subscribe', { plan: 'enterprise' }, s.access_token);
    key = await post('/v1/api-keys', { name: 'bench', scopes: ['read', 'write'] }, s.access_token);
  } catch (err) {
    // a service that never came up must not outlive the run (the runner would never exit)
    if (exited === null) child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  return {
    url,
    dataDir,
    token: key.key as string,
    ownerToken: s.access_token as string,
    child,
    stop: async () => {
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function waitHealthy(url: string, timeoutMs = 60_000, gone: () => boolean = () => false): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    if (gone()) throw new Error(`service at ${url} exited before becoming healthy`);
    try {
      const r = await fetch(url + '/health');
      if (r.status === 200) return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() - t0 > timeoutMs) throw new Error(`service at ${url} did not become healthy`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
