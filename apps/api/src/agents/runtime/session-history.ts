import { Injectable } from '@nestjs/common';
import type { SessionEventRow } from '@strata/projections/agents/agents-read-model';
import { AgentsStore } from '../agents-store';

/** sessions whose listed events are kept in memory (the most recently used) */
const SESSIONS = 128;

/**
 * A session's listed events for the runtime's history, read once and then only what was added:
 * every model step needs the session's earlier turns, and reading and parsing the whole list
 * again at each step made a step's cost grow with the session. A listed event never changes
 * once numbered (the projection numbers the log in order, a rebuild numbers it alike), so the
 * rows after the last one kept are all that is new.
 */
@Injectable()
export class SessionHistory {
  private readonly sessions = new Map<string, { rows: SessionEventRow[]; last: number }>();

  constructor(private readonly store: AgentsStore) {}

  /** every listed event of the session, in `seq` order */
  rows(sessionId: string): readonly SessionEventRow[] {
    let kept = this.sessions.get(sessionId);
    if (kept) this.sessions.delete(sessionId);
    else kept = { rows: [], last: 0 };
    // the most recently used session goes last; the least recently used is forgotten
    this.sessions.set(sessionId, kept);
    if (this.sessions.size > SESSIONS) this.sessions.delete(this.sessions.keys().next().value as string);
    const added = this.store.read.events(sessionId, { after: kept.last, limit: 1_000_000, offset: 0 });
    for (const r of added) kept.rows.push(r);
    if (added.length) kept.last = added[added.length - 1].seq;
    return kept.rows;
  }
}
