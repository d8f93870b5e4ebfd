import { PremiseFacts, stalePremises } from './stale-derivations';

const premise = (over: Partial<PremiseFacts>): PremiseFacts => ({
  uid: 'p',
  label: 'P',
  node_type: 'Claim',
  edge_type: 'DerivedFrom',
  update_times: [],
  tombstone_at: null,
  superseded_times: [],
  ...over,
});

describe('stalePremises', () => {
  it('is not stale when every premise change predates the last check', () => {
    const r = stalePremises(100, [premise({ update_times: [50, 100], superseded_times: [99] })]);
    expect(r).toEqual({ premises: [], stale_since: null });
  });

  it('reports an update after the last check with its time', () => {
    const r = stalePremises(100, [premise({ update_times: [50, 150, 120] })]);
    expect(r.premises).toEqual([expect.objectContaining({ uid: 'p', reason: 'premise_updated', changed_at: 120 })]);
    expect(r.stale_since).toBe(120);
  });

  it('reports tombstoned and superseded premises and takes the earliest change as stale_since', () => {
    const r = stalePremises(100, [
      premise({ uid: 'a', tombstone_at: 300 }),
      premise({ uid: 'b', superseded_times: [200] }),
    ]);
    expect(r.premises.map((p) => [p.uid, p.reason])).toEqual([
      ['b', 'premise_superseded'],
      ['a', 'premise_tombstoned'],
    ]);
    expect(r.stale_since).toBe(200);
  });
});
