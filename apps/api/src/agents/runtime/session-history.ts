import { Inject, Injectable, Optional } from '@nestjs/common';
import type { ChatMessage } from '@strata/ai/llm/chat-model.port';
import type { RecordedEvent } from '@strata/domain/events';
import { EMBEDDED_STORAGE } from '@strata/platform/storage/storage.tokens';
import type { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import type { SessionEventRow } from '@strata/projections/agents/agents-read-model';
import { AgentsStore } from '../agents-store';
import { sizeOf, toMessages } from './run-messages';

/** sessions whose listed events are kept in memory (the most recently used) */
const SESSIONS = 128;

/** One run's listed events, and its chat messages made once for as many events. */
interface RunRows {
  rows: SessionEventRow[];
  started: boolean;
  turn: { count: number; messages: ChatMessage[]; size: number } | null;
}

interface Kept {
  /** runs in the order of their first listed event */
  runs: Map<string, RunRows>;
  last: number;
  /** an event of the session was projected since the last read: the list may have grown */
  stale: boolean;
}

/**
 * A session's listed events for the runtime, read once and then only what was added, grouped
 * by run, each run's chat messages made once: every model step needs the session's earlier
 * turns, and reading, parsing and converting the whole session again at each step made a
 * step's cost grow with the session. A listed event never changes once numbered (the
 * projection numbers the log in order, a rebuild numbers it alike), so the rows after the
 * last one kept are all that is new; and only an event of the session can add one (every
 * listed row is an event naming its `session_id`), so a kept session none of whose events was
 * projected since its last read is not read again (a step reads it twice: the drive loop, then
 * the history for the model call).
 */
@Injectable()
export class SessionHistory {
  private readonly sessions = new Map<string, Kept>();

  /**
   * Embedded: told of every event as it is projected (inside its write batch, before the commit).
   * Servers mode reads every time: the mirror tells its followers of an event a pass still
   * being backfilled has only queued.
   */
  private readonly tracked: boolean;

  constructor(
    private readonly store: AgentsStore,
    @Optional() @Inject(EMBEDDED_STORAGE) storage: EmbeddedStorage | null,
  ) {
    this.tracked = !!storage;
    storage?.onApplied((events) => events.forEach((e) => this.touched(e)));
  }

  private touched(e: RecordedEvent): void {
    const sid = (e.data as { session_id?: unknown } | null)?.session_id;
    if (typeof sid !== 'string') return;
    const kept = this.sessions.get(sid);
    if (kept) kept.stale = true;
  }

  private refresh(sessionId: string): Kept {
    let kept = this.sessions.get(sessionId);
    if (kept) this.sessions.delete(sessionId);
    else kept = { runs: new Map(), last: 0, stale: true };
    // the most recently used session goes last; the least recently used is forgotten
    this.sessions.set(sessionId, kept);
    if (this.sessions.size > SESSIONS) this.sessions.delete(this.sessions.keys().next().value as string);
    if (this.tracked && !kept.stale) return kept;
    kept.stale = false;
    const added = this.store.read.eventsAfter(sessionId, kept.last);
    for (const r of added) {
      if (!r.run_id) continue;
      let run = kept.runs.get(r.run_id);
      if (!run) kept.runs.set(r.run_id, (run = { rows: [], started: false, turn: null }));
      run.rows.push(r);
      if (r.type === 'run.started') run.started = true;
    }
    if (added.length) kept.last = added[added.length - 1].seq;
    return kept;
  }

  /** the run's listed events, in `seq` order, as listed now (a copy: later events do not join it) */
  ofRun(sessionId: string, runId: string): readonly SessionEventRow[] {
    return this.refresh(sessionId).runs.get(runId)?.rows.slice() ?? [];
  }

  /**
   * The conversation the model sees (REFERENCE §16.7): earlier runs of the session that
   * started, the oldest dropped once they pass `budgetChars` with the current run, then the
   * current run whole.
   */
  conversation(sessionId: string, runId: string, budgetChars: number): ChatMessage[] {
    const turns: { messages: ChatMessage[]; size: number }[] = [];
    let mine: { messages: ChatMessage[]; size: number } = { messages: [], size: 0 };
    for (const [id, run] of this.refresh(sessionId).runs) {
      if (id !== runId && !run.started) continue;
      if (!run.turn || run.turn.count !== run.rows.length) {
        const messages = toMessages(run.rows);
        run.turn = { count: run.rows.length, messages, size: sizeOf(messages) };
      }
      if (id === runId) {
        mine = run.turn;
        break;
      }
      turns.push(run.turn);
    }
    let budget = budgetChars - mine.size;
    const kept: ChatMessage[][] = [];
    for (let i = turns.length - 1; i >= 0 && budget > 0; i--) {
      budget -= turns[i].size;
      if (budget >= 0) kept.push(turns[i].messages);
    }
    const out: ChatMessage[] = [];
    for (let i = kept.length - 1; i >= 0; i--) for (const m of kept[i]) out.push(m);
    for (const m of mine.messages) out.push(m);
    return out;
  }
}
