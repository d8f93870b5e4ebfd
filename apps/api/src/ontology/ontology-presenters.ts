import { ObjectTypeRecord, OntologySchemaRecord, ProposalRecord, RelationTypeRecord, SchemaTypes } from '@strata/domain/ontology';

/** /v1 ontology records carry ISO 8601 UTC times with milliseconds (REFERENCE §1.3). */
export function iso(unixSeconds: number): string;
export function iso(unixSeconds: number | null): string | null;
export function iso(unixSeconds: number | null): string | null {
  return unixSeconds === null ? null : new Date(Math.round(unixSeconds * 1000)).toISOString();
}

export function presentSchema(s: OntologySchemaRecord) {
  return {
    ...s,
    created_at: iso(s.created_at),
    updated_at: iso(s.updated_at),
    activated_at: iso(s.activated_at),
    archived_at: iso(s.archived_at),
  };
}

export function presentType<T extends ObjectTypeRecord | RelationTypeRecord>(t: T) {
  return { ...t, created_at: iso(t.created_at), updated_at: iso(t.updated_at) };
}

export function presentSchemaDetail(s: OntologySchemaRecord, types: SchemaTypes) {
  return { ...presentSchema(s), object_types: types.objects.map(presentType), relation_types: types.relations.map(presentType) };
}

export function presentProposal(p: ProposalRecord) {
  return { ...p, created_at: iso(p.created_at), edited_at: iso(p.edited_at), resolved_at: iso(p.resolved_at) };
}

export function paginated<T>(items: T[], limit: number, offset: number, hasMore: boolean) {
  return { items, has_more: hasMore, limit, offset };
}
