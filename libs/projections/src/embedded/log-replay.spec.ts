import Database from 'better-sqlite3';
import { RecordedEvent, recordedEvent } from '@strata/domain/events';
import { EmbeddedProjection } from '../projection';
import { CheckpointStore } from './checkpoint-store';
import { EmbeddedLogReader } from './embedded-projection-runner';
import { replayLog, resetForRebuild } from './log-replay';

function event(position: number): RecordedEvent {
  return recordedEvent({ id: `e${position}`, stream: 's', revision: position, position, type: 'T', data: null, metadata: { org_id: 'o', principal: { kind: 'system', id: 's' }, request_id: 'r', occurred_at: 0 } });
}

function logOf(positions: number[]): EmbeddedLogReader & { pagesRead: number } {
  const events = positions.map(event);
  const log = {
    pagesRead: 0,
    headPositionSync: () => positions[positions.length - 1] ?? 0,
    *iterateAll(after: number, batch = 2) {
      let rest = events.filter((e) => e.position > after);
      while (rest.length) {
        log.pagesRead++;
        yield* rest.slice(0, batch);
        rest = rest.slice(batch);
      }
    },
  };
  return log;
}

/** Records the positions it applied in a table, so rollbacks and resets show. */
class Recording implements EmbeddedProjection {
  readonly version = 3;
  constructor(readonly name: string, private readonly db: Database.Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS ${name} (position INTEGER)`);
  }
  apply(e: RecordedEvent): void {
    this.db.prepare(`INSERT INTO ${this.name} VALUES (?)`).run(e.position);
  }
  reset(): void {
    this.db.exec(`DELETE FROM ${this.name}`);
  }
  applied(): number[] {
    return (this.db.prepare(`SELECT position FROM ${this.name} ORDER BY position`).all() as { position: number }[]).map((r) => r.position);
  }
}

function target() {
  const db = new Database(':memory:');
  const a = new Recording('a', db);
  const b = new Recording('b', db);
  return { db, a, b, projections: [a, b], checkpoints: new CheckpointStore(db) };
}

describe('replayLog', () => {
  it('applies every event up to the head and moves each checkpoint with the data', async () => {
    const t = target();
    const done = await replayLog(t, logOf([1, 2, 3, 5, 8]), { batch: 2 });
    expect(t.a.applied()).toEqual([1, 2, 3, 5, 8]);
    expect(t.checkpoints.get('a')).toMatchObject({ version: 3, position: 8 });
    expect(done).toMatchObject({ done: 5, position: 8, until: 8 });
  });

  it('resumes each projection from its own checkpoint', async () => {
    const t = target();
    t.checkpoints.set('a', 3, 3);
    t.checkpoints.set('b', 3, 0);
    await replayLog(t, logOf([1, 2, 3, 4]));
    expect(t.a.applied()).toEqual([4]);
    expect(t.b.applied()).toEqual([1, 2, 3, 4]);
  });

  it('stops at `until` and at each projection bound (verify replays to the live checkpoints)', async () => {
    const t = target();
    await replayLog(t, logOf([1, 2, 3, 4, 5, 6]), { until: 5, bounds: new Map([['a', 2]]) });
    expect(t.a.applied()).toEqual([1, 2]);
    expect(t.b.applied()).toEqual([1, 2, 3, 4, 5]);
    expect(t.checkpoints.get('a')!.position).toBe(2);
    expect(t.checkpoints.get('b')!.position).toBe(5);
  });

  it('reports progress once per batch and gives the event loop a turn between batches', async () => {
    const seen: (number | string)[] = [];
    setImmediate(() => seen.push('other work'));
    await replayLog(target(), logOf([1, 2, 3, 4, 5]), { batch: 2, yieldBetweenBatches: true, onProgress: (p) => seen.push(p.done) });
    expect(seen).toEqual([2, 'other work', 4, 5]);

    const blocking: (number | string)[] = [];
    setImmediate(() => blocking.push('other work'));
    await replayLog(target(), logOf([1, 2, 3, 4, 5]), { batch: 2, onProgress: (p) => blocking.push(p.done) });
    expect(blocking).toEqual([2, 4, 5]);
  });

  it('does nothing when the projections are already at the bound', async () => {
    const t = target();
    t.checkpoints.set('a', 3, 4);
    t.checkpoints.set('b', 3, 4);
    const log = logOf([1, 2, 3, 4]);
    expect((await replayLog(t, log)).done).toBe(0);
    expect(log.pagesRead).toBe(0);
  });
});

describe('resetForRebuild', () => {
  it('empties only the named projections and puts their checkpoint back to 0', async () => {
    const t = target();
    await replayLog(t, logOf([1, 2]));
    resetForRebuild(t, ['a']);
    expect(t.a.applied()).toEqual([]);
    expect(t.b.applied()).toEqual([1, 2]);
    expect(t.checkpoints.get('a')!.position).toBe(0);
    expect(t.checkpoints.get('b')!.position).toBe(2);
  });
});
