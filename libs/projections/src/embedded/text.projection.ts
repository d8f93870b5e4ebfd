import { RecordedEvent } from '@strata/domain/events';
import { SqliteTextIndex } from '@strata/text-index/sqlite/sqlite-text-index';
import { PlannedProjection } from '../projection';
import { TextChange, textChangeOf } from './text-document';

/**
 * Keeps the FTS5 index in step with live nodes (tombstones leave it, restores return).
 * `flush` ends a unit of work for the index (it may keep postings in memory until then).
 * Version 6: each distinct string of a node once (a Claim's `content` that repeats its label is not in its body again; a summary equal to the label is not indexed twice).
 * Version 5: a domain object's body holds the string values of its `fields`. Version 4: each row keeps its node's salience (ties on score are broken inside the index,
 * by salience then uid), following decay and reinforcement. Version 3: the FTS5 tables keep their text, so deletes and updates keep BM25's statistics
 * exact (version 2's contentless_delete tables kept counting deleted rows: scores depended on
 * edit history and purges). Version 2: one FTS5 table per organization (BM25 statistics per
 * organization); version 1 shared one table, which the rebuild that bump started drops
 * (SqliteTextIndex.clearSync).
 */
export class TextProjection implements PlannedProjection {
  readonly name = 'text';
  readonly version = 6;
  readonly replayPlanner = 'text';

  constructor(private readonly index: SqliteTextIndex) {}

  apply(e: RecordedEvent): void {
    const change = textChangeOf(e);
    if (change) this.applyPlanned(change);
  }
  applyPlanned(change: TextChange): void {
    if (change.kind === 'upsert') this.index.upsertSync([change.doc]);
    else if (change.kind === 'salience') this.index.setSalienceSync(change.org, change.changes);
    else if (change.kind === 'remove') this.index.removeSync(change.org, change.uids);
    else this.index.removeOrgSync(change.org);
  }
  flush(): void {
    this.index.flushSync();
  }
  reset(): void {
    this.index.clearSync();
  }
}
