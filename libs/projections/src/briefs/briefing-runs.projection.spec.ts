import Database from 'better-sqlite3';
import { BriefingScheduleCreatedData, BriefingStreams } from '@strata/domain/briefs';
import { EventMetadata, eventFromLog } from '@strata/domain/events';
import { BriefsProjection, KEPT_RUNS } from './briefs.projection';
import { BriefsReadModel } from './briefs-read-model';

const meta: EventMetadata = { org_id: 'o1', principal: { kind: 'system', id: 'system' }, request_id: 'r', occurred_at: 1 };
const created: BriefingScheduleCreatedData = {
  org_id: 'o1', schedule_id: 's1', at: 100, project_uid: 'p1', channel: 'webhook', recipient: 'https://h.example/x', cron: null, interval_secs: 3600, timezone: 'UTC',
  mode: 'structural', only_on_change: true, status: 'active', paused_reason: null, next_run_at: 3700, consecutive_failures: 0, secret_hint: 'abcd', created_by: 'user:u1',
};

describe('briefing schedules in the briefs projection', () => {
  it('keeps the 50 newest runs of a schedule, newest first, and finds schedules whose last 3 finished runs failed', () => {
    const db = new Database(':memory:');
    const p = new BriefsProjection(db);
    const reads = new BriefsReadModel(db);
    let position = 0;
    const apply = (e: ReturnType<typeof eventFromLog>) => p.apply({ ...e, metadata: meta, id: `e${position}`, stream: BriefingStreams.schedule('o1', 's1'), revision: position, position: ++position });
    apply(eventFromLog('BriefingScheduleCreated', created));
    const base = { org_id: 'o1', schedule_id: 's1' };
    for (let i = 1; i <= 55; i++) {
      apply(eventFromLog('BriefingRunQueued', { ...base, at: 100 + i, run_id: `r${i}`, trigger: 'cadence', scheduled_for: 100 + i, next_run_at: 200 + i }));
      apply(eventFromLog('BriefingRunStarted', { ...base, at: 100 + i, run_id: `r${i}` }));
      const failed = i > 52;
      apply(
        eventFromLog('BriefingRunFinished', {
          ...base, at: 100 + i, run_id: `r${i}`, status: failed ? 'failed' : 'delivered', brief_version: 1, reused: true, material_change_count: 0, skip_reason: null,
          error: failed ? { code: 'http_error', message: `run ${i}` } : null, consecutive_failures: failed ? i - 52 : 0,
        }),
      );
    }
    const runs = reads.runs('o1', 's1');
    expect(runs).toHaveLength(KEPT_RUNS);
    expect(runs[0]!.id).toBe('r55');
    expect(runs[KEPT_RUNS - 1]!.id).toBe('r6');
    expect(reads.run('o1', 'r5')).toBeNull();
    const row = reads.schedule('o1', 's1')!;
    expect(row).toMatchObject({ last_delivered_version: 1, revision: position - 1, schedule: { next_run_at: 255, consecutive_failures: 3, secret_hint: 'abcd' } });
    const failing = reads.failingSchedules('o1');
    expect(failing.map((f) => [f.schedule.id, f.runs.map((r) => r.error?.message)])).toEqual([['s1', ['run 55', 'run 54', 'run 53']]]);
    expect(reads.failingSchedules('o1', 4)).toEqual([]);

    apply(eventFromLog('BriefingScheduleDeleted', { ...base, at: 300, deleted_by: 'user:u1', cancelled_run_id: null }));
    expect(reads.schedule('o1', 's1')).toBeNull();
    expect(reads.runs('o1', 's1')).toEqual([]);
  });
});
