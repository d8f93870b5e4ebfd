import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
export const CLI_ENTRY = path.join('apps', 'cli', 'src', 'main.js');
const CLI = path.join(ROOT, 'dist', CLI_ENTRY);

/** Builds dist/ when it is missing or older than the sources (call in beforeAll with a long timeout). */
export function ensureCliBuilt(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { ensureBuild } = require(path.join(ROOT, 'scripts', 'ensure-build.js')) as { ensureBuild: (o: { entry: string }) => boolean };
  if (!ensureBuild({ entry: CLI_ENTRY })) throw new Error('could not build dist/ for the CLI tests (see stderr)');
}
export const BUILD_TIMEOUT = 600_000;

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** text written to stdin (stdin is closed either way) */
  input?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** Hermetic environment: the CLI sees the data dir only through --data-dir. */
function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8' };
  return { ...base, ...extra };
}

/** Starts the built CLI as a child process (asynchronously: an in-process service keeps serving). */
export function spawnCli(args: string[], opts: CliOptions = {}): ChildProcess {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: env(opts.env), stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin!.end(opts.input ?? '');
  return child;
}

/** Runs the built CLI to completion. */
export function runCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args, opts);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`strata ${args.join(' ')} did not finish in ${opts.timeoutMs ?? 120_000} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, opts.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Fails with the CLI's own output when it did not exit as expected. */
export function expectExit(r: CliResult, code: number): CliResult {
  if (r.code !== code) throw new Error(`expected exit ${code}, got ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}
