import { Layer } from './node-record';

/** The complete edge record of REFERENCE §1.6. */
export interface EdgeRecord {
  uid: string;
  from_uid: string;
  to_uid: string;
  edge_type: string;
  layer: Layer;
  weight: number;
  confidence: number;
  props: Record<string, unknown> & { _type: string };
  agent_id: string | null;
  version: number;
  created_at: number;
  updated_at: number;
  tombstone_at: number | null;
  tombstone_reason: string | null;
}
