import type { Classification } from '../governance/classification';

/** What a decider needs to know about the write besides its input. */
export interface WriteContext {
  now: number;
  /** attribution stamped on created objects */
  agent_id: string | null;
  /** id of the acting principal (recorded as tombstone_by) */
  principal_id: string;
  /**
   * classification of nodes created without one: the target Space's `default_classification`
   * when the request names a `space_uid` (REFERENCE §13.1), else `internal`
   */
  default_classification?: Classification;
}
