import { Errors } from '../errors';
import { ProposalChanges, ProposalRecord, ProposalType, ProposedObject, ReviewStatus, RiskLevel } from './proposal-record';
import { ReviewPolicy } from './ontology-records';

/**
 * The proposal lifecycle of REFERENCE §11:
 *   pending → approved → applied | apply_failed;  pending → rejected;
 *   pending → approval_required (high risk, with an Approval node) → approved | rejected;
 *   apply_failed → applied via /apply. An applied proposal is final.
 */
export type ProposalMove = 'edit' | 'approve' | 'reject' | 'apply';

const FROM: Record<ProposalMove, readonly ReviewStatus[]> = {
  edit: ['pending', 'approval_required'],
  approve: ['pending', 'approval_required'],
  reject: ['pending', 'approval_required'],
  apply: ['approved', 'apply_failed', 'applied'],
};

const MOVES: readonly ProposalMove[] = ['edit', 'approve', 'reject', 'apply'];

/** 409 `invalid_transition` unless `move` is allowed from the proposal's status. */
export function assertProposalMove(p: ProposalRecord, move: ProposalMove): void {
  if (FROM[move].includes(p.review_status)) return;
  const allowed = MOVES.filter((m) => FROM[m].includes(p.review_status));
  throw Errors.invalidTransition(`cannot ${move} a proposal that is ${p.review_status}`, p.review_status, allowed);
}

export interface NewProposal {
  id: string;
  org_id: string;
  schema_id: string;
  proposal_type: ProposalType;
  object_type: string;
  object: ProposedObject;
  extract_job_id?: string | null;
  proposed_by_agent_id?: string | null;
  source_uids?: string[];
  rationale?: string | null;
  risk_level?: RiskLevel;
}

/** A new proposal, `pending` (or `approval_required` when high risk: the caller adds the Approval node). */
export function decideNewProposal(input: NewProposal, now: number): ProposalRecord {
  const risk = input.risk_level ?? 'low';
  return {
    id: input.id,
    org_id: input.org_id,
    schema_id: input.schema_id,
    proposal_type: input.proposal_type,
    object_type: input.object_type,
    extract_job_id: input.extract_job_id ?? null,
    proposed_by_agent_id: input.proposed_by_agent_id ?? null,
    source_uids: input.source_uids ?? [],
    source_scope_ids: [],
    changes_json: { adds: [{ ...input.object }], updates: [], removes: [] },
    rationale: input.rationale ?? null,
    confidence: input.object.confidence,
    risk_level: risk,
    review_status: risk === 'high' ? 'approval_required' : 'pending',
    approval_uid: null,
    proposed_node_uid: null,
    applied_job_id: null,
    applied_error: null,
    apply_attempt_count: 0,
    edited_by: null,
    edited_at: null,
    original_snapshot: null,
    requires_manual_resolution: false,
    created_at: now,
    resolved_at: null,
    resolved_by: null,
  };
}

export interface ProposalEdits {
  canonical_name?: string;
  fields?: Record<string, unknown>;
  aliases?: string[];
}

/** The object a proposal would write (its first add). */
export function proposedObject(p: ProposalRecord): ProposedObject {
  return p.changes_json.adds[0] as ProposedObject;
}

/** Edits while pending or awaiting approval; the first edit keeps the original changes. */
export function decideEditProposal(p: ProposalRecord, edits: ProposalEdits, by: string, now: number): ProposalRecord {
  assertProposalMove(p, 'edit');
  const o = proposedObject(p);
  const edited: ProposedObject = {
    ...o,
    canonical_name: edits.canonical_name ?? o.canonical_name,
    fields: edits.fields ? { ...o.fields, ...edits.fields } : o.fields,
    aliases: edits.aliases ?? o.aliases,
  };
  const changes: ProposalChanges = { ...p.changes_json, adds: [edited, ...p.changes_json.adds.slice(1)] };
  return { ...p, changes_json: changes, original_snapshot: p.original_snapshot ?? p.changes_json, edited_by: by, edited_at: now };
}

export function decideApprove(p: ProposalRecord, by: string, now: number): ProposalRecord {
  assertProposalMove(p, 'approve');
  return { ...p, review_status: 'approved', resolved_at: now, resolved_by: by };
}

export function decideReject(p: ProposalRecord, reason: string | null, by: string, now: number): ProposalRecord {
  assertProposalMove(p, 'reject');
  return { ...p, review_status: 'rejected', rationale: reason ?? p.rationale, resolved_at: now, resolved_by: by };
}

/** The outcome of writing an approved proposal: applied with its node, or apply_failed with the reason. */
export function decideApplied(p: ProposalRecord, nodeUid: string, now: number, by: string): ProposalRecord {
  return {
    ...p,
    review_status: 'applied',
    proposed_node_uid: nodeUid,
    applied_error: null,
    apply_attempt_count: p.apply_attempt_count + 1,
    requires_manual_resolution: false,
    resolved_at: p.resolved_at ?? now,
    resolved_by: p.resolved_by ?? by,
  };
}

export function decideApplyFailed(p: ProposalRecord, error: string): ProposalRecord {
  return { ...p, review_status: 'apply_failed', applied_error: error, apply_attempt_count: p.apply_attempt_count + 1, requires_manual_resolution: true };
}

export type ExtractionMode = 'respect_policies' | 'propose_only' | 'force_auto_apply';
export const EXTRACTION_MODES: readonly ExtractionMode[] = ['respect_policies', 'propose_only', 'force_auto_apply'];

/** Whether an extracted object is applied at once or left for review (REFERENCE §11 review-policy table). */
export function extractionApplies(mode: ExtractionMode, policy: ReviewPolicy, confidence: number, defaultConfidence: number): boolean {
  if (mode === 'propose_only') return false;
  if (mode === 'force_auto_apply') return true;
  if (policy === 'never') return true;
  if (policy === 'low_confidence') return confidence >= defaultConfidence;
  return false;
}
