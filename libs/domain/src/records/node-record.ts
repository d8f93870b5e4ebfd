import type { Classification } from '../governance/classification';
/** The node as clients see it (interface spec "Node record" plus REFERENCE §1.6). */
export interface NodeRecord {
  uid: string;
  label: string;
  summary: string;
  node_type: string;
  layer: Layer;
  confidence: number;
  salience: number;
  privacy_level: PrivacyLevel;
  /** REFERENCE §13.1; records written before the field existed read as `internal` */
  classification?: Classification;
  props: Record<string, unknown> & { _type: string };
  agent_id: string | null;
  created_at: number;
  updated_at: number;
  tombstone_at: number | null;
  tombstone_reason: string | null;
  tombstone_by: string | null;
  version: number;
}

export type Layer = 'reality' | 'epistemic' | 'intent' | 'action' | 'memory' | 'agent' | 'ontology';
export const LAYERS: readonly Layer[] = ['reality', 'epistemic', 'intent', 'action', 'memory', 'agent', 'ontology'];
export type PrivacyLevel = 'private' | 'shared' | 'public';
export const PRIVACY_LEVELS: readonly PrivacyLevel[] = ['private', 'shared', 'public'];
