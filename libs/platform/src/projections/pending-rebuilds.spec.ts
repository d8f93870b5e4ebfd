import Database from 'better-sqlite3';
import { RecordedEvent, recordedEvent } from '@strata/domain/events';
import { EmbeddedProjection } from '@strata/projections/projection';
import { EmbeddedProjectionRunner } from '@strata/projections/embedded/embedded-projection-runner';
import { adoptOutdatedProjections, clearPendingRebuilds, outdatedProjections, pendingRebuilds } from './pending-rebuilds';

class Counting implements EmbeddedProjection {
  constructor(readonly name: string, readonly version: number, private readonly db: Database.Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS ${name} (n INTEGER)`);
  }
  apply(_e: RecordedEvent): void {
    this.db.exec(`INSERT INTO ${this.name} VALUES (1)`);
  }
  reset(): void {
    this.db.exec(`DELETE FROM ${this.name}`);
  }
  rows(): number {
    return (this.db.prepare(`SELECT count(*) AS n FROM ${this.name}`).get() as { n: number }).n;
  }
}

/** An event at a position of the log (only positions matter here). */
const logged = (position: number): RecordedEvent =>
  recordedEvent({ id: `e${position}`, stream: 's', revision: 0, position, type: 'T', data: null, metadata: { org_id: 'o', principal: { kind: 'system', id: 's' }, request_id: 'r', occurred_at: 0 } });

/** A log holding events 1..head. */
function logUpTo(head: number) {
  const events = Array.from({ length: head }, (_, i) => logged(i + 1));
  return { headPositionSync: () => head, *iterateAll(after: number) { yield* events.filter((e) => e.position > after); } };
}
const log = logUpTo(3);

describe('adoptOutdatedProjections', () => {
  it('keeps an outdated projection serving, marks it pending, and lets catch-up extend it instead of emptying it', () => {
    const db = new Database(':memory:');
    const v1 = new EmbeddedProjectionRunner(db, logUpTo(2), [
      new Counting('graph', 1, db),
      new Counting('text', 1, db),
    ]);
    v1.catchUp();
    const graph = new Counting('graph', 2, db); // the code moved on
    const runner = new EmbeddedProjectionRunner(db, log, [graph, new Counting('text', 1, db)]);
    expect(outdatedProjections(runner)).toEqual([{ name: 'graph', stored: 1, code: 2 }]);

    expect(adoptOutdatedProjections(runner)).toEqual(['graph']);
    runner.catchUp();
    expect(graph.rows()).toBe(3); // 2 kept + 1 new, not rebuilt in place
    expect(runner.checkpoints.get('graph')).toMatchObject({ version: 2, position: 3 });
    expect(pendingRebuilds(db)).toEqual(['graph']);
  });

  it('remembers pending rebuilds across restarts until they are cleared', () => {
    const db = new Database(':memory:');
    new EmbeddedProjectionRunner(db, log, [new Counting('graph', 1, db)]).catchUp();
    adoptOutdatedProjections(new EmbeddedProjectionRunner(db, log, [new Counting('graph', 2, db)]));
    // a restart before the swap: versions now match, the pending row still says "rebuild"
    expect(adoptOutdatedProjections(new EmbeddedProjectionRunner(db, log, [new Counting('graph', 2, db)]))).toEqual(['graph']);
    clearPendingRebuilds(db, ['graph']);
    expect(pendingRebuilds(db)).toEqual([]);
  });

  it('changes nothing when every projection is current', () => {
    const db = new Database(':memory:');
    const runner = new EmbeddedProjectionRunner(db, log, [new Counting('graph', 1, db)]);
    runner.catchUp();
    expect(adoptOutdatedProjections(runner)).toEqual([]);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'rebuild_pending'").get()).toBeUndefined();
  });
});
