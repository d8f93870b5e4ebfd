import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '@strata/domain/errors';
import { OntologyErrors, OntologySchemaRecord } from '@strata/domain/ontology';
import { EMBEDDED_STORAGE } from '@strata/platform/storage/storage.tokens';
import type { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import { OntologyReadModel, SchemaRow } from '@strata/projections/ontology/ontology-read-model';

/**
 * The ontology read model of this process. The projection runs on the embedded default; in
 * servers mode the area answers 501 `not_implemented` until its MongoDB projection exists,
 * rather than deciding against a read model that is not there.
 */
@Injectable()
export class OntologyStore {
  private readonly model: OntologyReadModel | null;

  constructor(@Inject(EMBEDDED_STORAGE) storage: EmbeddedStorage | null) {
    this.model = storage ? new OntologyReadModel(storage.projections) : null;
  }

  get read(): OntologyReadModel {
    if (!this.model) throw new DomainError(501, 'not_implemented', 'the operational ontology is not available in servers mode yet');
    return this.model;
  }

  /** 501 `not_implemented` where the read model is missing (servers mode), before anything is written. */
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
