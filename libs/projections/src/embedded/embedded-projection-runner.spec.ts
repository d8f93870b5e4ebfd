import Database from 'better-sqlite3';
import { RecordedEvent, recordedEvent } from '@strata/domain/events';
import { EmbeddedProjection } from '../projection';
import { EmbeddedProjectionRunner } from './embedded-projection-runner';

/** Records the positions it applied. */
class Positions implements EmbeddedProjection {
  readonly version = 1;
  constructor(
    readonly name: string,
    private readonly db: Database.Database,
  ) {
    db.exec(`CREATE TABLE IF NOT EXISTS ${name} (position INTEGER)`);
  }
  apply(e: RecordedEvent): void {
    this.db.prepare(`INSERT INTO ${this.name} VALUES (?)`).run(e.position);
  }
  reset(): void {
    this.db.exec(`DELETE FROM ${this.name}`);
  }
  positions(): number[] {
    return this.db.prepare(`SELECT position FROM ${this.name} ORDER BY position`).pluck().all() as number[];
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
const event = (position: number) => logged(position);

describe('EmbeddedProjectionRunner', () => {
  it('catches a projection up from its checkpoint, not from the start', () => {
    const db = new Database(':memory:');
    const p = new Positions('graph', db);
    new EmbeddedProjectionRunner(db, logUpTo(2), [p]).catchUp();
    const runner = new EmbeddedProjectionRunner(db, logUpTo(4), [p]);
    runner.catchUp();
    expect(p.positions()).toEqual([1, 2, 3, 4]);
    expect(runner.appliedPosition).toBe(4);
  });

  it('rebuilds a projection whose checkpoint lies past the head of the log, and then applies the log\'s next events', () => {
    const db = new Database(':memory:');
    const p = new Positions('graph', db);
    // projections built from a log of 5 events, then the log replaced by an older copy of 3
    new EmbeddedProjectionRunner(db, logUpTo(5), [p]).catchUp();
    const resets: unknown[] = [];
    const runner = new EmbeddedProjectionRunner(db, logUpTo(3), [p]);
    runner.catchUp(undefined, undefined, (name, checkpoint, head) => resets.push({ name, checkpoint, head }));
    expect(resets).toEqual([{ name: 'graph', checkpoint: 5, head: 3 }]);
    expect(p.positions()).toEqual([1, 2, 3]);
    expect(runner.checkpoints.get('graph')).toMatchObject({ position: 3 });
    // the log's next event (position 4) is applied, not skipped as already seen
    db.transaction(() => runner.applyInline([event(4)]))();
    expect(p.positions()).toEqual([1, 2, 3, 4]);
  });
});
