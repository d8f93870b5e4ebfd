import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { builtService, removePrivateBuild } from '../support/built-service';

/**
 * The embedded log as the service drives it (group commits on the main thread at
 * synchronous=NORMAL, each acknowledged after the fsync of syncCommitted; the WAL
 * checkpointer's worker copying the WAL and starting it over itself every few milliseconds),
 * in a process killed with SIGKILL while it writes. After each kill every acknowledged event is
 * in the file with its text, the file passes SQLite's integrity check, and writing goes on.
 */

/** the child: prints `ack <position>` once a commit is durable, `cycle <n>` as the WAL starts over */
const WRITER = `
const fs = require('node:fs');
const dist = process.argv[1];
const file = process.argv[2];
const { SqliteEventStore } = require(dist + '/libs/event-store/src/sqlite/sqlite-event-store.js');
const { WalCheckpointer } = require(dist + '/libs/event-store/src/sqlite/wal-checkpointer.js');
const store = new SqliteEventStore(file);
store.deferCommitSync();
new WalCheckpointer([{ db: store.db, file, synchronous: 'FULL', startOver: true }], { intervalMs: 10, restartPages: 64 });
const cycles = new Set();
const cycle = () => { try { const fd = fs.openSync(file + '-wal', 'r'); const b = Buffer.alloc(12); fs.readSync(fd, b, 0, 12, 12); fs.closeSync(fd); return b.toString('hex'); } catch { return ''; } };
let n = store.headPositionSync();
(async () => {
  for (;;) {
    store.db.exec('BEGIN IMMEDIATE');
    let position = 0;
    for (let r = 0; r < 8; r++) {
      const i = n++;
      const metadata = { org_id: 'o', principal: { kind: 'user', id: 'u' }, request_id: 'r' + i, occurred_at: i };
      position = store.appendSync([{ stream: 'node-o:' + i, expectedRevision: 'no_stream', events: [{ type: 'NodeCreated', data: { node: { uid: String(i), label: 'x'.repeat(i % 300) }, reason: null }, metadata }] }]).position;
    }
    store.db.exec('COMMIT');
    await store.syncCommitted();
    process.stdout.write('ack ' + position + '\\n');
    const c = cycle();
    if (c && !cycles.has(c)) { cycles.add(c); process.stdout.write('cycle ' + cycles.size + '\\n'); }
  }
})();
`;

interface Run {
  acked: number;
  cycles: number;
}

/** runs the writer until it has acknowledged `events` more and seen `cycles` WAL cycles, then SIGKILLs it */
async function writeAndKill(dist: string, file: string, events: number, cycles: number): Promise<Run> {
  const child = spawn(process.execPath, ['-e', WRITER, dist, file], { stdio: ['ignore', 'pipe', 'pipe'] });
  const run: Run = { acked: 0, cycles: 0 };
  let errors = '';
  child.stderr!.on('data', (d) => (errors += String(d)));
  let start = -1;
  let buffered = '';
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`writer exited (${code}): ${errors}`))));
    child.stdout!.on('data', (d) => {
      buffered += String(d);
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        const [what, value] = line.split(' ');
        if (what === 'ack') {
          run.acked = Number(value);
          if (start < 0) start = run.acked;
        } else if (what === 'cycle') run.cycles = Number(value);
      }
      if (start >= 0 && run.acked - start >= events && run.cycles >= cycles && child.exitCode === null) child.kill('SIGKILL');
    });
  });
  return run;
}

describe('crash safety of the log while its WAL starts over', () => {
  let dist: string;
  let dir: string;

  beforeAll(() => {
    dist = path.resolve(builtService(), '../../../..');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-wal-crash-'));
  }, 180_000);
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    removePrivateBuild();
  });

  it('keeps every acknowledged event through SIGKILL while the checkpointer starts the WAL over', async () => {
    const file = path.join(dir, 'events.db');
    for (let round = 0; round < 3; round++) {
      const run = await writeAndKill(dist, file, 2000, 5);
      expect(run.cycles).toBeGreaterThanOrEqual(5);
      const db = new Database(file, { readonly: true, fileMustExist: true });
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        const rows = db.prepare('SELECT position, stream, revision, data FROM events WHERE position <= ? ORDER BY position').raw().all(run.acked) as [number, string, number, string][];
        // every acknowledged position, each the event its writer made, nothing missing in between
        expect(rows).toHaveLength(run.acked);
        rows.forEach(([position, stream, revision, data], k) => {
          expect([position, stream, revision]).toEqual([k + 1, `node-o:${k}`, 0]);
          expect(JSON.parse(data)).toEqual({ node: { uid: String(k), label: 'x'.repeat(k % 300) }, reason: null });
        });
        expect(db.prepare('SELECT last_position FROM event_log_state').pluck().get()).toBeGreaterThanOrEqual(run.acked);
      } finally {
        db.close();
      }
    }
  }, 180_000);
});
