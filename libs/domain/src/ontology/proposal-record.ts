/** An ontology proposal (REFERENCE §11): a reviewed change to the domain objects. Times are Unix seconds. */

export type ProposalType = 'object_create' | 'object_update' | 'relation_create';
export const PROPOSAL_TYPES: readonly ProposalType[] = ['object_create', 'object_update', 'relation_create'];

export type ReviewStatus = 'pending' | 'approval_required' | 'approved' | 'applied' | 'apply_failed' | 'rejected';
export const REVIEW_STATUSES: readonly ReviewStatus[] = ['pending', 'approval_required', 'approved', 'applied', 'apply_failed', 'rejected'];

export type RiskLevel = 'low' | 'medium' | 'high';

/** What an object proposal would write: the object's authored content. */
export interface ProposedObject {
  canonical_name: string;
  fields: Record<string, unknown>;
  aliases: string[];
  identity: Record<string, unknown>;
  confidence: number;
}

export interface ProposalChanges {
  adds: unknown[];
  updates: unknown[];
  removes: unknown[];
}

export interface ProposalRecord {
  id: string;
  org_id: string;
  schema_id: string;
  proposal_type: ProposalType;
  object_type: string;
  extract_job_id: string | null;
  proposed_by_agent_id: string | null;
  source_uids: string[];
  source_scope_ids: string[];
  changes_json: ProposalChanges;
  rationale: string | null;
  confidence: number;
  risk_level: RiskLevel;
  review_status: ReviewStatus;
  approval_uid: string | null;
  proposed_node_uid: string | null;
  applied_job_id: string | null;
  applied_error: string | null;
  apply_attempt_count: number;
  edited_by: string | null;
  edited_at: number | null;
  original_snapshot: ProposalChanges | null;
  requires_manual_resolution: boolean;
  created_at: number;
  resolved_at: number | null;
  resolved_by: string | null;
}
