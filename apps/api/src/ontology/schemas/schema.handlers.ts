import { Inject, Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { Streams } from '@strata/domain/events';
import {
  OntologyEventTypes as T,
  OntologySchemaRecord,
  SchemaPatch,
  decideActivate,
  decideArchive,
  decideCreateSchema,
  decideDeprecate,
  decideUpdateSchema,
} from '@strata/domain/ontology';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator } from '@strata/domain/time';
import { commandContext } from '@strata/platform/unit-of-work/command-context.factory';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { OntologyStore } from '@strata/ontology/ontology-store';
import { iso, paginated, presentSchema, presentSchemaDetail } from '../ontology-presenters';
import { OntologyScope } from '../ontology-scope';

/** The identity values a read-model key stands for (identity fields, or the normalised name). */
function identityOfKey(key: string): Record<string, unknown> {
  if (key.startsWith('id:')) return Object.fromEntries(JSON.parse(key.slice(3)) as [string, unknown][]);
  return { canonical_name: key.slice('name:'.length) };
}

type Move = 'activate' | 'deprecate' | 'archive';
const MOVE_EVENT = { activate: T.OntologySchemaActivated, deprecate: T.OntologySchemaDeprecated, archive: T.OntologySchemaArchived } as const;

/** Ontology schemas: create, list, read with their types, edit, and the lifecycle moves. */
@Injectable()
export class SchemaHandlers {
  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly store: OntologyStore,
    private readonly scope: OntologyScope,
  ) {}

  async create(auth: AuthContext, rid: string, input: { name: string; description?: string }) {
    this.store.assertAvailable();
    return this.uow.run(commandContext(auth, rid), async (tx) => {
      const schema = decideCreateSchema({ name: input.name, description: input.description ?? null }, this.ids.uuid(), auth.org_id, auth.principal.id, tx.now);
      tx.emit(Streams.ontologySchema(auth.org_id, schema.id), T.OntologySchemaCreated, { schema }, 'no_stream');
      return presentSchema(schema);
    });
  }

  list(auth: AuthContext, status: string | undefined, limit: number, offset: number) {
    const rows = this.store.read.schemas(auth.org_id, status, limit + 1, offset);
    return paginated(rows.slice(0, limit).map(presentSchema), limit, offset, rows.length > limit);
  }

  get(auth: AuthContext, id: string) {
    const { schema } = this.store.schema(auth.org_id, id);
    return presentSchemaDetail(schema, this.store.read.types(id));
  }

  /**
   * Exact identity collisions among the schema's live objects; reads only. An object outside
   * the caller's grants is absent: it is not listed, and a collision only it completes is not one.
   */
  async duplicatesAudit(auth: AuthContext, id: string) {
    this.store.schema(auth.org_id, id);
    const scope = await this.scope.of(auth);
    const collisions = this.store.read
      .identityCollisions(auth.org_id, id)
      .map((c) => ({ ...c, uids: scope ? c.uids.filter((u) => scope.allows(u)) : c.uids }))
      .filter((c) => c.uids.length > 1)
      .map((c) => ({
        object_type: c.object_type,
        identity: identityOfKey(c.identity_key),
        uids: c.uids,
        count: c.uids.length,
      }));
    return {
      schema_id: id,
      audited_at: iso(this.clock.now()),
      object_types_checked: this.store.read.types(id).objects.filter((t) => t.status !== 'archived').length,
      total_collisions: collisions.length,
      collisions,
    };
  }

  async update(auth: AuthContext, rid: string, id: string, patch: SchemaPatch) {
    return this.uow.run(commandContext(auth, rid), async (tx) => {
      const { schema, revision } = this.store.schema(auth.org_id, id);
      const next = decideUpdateSchema(schema, patch, auth.principal.id, tx.now);
      tx.emit(Streams.ontologySchema(auth.org_id, id), T.OntologySchemaUpdated, { schema: next }, revision);
      return presentSchema(next);
    });
  }

  async move(auth: AuthContext, rid: string, id: string, move: Move) {
    return this.uow.run(commandContext(auth, rid), async (tx) => {
      const { schema, revision } = this.store.schema(auth.org_id, id);
      let next: OntologySchemaRecord | null;
      if (move === 'activate') {
        const live = this.store.read.types(id).objects.filter((t) => t.status !== 'archived').length;
        next = decideActivate(schema, live, auth.principal.id, tx.now);
      } else if (move === 'deprecate') next = decideDeprecate(schema, auth.principal.id, tx.now);
      else next = decideArchive(schema, auth.principal.id, tx.now);
      if (!next) return presentSchema(schema);
      tx.emit(Streams.ontologySchema(auth.org_id, id), MOVE_EVENT[move], { schema: next }, revision);
      return presentSchema(next);
    });
  }
}
