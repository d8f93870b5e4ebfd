import { Acknowledgement, ExceptionState, nextExceptionState, retained } from './exception-status';

const ack = (uids: string[], since: number, by = 'user:u1'): Acknowledgement => ({ task_uids: uids, by, since });
const holds = (a: Acknowledgement | null = null, detail: Record<string, unknown> = {}) => ({ holds: true as const, detail, ack: a });

describe('nextExceptionState (REFERENCE §14.2 status table)', () => {
  it('nothing → nothing while the condition is false', () => {
    expect(nextExceptionState(null, { holds: false, removed: false }, 10)).toBeNull();
  });

  it('— → open when the condition becomes true; open → acknowledged → open as Tasks come and go', () => {
    const open = nextExceptionState(null, holds(), 10)!;
    expect(open).toMatchObject({ status: 'open', first_detected_at: 10, last_changed_at: 10, reopen_count: 0, task_uids: [] });
    const acked = nextExceptionState(open, holds(ack(['t1'], 15)), 20)!;
    expect(acked).toMatchObject({ status: 'acknowledged', acknowledged_at: 20, acknowledged_by: 'user:u1', task_uids: ['t1'], last_changed_at: 20 });
    const more = nextExceptionState(acked, holds(ack(['t1', 't2'], 15)), 25)!;
    expect(more).toMatchObject({ status: 'acknowledged', acknowledged_at: 20, task_uids: ['t1', 't2'] });
    const back = nextExceptionState(more, holds(null), 30)!;
    expect(back).toMatchObject({ status: 'open', acknowledged_at: null, acknowledged_by: null, task_uids: [], last_changed_at: 30 });
  });

  it('opens straight into acknowledged when a Task already targets the subject', () => {
    expect(nextExceptionState(null, holds(ack(['t1'], 5)), 10)).toMatchObject({ status: 'acknowledged', first_detected_at: 10, acknowledged_at: 10 });
  });

  it('open or acknowledged → resolved, naming why; resolved stays resolved', () => {
    const open = nextExceptionState(null, holds(), 10)!;
    expect(nextExceptionState(open, { holds: false, removed: false }, 20)).toMatchObject({ status: 'resolved', resolved_at: 20, resolution: 'condition_cleared' });
    const acked = nextExceptionState(open, holds(ack(['t'], 10)), 12)!;
    const removed = nextExceptionState(acked, { holds: false, removed: true }, 20)!;
    expect(removed).toMatchObject({ status: 'resolved', resolution: 'subject_removed' });
    expect(nextExceptionState(removed, { holds: false, removed: false }, 30)).toBe(removed);
  });

  it('resolved → open again: same record, reopen_count + 1, acknowledgement cleared, first detection kept', () => {
    let s: ExceptionState = nextExceptionState(null, holds(ack(['t1'], 10)), 10)!;
    s = nextExceptionState(s, { holds: false, removed: false }, 20)!;
    s = nextExceptionState(s, holds(), 30)!;
    expect(s).toMatchObject({ status: 'open', reopen_count: 1, first_detected_at: 10, last_changed_at: 30, acknowledged_at: null, task_uids: [], resolved_at: null, resolution: null });
  });

  it('a detail change moves last_changed_at only', () => {
    const s = nextExceptionState(null, holds(null, { n: 1 }), 10)!;
    expect(nextExceptionState(s, holds(null, { n: 2 }), 20)).toMatchObject({ status: 'open', detail: { n: 2 }, last_changed_at: 20, first_detected_at: 10 });
    expect(nextExceptionState(s, holds(null, { n: 1 }), 20)).toMatchObject({ last_changed_at: 10 });
  });

  it('retains resolved exceptions for the retention period after resolved_at', () => {
    expect(retained({ status: 'resolved', resolved_at: 100 }, 100 + 89, 90)).toBe(true);
    expect(retained({ status: 'resolved', resolved_at: 100 }, 100 + 90, 90)).toBe(false);
    expect(retained({ status: 'open', resolved_at: null }, 1e12, 90)).toBe(true);
  });
});
