import { ChildProcess } from 'node:child_process';
import { BUILD_TIMEOUT, ensureCliBuilt, spawnCli } from './cli-runner';
import { startService, tenant } from './cli-fixture';

beforeAll(() => ensureCliBuilt(), BUILD_TIMEOUT);

/** Collects a child's output and waits for lines matching a predicate. */
function watch(child: ChildProcess) {
  const out = { stdout: '', stderr: '' };
  child.stdout!.on('data', (d) => (out.stdout += d));
  child.stderr!.on('data', (d) => (out.stderr += d));
  /** Resolves once `what` holds, re-checked as output arrives; fails after `ms` with what came. */
  const until = (what: () => boolean, ms = 15_000) =>
    new Promise<void>((resolve, reject) => {
      const stop = () => {
        clearTimeout(watchdog);
        child.stdout!.off('data', check);
        child.stderr!.off('data', check);
      };
      const check = () => {
        if (!what()) return;
        stop();
        resolve();
      };
      const watchdog = setTimeout(() => {
        stop();
        reject(new Error(`timed out; stdout: ${out.stdout} stderr: ${out.stderr}`));
      }, ms);
      child.stdout!.on('data', check);
      child.stderr!.on('data', check);
      check();
    });
  return { out, until };
}

describe('strata events tail', () => {
  it("follows another process's appends live, for one organization, until interrupted", async () => {
    const t = await startService();
    let child: ChildProcess | null = null;
    try {
      const a = await tenant(t.url);
      const b = await tenant(t.url);
      const old = (await a.c.post('/node', { label: 'before the tail', node_type: 'Goal' })).body.uid;
      child = spawnCli(['events', 'tail', '--org', a.org_id, '--data-dir', t.dataDir]);
      const w = watch(child);
      await w.until(() => w.out.stderr.includes('following events after position'));
      const fresh = (await a.c.post('/node', { label: 'after the tail started', node_type: 'Goal' })).body.uid;
      await b.c.post('/node', { label: 'someone else', node_type: 'Goal' });
      const edge = (await a.c.post('/edge', { from_uid: fresh, to_uid: old, edge_type: 'DependsOn' })).body.uid;
      await w.until(() => w.out.stdout.includes(edge));
      const lines = w.out.stdout.trim().split('\n').map((l) => JSON.parse(l));
      expect(lines.map((l) => [l.action, l.target])).toEqual([
        ['NodeCreated', fresh],
        ['EdgeCreated', edge],
      ]);
      expect(lines.every((l) => l.org === a.org_id && l.principal === `api_key:${a.key_id}`)).toBe(true);

      const exited = new Promise<number | null>((resolve) => child!.on('close', (code) => resolve(code)));
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      child = null;
    } finally {
      child?.kill('SIGKILL');
      await t.close();
    }
  });

  it('starts after a given position when asked, and rejects a bad one', async () => {
    const t = await startService();
    let child: ChildProcess | null = null;
    try {
      const a = await tenant(t.url);
      const uid = (await a.c.post('/node', { label: 'replayed by the tail', node_type: 'Goal' })).body.uid;
      child = spawnCli(['events', 'tail', '--after', '0', '--format', 'table', '--data-dir', t.dataDir]);
      const w = watch(child);
      await w.until(() => w.out.stdout.includes(uid));
      expect(w.out.stdout.split('\n')[0]).toMatch(/^POSITION\s+TIME/);
      child.kill('SIGTERM');
      child = null;
      const bad = spawnCli(['events', 'tail', '--after', 'soon', '--data-dir', t.dataDir]);
      const wb = watch(bad);
      const code = await new Promise<number | null>((resolve) => bad.on('close', resolve));
      expect(code).toBe(1);
      expect(wb.out.stderr).toBe("strata: --after must be a log position (a whole number), got 'soon'\n");
      // an unknown organization is an error at once, not a tail that waits forever
      const unknown = spawnCli(['events', 'tail', '--org', 'no-such-org', '--data-dir', t.dataDir]);
      const wu = watch(unknown);
      const timer = setTimeout(() => unknown.kill('SIGKILL'), 15_000);
      const unknownCode = await new Promise<number | null>((resolve) => unknown.on('close', resolve));
      clearTimeout(timer);
      expect([unknownCode, wu.out.stdout, wu.out.stderr]).toEqual([1, '', 'strata: organization no-such-org not found\n']);
    } finally {
      child?.kill('SIGKILL');
      await t.close();
    }
  }, 60_000);
});
