import { Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { objectTypeCandidate, relationTypeCandidate } from '@strata/domain/ontology';
import { OntologyStore } from '@strata/ontology/ontology-store';
import { EntityFinder } from '@strata/ontology/entity-finder';

/**
 * Review-required semantic classifications of a schema's current type revisions: the built-in
 * type each one most resembles. Nothing is stored; a reviewer applies one by PATCHing the
 * type's `semantic_match`. The match is by name and field similarity, the same under every
 * provider; a provider must still be configured (501 `llm_not_configured`).
 */
@Injectable()
export class SemanticGuidance {
  constructor(
    private readonly entities: EntityFinder,
    private readonly store: OntologyStore,
  ) {}

  analyze(auth: AuthContext, schemaId: string) {
    this.store.schema(auth.org_id, schemaId);
    this.entities.assertAvailable();
    const types = this.store.read.types(schemaId);
    const classifications = [
      ...types.objects.filter((t) => t.status !== 'archived').map((t) => ({ type_id: t.id, type_kind: 'object' as const, type_name: t.name, type_version: t.version, semantic_match: objectTypeCandidate(t) })),
      ...types.relations.filter((t) => t.status !== 'archived').map((t) => ({ type_id: t.id, type_kind: 'relation' as const, type_name: t.name, type_version: t.version, semantic_match: relationTypeCandidate(t) })),
    ];
    return { schema_id: schemaId, classifications, review_required: true };
  }
}
