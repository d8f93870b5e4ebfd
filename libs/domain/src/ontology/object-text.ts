/**
 * What a domain object adds to its label for full-text search and embedding: its aliases.
 * Its canonical name is its label already; the schema, type and proposal ids, the review
 * status and the source uids are identifiers every object of a schema shares or none is
 * looked for by, and as text they would fill the index with id fragments (a proposal id
 * makes five terms no other object has) and make every object match "approved".
 * Null when the props are not a domain object's (the shape the ontology's object index reads).
 */
export function domainObjectText(props: Record<string, unknown>): string | null {
  if (typeof props.schema_id !== 'string' || typeof props.object_type_id !== 'string' || typeof props.canonical_name !== 'string') return null;
  if (typeof props.review_status !== 'string' || !Array.isArray(props.source_uids) || !Array.isArray(props.aliases)) return null;
  const parts: string[] = [];
  for (const a of props.aliases) if (typeof a === 'string' && a) parts.push(a);
  return parts.join('\n');
}
