import { RecordedEvent } from '@strata/domain/events';
import { TextIndex } from '@strata/text-index/text-index.port';
import { planTextWrites } from './text-writes';
import { ServerProjection } from './server-projection';

/** Live nodes in the full-text index (Meilisearch in server mode), as the embedded text projection. */
export class TextServerProjection implements ServerProjection {
  readonly name = 'text';
  /** 3: each distinct string of a node once (textDocumentOf); 2: a domain object's body holds the string values of its `fields` */
  readonly version = 3;

  /** `resetAll` empties the index of every organization (the port has no such call) */
  constructor(
    private readonly index: TextIndex,
    private readonly resetAll: () => Promise<void>,
  ) {}

  async apply(events: RecordedEvent[]): Promise<void> {
    for (const w of planTextWrites(events)) {
      if (w.kind === 'upsert') await this.index.upsert(w.docs);
      else if (w.kind === 'salience') await this.index.setSalience(w.org, w.changes);
      else if (w.kind === 'remove') await this.index.remove(w.org, w.uids);
      else await this.index.removeOrg(w.org);
    }
  }

  reset(): Promise<void> {
    return this.resetAll();
  }
}
