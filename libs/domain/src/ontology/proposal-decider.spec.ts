import { DomainError } from '../errors';
import { ReviewStatus } from './proposal-record';
import { decideApprove, decideEditProposal, decideNewProposal, decideReject, assertProposalMove, extractionApplies, ExtractionMode } from './proposal-decider';
import { ReviewPolicy } from './ontology-records';

const base = decideNewProposal(
  { id: 'p', org_id: 'o', schema_id: 's', proposal_type: 'object_create', object_type: 'Client', object: { canonical_name: 'Acme', fields: { code: 'A' }, aliases: [], identity: {}, confidence: 0.6 } },
  10,
);
const at = (review_status: ReviewStatus) => ({ ...base, review_status });

describe('proposal lifecycle', () => {
  const rows: [ReviewStatus, boolean, boolean, boolean, boolean][] = [
    // from              edit   approve reject apply
    ['pending', true, true, true, false],
    ['approval_required', true, true, true, false],
    ['approved', false, false, false, true],
    ['apply_failed', false, false, false, true],
    ['applied', false, false, false, true],
    ['rejected', false, false, false, false],
  ];
  it.each(rows)('from %s: edit %s, approve %s, reject %s, apply %s', (from, edit, approve, reject, apply) => {
    const allowed = (move: 'edit' | 'approve' | 'reject' | 'apply') => {
      try {
        assertProposalMove(at(from), move);
        return true;
      } catch (e) {
        expect((e as DomainError).code).toBe('invalid_transition');
        return false;
      }
    };
    expect([allowed('edit'), allowed('approve'), allowed('reject'), allowed('apply')]).toEqual([edit, approve, reject, apply]);
  });

  it('high risk waits for approval; edits keep the original snapshot', () => {
    expect(decideNewProposal({ ...base, object: { canonical_name: 'x', fields: {}, aliases: [], identity: {}, confidence: 1 }, risk_level: 'high' } as never, 1).review_status).toBe('approval_required');
    const e1 = decideEditProposal(base, { canonical_name: 'Acme Corp' }, 'u', 11);
    const e2 = decideEditProposal(e1, { fields: { tier: 'gold' } }, 'u', 12);
    expect(e2.original_snapshot).toEqual(base.changes_json);
    expect(e2.changes_json.adds[0]).toMatchObject({ canonical_name: 'Acme Corp', fields: { code: 'A', tier: 'gold' } });
    expect([e2.edited_by, e2.edited_at, e2.review_status]).toEqual(['u', 12, 'pending']);
    expect(decideApprove(base, 'u', 13)).toMatchObject({ review_status: 'approved', resolved_by: 'u' });
    expect(decideReject(base, 'no', 'u', 13)).toMatchObject({ review_status: 'rejected', rationale: 'no' });
  });

  const policy: [ExtractionMode, ReviewPolicy, number, boolean][] = [
    ['propose_only', 'never', 1, false],
    ['force_auto_apply', 'always', 0.1, true],
    ['respect_policies', 'always', 1, false],
    ['respect_policies', 'low_confidence', 0.8, true],
    ['respect_policies', 'low_confidence', 0.79, false],
    ['respect_policies', 'never', 0.1, true],
  ];
  it.each(policy)('mode %s with policy %s at confidence %s applies: %s', (mode, p, c, applies) => {
    expect(extractionApplies(mode, p, c, 0.8)).toBe(applies);
  });
});
