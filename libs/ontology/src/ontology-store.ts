import { Inject, Injectable, Optional } from '@nestjs/common';
import { DomainError } from '@strata/domain/errors';
import { OntologyErrors, OntologySchemaRecord } from '@strata/domain/ontology';
import { EMBEDDED_STORAGE, SERVER_STORAGE } from '@strata/platform/storage/storage.tokens';
import type { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import type { ServerStores } from '@strata/platform/storage/server-stores';
import { AccountsMirror } from '@strata/projections/accounts/accounts-mirror';
import { MirrorCatchUp } from '@strata/projections/accounts/mirror-catch-up';
import { OntologyReadModel, SchemaRow } from '@strata/projections/ontology/ontology-read-model';

/**
 * The ontology read model of this process: the one projection, in the projections database
 * (embedded default) or in this replica's log mirror (servers mode), fed from the same events.
 */
@Injectable()
export class OntologyStore {
  private readonly model: OntologyReadModel;
  private readonly mirror: AccountsMirror | null;
  private readonly catchUpMirror: MirrorCatchUp;

  constructor(
    @Inject(EMBEDDED_STORAGE) storage: EmbeddedStorage | null,
    @Optional() @Inject(AccountsMirror) mirror: AccountsMirror | null,
    @Optional() @Inject(SERVER_STORAGE) server: ServerStores | null,
  ) {
    this.mirror = storage ? null : mirror;
    this.catchUpMirror = new MirrorCatchUp(this.mirror, server?.events ?? null, 'the ontology read model');
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

  /**
   * Servers mode: waits until this replica's mirror shows the log as it is now (a job queued
   * by another replica is decided on what that replica wrote). Embedded: no-op.
   */
  catchUp(): Promise<void> {
    return this.catchUpMirror.catchUp();
  }

  /**
   * Whether writes may be decided concurrently on this read model (servers mode: each
   * replica's mirror). On the embedded default the unit of work decides writes one after
   * another on the one index, so uniqueness needs no lock there.
   */
  get concurrentDeciders(): boolean {
    return this.mirror !== null;
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
