import { Inject, Injectable, Optional } from '@nestjs/common';
import { DomainError } from '@strata/domain/errors';
import { OntologyErrors, ObjectTypeRecord, OntologyEventTypes as T, OntologySchemaRecord, RelationTypeRecord, SchemaTypes } from '@strata/domain/ontology';
import type { RecordedEvent } from '@strata/domain/events';
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
  /**
   * Embedded default: schema rows and their types by organization and id, as the read model
   * holds them now. Every object write reads its schema and types; the rows change only on
   * the schema stream's events, which empty this as each is projected (inside the open write
   * batch, so a later request of the batch reads the new rows), and a rolled-back batch
   * empties it too. Servers mode reads its mirror each time: the mirror moves on its own.
   */
  private readonly cached: Map<string, { row: SchemaRow; types: SchemaTypes | null }> | null;

  constructor(
    @Inject(EMBEDDED_STORAGE) storage: EmbeddedStorage | null,
    @Optional() @Inject(AccountsMirror) mirror: AccountsMirror | null,
    @Optional() @Inject(SERVER_STORAGE) server: ServerStores | null,
  ) {
    this.mirror = storage ? null : mirror;
    this.catchUpMirror = new MirrorCatchUp(this.mirror, server?.events ?? null, 'the ontology read model');
    this.model = storage ? new OntologyReadModel(storage.projections) : mirror!.ontologyReadModel;
    this.cached = storage ? new Map() : null;
    if (storage) {
      const cached = this.cached!;
      storage.onApplied((events) => {
        if (cached.size && events.some(changesSchema)) cached.clear();
      });
      storage.onRolledBack(() => cached.clear());
    }
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
    return this.entry(org, id).row;
  }

  /** The object and relation types of the organization's schema (404 like `schema`), in the order they were added. */
  types(org: string, schemaId: string): SchemaTypes {
    const e = this.entry(org, schemaId);
    if (!e.types) {
      const t = this.read.types(schemaId);
      // shared with every caller until the schema changes
      e.types = this.cached ? { objects: Object.freeze(t.objects) as ObjectTypeRecord[], relations: Object.freeze(t.relations) as RelationTypeRecord[] } : t;
    }
    return e.types;
  }

  private entry(org: string, id: string): { row: SchemaRow; types: SchemaTypes | null } {
    const key = `${org}\u0000${id}`;
    const hit = this.cached?.get(key);
    if (hit) return hit;
    const row = this.read.schema(org, id);
    if (!row) throw OntologyErrors.schemaNotFound(id);
    const e = { row, types: null };
    // a schema has a few types: the entries stay small, and an organization has few schemas
    if (this.cached) {
      if (this.cached.size >= MAX_CACHED_SCHEMAS) this.cached.clear();
      this.cached.set(key, e);
    }
    return e;
  }

  activeSchema(org: string, id: string): OntologySchemaRecord {
    const { schema } = this.schema(org, id);
    if (schema.status !== 'active') throw OntologyErrors.schemaNotActive(id, schema.status);
    return schema;
  }
}

const MAX_CACHED_SCHEMAS = 1_000;

/** The events that change a schema row or its types (the read model's onto_schemas and onto_types). */
const SCHEMA_EVENTS: ReadonlySet<string> = new Set([
  T.OntologySchemaCreated,
  T.OntologySchemaUpdated,
  T.OntologySchemaActivated,
  T.OntologySchemaDeprecated,
  T.OntologySchemaArchived,
  T.OntologyObjectTypeAdded,
  T.OntologyObjectTypeUpdated,
  T.OntologyObjectTypeArchived,
  T.OntologyRelationTypeAdded,
  T.OntologyRelationTypeUpdated,
  T.OntologyRelationTypeArchived,
]);

const changesSchema = (e: RecordedEvent) => SCHEMA_EVENTS.has(e.type);
