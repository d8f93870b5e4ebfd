import { Inject, Injectable, Optional } from '@nestjs/common';
import { DomainError } from '@strata/domain/errors';
import { OntologyErrors, OntologySchemaRecord } from '@strata/domain/ontology';
import { EMBEDDED_STORAGE } from '@strata/platform/storage/storage.tokens';
import type { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import { AccountsMirror } from '@strata/projections/accounts/accounts-mirror';
import { OntologyReadModel, SchemaRow } from '@strata/projections/ontology/ontology-read-model';

/**
 * The ontology read model of this process: the one projection, in the projections database
 * (embedded default) or in this replica's log mirror (servers mode), fed from the same events.
 */
@Injectable()
export class OntologyStore {
  private readonly model: OntologyReadModel;
  private readonly mirror: AccountsMirror | null;

  constructor(@Inject(EMBEDDED_STORAGE) storage: EmbeddedStorage | null, @Optional() @Inject(AccountsMirror) mirror: AccountsMirror | null) {
    this.mirror = storage ? null : mirror;
    this.model = storage ? new OntologyReadModel(storage.projections) : mirror!.ontologyReadModel;
  }

  /**
   * Servers mode: the domain-object index comes from node events the mirror reads after
   * start; until it holds them all the area answers 503 `unavailable` (nothing written, retry),
   * rather than deciding identity and duplicates against half an index.
   */
  get read(): OntologyReadModel {
    if (this.mirror && !this.mirror.graphReady) throw new DomainError(503, 'unavailable', 'the ontology read model is still loading; nothing was written', { retry_after: 1 });
    return this.model;
  }

  /** 503 `unavailable` while the read model is loading (servers mode), before anything is written. */
  assertAvailable(): void {
    void this.read;
  }

  /** The organization's schema, or 404 (another organization's schema is as unknown as a missing one). */
  schema(org: string, id: string): SchemaRow {
    const row = this.read.schema(org, id);
    if (!row) throw OntologyErrors.schemaNotFound(id);
    return row;
  }

  activeSchema(org: string, id: string): OntologySchemaRecord {
    const { schema } = this.schema(org, id);
    if (schema.status !== 'active') throw OntologyErrors.schemaNotActive(id, schema.status);
    return schema;
  }
}
