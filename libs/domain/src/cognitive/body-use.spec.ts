import { present, readString } from '../validation';
import { trackBodyUse, withWarnings } from './body-use';

describe('trackBodyUse', () => {
  it('reports every top-level key the action never read', () => {
    const use = trackBodyUse({ action: 'x', label: 'L', colour: 'red', agent_id: 'a', summary: 's' });
    readString(use.body, 'label');
    present(use.body, 'summary');
    expect(use.warnings('intent/commitment', 'goal', false)).toEqual([{ field: 'colour', reason: 'not a field of /intent/commitment action goal; ignored' }]);
  });

  it('says when an unused key is an alias whose field was sent', () => {
    const use = trackBodyUse({ target_uid: 'a', task_uid: 'b' });
    void use.body.target_uid;
    expect(use.warnings('agent/plan', 'update_status', false)).toEqual([
      { field: 'task_uid', reason: 'alias of target_uid, which was also sent and was used instead' },
    ]);
  });

  it('puts warnings into an object body, beside it for a bare array, and nothing when there are none', () => {
    const w = [{ field: 'f', reason: 'r' }];
    expect(withWarnings({ status: 201, body: { uid: 'u' }, changes: [] }, w).body).toEqual({ uid: 'u', warnings: w });
    expect(withWarnings({ status: 200, body: [], changes: [] }, w)).toEqual({ status: 200, body: [], changes: [], warnings: w });
    const d = { status: 200 as const, body: { a: 1 }, changes: [] };
    expect(withWarnings(d, [])).toBe(d);
  });
});
