import { Inject, Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { LANGUAGE_MODELS, LanguageModels } from '@strata/ai/llm/chat-model.port';
import { objectTypeCandidate, relationTypeCandidate } from '@strata/domain/ontology';
import { OntologyStore } from '../ontology-store';
import { assertModelAvailable } from '../extraction/model-access';

/**
 * Review-required semantic classifications of a schema's current type revisions: the built-in
 * type each one most resembles. Nothing is stored; a reviewer applies one by PATCHing the
 * type's `semantic_match`.
 */
@Injectable()
export class SemanticGuidance {
  constructor(
    @Inject(LANGUAGE_MODELS) private readonly models: LanguageModels,
    private readonly store: OntologyStore,
  ) {}

  analyze(auth: AuthContext, schemaId: string) {
    this.store.schema(auth.org_id, schemaId);
    assertModelAvailable(this.models);
    const types = this.store.read.types(schemaId);
    const classifications = [
      ...types.objects.filter((t) => t.status !== 'archived').map((t) => ({ type_id: t.id, type_kind: 'object' as const, type_name: t.name, type_version: t.version, semantic_match: objectTypeCandidate(t) })),
      ...types.relations.filter((t) => t.status !== 'archived').map((t) => ({ type_id: t.id, type_kind: 'relation' as const, type_name: t.name, type_version: t.version, semantic_match: relationTypeCandidate(t) })),
    ];
    return { schema_id: schemaId, classifications, review_required: true };
  }
}
