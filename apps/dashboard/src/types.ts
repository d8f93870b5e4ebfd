/** What the service answers (REFERENCE), as far as the dashboard reads it. */
export type Role = 'owner' | 'admin' | 'member' | 'viewer';

export interface Membership {
  org_id: string;
  org_name: string;
  role: Role;
  plan: string;
  joined_at: string;
}

export interface Account {
  user: { id: string; email: string; name: string | null; created_at: string };
  memberships: Membership[];
  current_org_id: string | null;
  role: Role | null;
}

export interface Page<T> {
  items: T[];
  has_more: boolean;
  limit: number;
  offset: number;
}

export interface NodeRecord {
  uid: string;
  label: string;
  summary: string | null;
  node_type: string;
  layer: string;
  props: Record<string, unknown>;
  confidence?: number;
  salience?: number;
  classification?: string;
  privacy_level?: string;
  agent_id?: string | null;
  version: number;
  created_at: number;
  updated_at: number;
  tombstone_at: number | null;
  [k: string]: unknown;
}

export interface EdgeRecord {
  uid: string;
  from_uid: string;
  to_uid: string;
  edge_type: string;
  layer: string;
  weight: number;
  confidence: number;
  props: Record<string, unknown>;
  version: number;
  created_at: number;
  tombstone_at: number | null;
}

export interface VersionRecord {
  version: number;
  change_type: string;
  changed_at: number;
  changed_by: string;
  agent_id: string | null;
  change_reason: string | null;
  snapshot: Record<string, unknown>;
}

export interface PathStep {
  node_uid: string;
  label: string;
  node_type: string;
  layer: string;
  edge_type: string | null;
  edge_uid: string | null;
  direction: 'outgoing' | 'incoming' | null;
  depth: number;
  parent_uid: string | null;
}

export interface Job {
  id: string;
  kind: string;
  title: string | null;
  status: 'pending' | 'processing' | 'completed' | 'failed' | 'cancelled';
  document_uid: string | null;
  progress: { total_chunks: number; processed_chunks: number; nodes_created: number; edges_created: number; remaining?: number };
  result: Record<string, unknown> | null;
  error: string | null;
  created_at: number;
  updated_at: number;
  queue_position?: number;
}
