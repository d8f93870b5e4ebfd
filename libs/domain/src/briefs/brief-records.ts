/**
 * The records of a Project's living brief (REFERENCE §12.3). Times are Unix seconds; principal
 * ids read `user:<id>`, `api_key:<id>`, `agent:<id>` or `system`.
 */
export type BriefItemKind = 'finding' | 'tension' | 'open_question';
export const BRIEF_ITEM_KINDS: readonly BriefItemKind[] = ['finding', 'tension', 'open_question'];

export type BriefTrigger = 'regenerate' | 'schedule' | 'pin' | 'unpin' | 'correct';
export type BriefGenerator = 'structural' | 'llm';

export interface Citation {
  chunk_uid: string;
  document_uid: string;
  document_title: string;
  chunk_index: number;
  node_uid: string | null;
  char_start: number | null;
  char_end: number | null;
  quote: string | null;
  page_start: number | null;
  page_end: number | null;
}

export interface Correction {
  text: string;
  citations: Citation[];
  by: string;
  at: number;
  reason: string | null;
}

export interface BriefItem {
  id: string;
  kind: BriefItemKind;
  rank: number;
  text: string;
  generated_text: string;
  subject_uids: string[];
  basis_uids: string[];
  citations: Citation[];
  confidence: number | null;
  origin: BriefGenerator;
  pinned: boolean;
  pinned_by: string | null;
  pinned_at: number | null;
  correction: Correction | null;
  stale: boolean;
  first_version: number;
}

export type ChangeType = 'added' | 'removed' | 'text_changed' | 'citations_changed' | 'corrected' | 'pinned' | 'unpinned';

export interface Change {
  type: ChangeType;
  item_id: string;
  kind: BriefItemKind;
  material: boolean;
  before: { text: string } | null;
  after: { text: string } | null;
}

export interface SourceCounts {
  documents: number;
  chunks: number;
  nodes: number;
  edges: number;
}

export interface BriefVersion {
  project_uid: string;
  version: number;
  created_at: number;
  trigger: BriefTrigger;
  requested_by: string;
  generated_by: BriefGenerator;
  model: string | null;
  source_fingerprint: string;
  source_counts: SourceCounts;
  summary: string | null;
  items: BriefItem[];
  changes: Change[];
  material_change_count: number;
  previous_version: number | null;
}
