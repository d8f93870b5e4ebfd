import Database from 'better-sqlite3';
import { RecordedEvent } from '@strata/domain/events';
import { AgentsProjection } from './agents.projection';
import { AgentsReadModel } from './agents-read-model';

const ORG = 'org-1';
const SID = 'session-1';
const base = { org_id: ORG, agent_id: 'agent-1', session_id: SID, run_id: null, at: 1_700_000_000 };

function recorded(position: number, type: string, data: Record<string, unknown>): RecordedEvent {
  return {
    id: `e${position}`, stream: `agent-session-${ORG}:${SID}`, revision: position - 1, position, type, data,
    metadata: { org_id: ORG, principal: { kind: 'user', id: 'u' }, request_id: 'r', occurred_at: base.at },
  } as unknown as RecordedEvent;
}

const created = recorded(1, 'AgentSessionCreated', { ...base, title: 'T', metadata: null, node_uid: 'n1', source: 'api', schedule_id: null, created_by: { kind: 'user', id: 'u' } });
const message = (position: number) =>
  recorded(position, 'AgentMessageReceived', { ...base, run_id: `run-${position}`, message_id: `m${position}`, content: 'hi', metadata: null, sender: { kind: 'user', id: 'u' }, queued: false });

describe('AgentsProjection', () => {
  let db: Database.Database;
  let p: AgentsProjection;
  let read: AgentsReadModel;
  /** one unit of work as the runner applies it: every event, the flush, the commit */
  const unit = (...events: RecordedEvent[]) =>
    db.transaction(() => {
      for (const e of events) p.apply(e);
      p.flush();
    })();

  beforeEach(() => {
    db = new Database(':memory:');
    p = new AgentsProjection(db);
    read = new AgentsReadModel(db);
  });
  afterEach(() => db.close());

  it('writes a unit of work’s sessions at its flush, folded over all of its events', () => {
    unit(created, message(2), message(3));
    const s = read.session(ORG, SID)!;
    expect(s.last_seq).toBe(3);
    expect(s.message_count).toBe(2);
    expect(read.eventsAfter(SID, 0).map((e) => e.type)).toEqual(['session.created', 'message.user', 'message.user']);
  });

  it('forgets what a rolled-back unit folded: the events applied again are counted once', () => {
    unit(created);
    expect(() =>
      db.transaction(() => {
        p.apply(message(2));
        throw new Error('another projection failed');
      })(),
    ).toThrow('another projection failed');
    p.rolledBack();
    unit(message(2));
    expect(read.session(ORG, SID)).toMatchObject({ last_seq: 2, message_count: 1 });
  });

  it('folds the next unit from what it wrote, and forgets it when a flushed unit is rolled back', () => {
    unit(created);
    unit(message(2));
    expect(() =>
      db.transaction(() => {
        p.apply(message(3));
        p.apply(recorded(4, 'AgentSessionArchived', { ...base, by: 'u' }));
        p.flush();
        throw new Error('the commit failed');
      })(),
    ).toThrow('the commit failed');
    p.rolledBack();
    unit(message(5));
    expect(read.session(ORG, SID)).toMatchObject({ last_seq: 3, message_count: 2, archived_at: null });
    unit(recorded(6, 'AgentSessionArchived', { ...base, by: 'u' }));
    expect(read.activity(ORG, { notBefore: 0, limit: 10, offset: 0 }).map((i) => i.seq)).toEqual([2, 1]);
  });

  it('forgets a unit that was never flushed when the log applies its positions again, even unannounced', () => {
    unit(created);
    try {
      db.transaction(() => {
        p.apply(message(2));
        throw new Error('rolled back without telling the projection');
      })();
    } catch {
      // the caller skips the event and goes on, as a mirror does
    }
    unit(message(2), message(3));
    expect(read.session(ORG, SID)).toMatchObject({ last_seq: 3, message_count: 2 });
  });

  it('numbers the activity from the organization’s own items, across rebuilds', () => {
    unit(created);
    unit(recorded(2, 'AgentSessionArchived', { ...base, by: 'u' }));
    expect(read.activity(ORG, { notBefore: 0, limit: 10, offset: 0 }).map((i) => i.seq)).toEqual([2, 1]);
    expect(read.lastActivitySeq(ORG)).toBe(2);
    p.reset();
    expect(read.lastActivitySeq(ORG)).toBe(0);
  });
});
