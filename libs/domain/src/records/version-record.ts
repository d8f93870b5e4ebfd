/** One entry of node or edge history (REFERENCE §1.6). */
export interface VersionRecord<T> {
  version: number;
  change_type: 'create' | 'update' | 'tombstone' | 'restore';
  changed_at: number;
  changed_by: string;
  agent_id: string | null;
  change_reason: string | null;
  snapshot: T;
}
