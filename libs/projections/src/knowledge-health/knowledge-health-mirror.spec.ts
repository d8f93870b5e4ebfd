import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EventMetadata, Streams, eventFromLog } from '@strata/domain/events';
import { SqliteEventStore } from '@strata/event-store/sqlite/sqlite-event-store';
import { exceptionId } from '@strata/domain/knowledge-health';
import { AccountsMirror } from '../accounts/accounts-mirror';
import { noteRecord } from '../testing/projection-event-fixtures';

const meta = (org: string, t: number): EventMetadata => ({ org_id: org, principal: { kind: 'user', id: 'u1' }, request_id: 'r', occurred_at: t });
const claim = (uid: string) => noteRecord(uid, uid, { node_type: 'Claim', props: { _type: 'Claim', content: uid } });

function created(log: SqliteEventStore, org: string, uid: string, t: number) {
  return log.append([{ stream: Streams.node(org, uid), expectedRevision: 'no_stream', events: [{ ...eventFromLog('NodeCreated', { node: claim(uid), reason: null }), metadata: meta(org, t) }] }]);
}

/** Servers mode: each replica's mirror runs the same Knowledge Health projection, backfilled from the log. */
describe('Knowledge Health in the servers-mode mirror', () => {
  let dir: string;
  let log: SqliteEventStore;
  let m: AccountsMirror;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-kh-mirror-'));
    log = new SqliteEventStore(path.join(dir, 'events.db'), { pollIntervalMs: 20 });
  });
  afterEach(async () => {
    await m.close();
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('holds the exceptions of events before start and follows the live log', async () => {
    await created(log, 'o1', 'c1', 10);
    m = new AccountsMirror(log);
    await m.start();
    await m.healthReady;
    expect(m.healthReadModel.rows('o1').map((r) => r.id)).toEqual([exceptionId('claim_unsupported', 'c1')]);
    const live = await created(log, 'o1', 'c2', 20);
    expect(await m.waitFor(live.position, 2000)).toBe(true);
    const rows = m.healthReadModel.rows('o1');
    expect(rows.map((r) => r.subject_uid).sort()).toEqual(['c1', 'c2']);
    expect(m.healthReadModel.materialize(rows.find((r) => r.subject_uid === 'c2')!, 30, 72)!.state).toMatchObject({ status: 'open', first_detected_at: 20 });
  });
});
