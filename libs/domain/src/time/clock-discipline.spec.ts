import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The repository's rules for time, checked on its sources so they stay true: services, jobs
 * and tools read time from the injected Clock (never the wall clock directly), and tests
 * never sleep to let time pass (they move a FixedClock, or wait for an event or a condition).
 */

const ROOT = path.resolve(__dirname, '../../../..');

function sources(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name === 'dist' || e.name.startsWith('.')) continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.tsx?$/.test(e.name)) out.push(p); // the dashboard's pages are .tsx
    }
  };
  walk(path.join(ROOT, dir));
  return out;
}

const rel = (f: string) => path.relative(ROOT, f).split(path.sep).join('/');
const isTest = (f: string) => /\.(spec|test|e2e|servers)\.tsx?$/.test(f) || /\/testing\//.test(f) || f.startsWith('test/');
const isBench = (f: string) => /(^|\/)bench\//.test(f);

/** Lines matching `pattern`, comments left out, as `file:line: text`. */
function hits(files: string[], pattern: RegExp): string[] {
  const out: string[] = [];
  for (const f of files) {
    const lines = fs.readFileSync(path.join(ROOT, f), 'utf8').split('\n');
    lines.forEach((line, i) => {
      const code = line.replace(/\/\/.*$/, '').replace(/^\s*\*.*$/, '');
      if (pattern.test(code)) out.push(`${f}:${i + 1}: ${line.trim()}`);
    });
  }
  return out;
}

const all = [...sources('apps'), ...sources('libs'), ...sources('test')].map(rel);
const code = all.filter((f) => !isTest(f) && !isBench(f));
const SELF = 'libs/domain/src/time/clock-discipline.spec.ts';
const tests = all.filter((f) => isTest(f) && f !== SELF);

/** the wall clock read directly: Date.now(), new Date() and Date() without arguments */
const WALL_CLOCK = /\bDate\.now\s*\(|new Date\(\s*\)|(^|[^.\w])Date\(\s*\)/;
/** a pause: a sleep helper, or a promise resolved by a timer */
const PAUSE = /\bsleep\s*\(|setTimeout\(\s*(r|res|resolve|done|next)\s*,/;

/** Where each rule does not apply, and why. */
const ALLOWED = {
  wallClock: {
    // the one reading of the wall clock, behind the Clock every service is given
    'libs/domain/src/time/clock.ts': 'systemClock',
  },
  systemClock: {
    'libs/domain/src/time/clock.ts': 'its definition, and the ids of code without an injected generator',
    'libs/platform/src/platform.module.ts': "the service's clock unless a test gives one",
    'apps/cli/src/main.ts': 'the CLI builds its clock once and passes it down',
    'apps/worker/src/main.ts': 'the worker builds its clock once and passes it down',
  },
  pauseInCode: {
    // production waits, not tests: the retry backoff, the lease runner's idle wait, a
    // hand-over answered in a file by another process, resubscription after a dropped stream
    'apps/cli/src/actions/projections-rebuild.ts': 'polls for the service to answer the hand-over',
    'libs/ai/src/embeddings/openai-embedding-provider.ts': 'backoff between retries (injectable: tests record the waits)',
    'libs/projections/src/server/server-projection-runner.ts': 'idle and retry waits of the worker loop',
    'libs/projections/src/server/checkpoint-watcher.ts': 'the poll interval of a bounded wait',
    'libs/event-store/src/kurrentdb/kurrentdb-event-store.ts': 'resubscription delay',
    'libs/platform/src/live-relay/mongo-live-relay.ts': "delay before reopening the live relay's tailable cursor",
    'libs/event-store/src/sqlite/wal-checkpointer.ts': 'bound on the worker answering close',
    'libs/jobs/src/runner/job-runner.ts': 'bound on running jobs stopping at shutdown',
    'apps/dashboard/src/areas/ingest.tsx': "the browser's poll of a running job's progress",
    'apps/dashboard/src/areas/projects.tsx': "the browser's poll of a brief regeneration job",
    'apps/dashboard/src/areas/agents.tsx': "the browser's reconnection to a dropped session stream, after the server's retry",
  },
  pauseInTests: {
    'libs/domain/src/testing/eventually.ts': 'the bounded wait for a condition: the one timer tests may wait on',
    'test/accounts/support/servers-replica.ts': "simulates KurrentDB's delivery lag (monotonic), not a test waiting",
    'libs/event-store/src/sqlite/wal-checkpointer.spec.ts': "lets the checkpointer's own 10 ms interval run between the writer's transactions: the timing is what it tests",
  },
} as const;

describe('time in the code base', () => {
  it('services, jobs and tools read the injected Clock, never the wall clock directly', () => {
    const found = hits(code, WALL_CLOCK).filter((h) => !(h.split(':')[0] in ALLOWED.wallClock));
    expect(found).toEqual([]);
  });

  it('the system clock is chosen only where a process starts', () => {
    const found = hits([...code, ...tests], /\bsystemClock\b/).filter((h) => !(h.split(':')[0] in ALLOWED.systemClock));
    expect(found).toEqual([]);
  });

  it('no test reads the wall clock: times are read from the fake clock the service was given', () => {
    const found = hits(tests, WALL_CLOCK);
    expect(found).toEqual([]);
  });

  it('no test sleeps to let time pass: it moves a FixedClock, or waits for an event or a condition', () => {
    // a file on jest's fake timers waits on fake time, which the test moves itself
    const onRealTimers = tests.filter((f) => !/useFakeTimers\(/.test(fs.readFileSync(path.join(ROOT, f), 'utf8')));
    const found = hits(onRealTimers, PAUSE).filter((h) => !(h.split(':')[0] in ALLOWED.pauseInTests));
    expect(found).toEqual([]);
  });

  it('code pauses only where it waits on something outside it, each place named', () => {
    const found = hits(code, PAUSE).filter((h) => !(h.split(':')[0] in ALLOWED.pauseInCode));
    expect(found).toEqual([]);
  });

  it('sees the files it guards, and would see a violation', () => {
    expect(code).toContain('apps/api/src/health/health.controller.ts');
    expect(tests).toContain('test/graph/maintenance.e2e.ts');
    expect(WALL_CLOCK.test('const t = Date.now();')).toBe(true);
    expect(WALL_CLOCK.test('at: new Date().toISOString()')).toBe(true);
    expect(WALL_CLOCK.test('new Date(clock.now() * 1000)')).toBe(false);
    expect(PAUSE.test('await sleep(1200);')).toBe(true);
    expect(PAUSE.test('await new Promise((r) => setTimeout(r, 1100));')).toBe(true);
    expect(PAUSE.test('const watchdog = setTimeout(() => child.kill(), 15_000);')).toBe(false);
  });
});
