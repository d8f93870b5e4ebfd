/** What a decider needs to know about the write besides its input. */
export interface WriteContext {
  now: number;
  /** attribution stamped on created objects */
  agent_id: string | null;
  /** id of the acting principal (recorded as tombstone_by) */
  principal_id: string;
}
