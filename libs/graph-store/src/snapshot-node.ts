/**
 * A node as an export snapshot writes it (REFERENCE §8.6): the stored record's JSON, with the
 * node's decay clock `last_decayed_at` (REFERENCE §7.2) appended when it has one, so an
 * import restores it and a decay there counts from the same moment as here. The clock is
 * read-model state beside the record (a column on SQLite, a field of the MongoDB document),
 * not part of the record the node routes return. Both adapters' snapshot readers use this,
 * so they write the same text.
 */
export function snapshotNodeJson(recordJson: string, lastDecayedAt: number | null | undefined): string {
  if (lastDecayedAt === null || lastDecayedAt === undefined) return recordJson;
  if (recordJson.length < 2 || recordJson.charCodeAt(recordJson.length - 1) !== 125 /* } */)
    throw new Error(`internal: a node record's JSON is not an object: ${recordJson.slice(0, 80)}`);
  const sep = recordJson === '{}' ? '' : ',';
  return `${recordJson.slice(0, -1)}${sep}"last_decayed_at":${JSON.stringify(lastDecayedAt)}}`;
}
