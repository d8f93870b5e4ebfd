import { DomainError } from '@strata/domain/errors';
import type { AccountsMirror } from '@strata/projections/accounts/accounts-mirror';
import type { OntologyReadModel } from '@strata/projections/ontology/ontology-read-model';
import Database from 'better-sqlite3';
import type { RecordedEvent } from '@strata/domain/events';
import { OntologyEventTypes as T, decideCreateSchema } from '@strata/domain/ontology';
import type { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import { OntologyProjection } from '@strata/projections/ontology/ontology.projection';
import { OntologyStore } from './ontology-store';

describe('OntologyStore in servers mode', () => {
  it('answers 503 unavailable (nothing written, retry) until the mirror has read the node streams, then reads the mirror', () => {
    const model = { schema: () => null } as unknown as OntologyReadModel;
    const mirror = { graphReady: false, ontologyReadModel: model } as unknown as AccountsMirror & { graphReady: boolean };
    const store = new OntologyStore(null, mirror, null);
    let err: unknown = null;
    try {
      store.assertAvailable();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DomainError);
    expect([(err as DomainError).status, (err as DomainError).toBody()]).toEqual([503, expect.objectContaining({ code: 'unavailable', retry_after: 1 })]);
    mirror.graphReady = true;
    expect(store.read).toBe(model);
    expect(() => store.schema('o', 's')).toThrow(expect.objectContaining({ status: 404 }));
  });
});

describe('OntologyStore on the embedded default', () => {
  const org = 'org-1';
  const schema = decideCreateSchema({ name: 'Clients', description: null }, 'schema-1', org, 'user-1', 1_000);
  let position = 0;
  const recorded = (type: string, data: unknown, revision: number): RecordedEvent =>
    ({
      id: `event-${++position}`,
      type,
      data,
      stream: `ontschema-${org}:${schema.id}`,
      revision,
      position,
      metadata: { org_id: org, principal: { kind: 'user', id: 'user-1' }, request_id: 'r', occurred_at: 1_000 },
    }) as unknown as RecordedEvent;

  /** the projection and the two batch signals of EmbeddedStorage, over one in-memory database */
  function embedded() {
    const db = new Database(':memory:');
    const projection = new OntologyProjection(db);
    const applied: ((events: RecordedEvent[]) => void)[] = [];
    const rolledBack: (() => void)[] = [];
    const storage = { projections: db, onApplied: (l: (e: RecordedEvent[]) => void) => applied.push(l), onRolledBack: (l: () => void) => rolledBack.push(l) };
    const store = new OntologyStore(storage as unknown as EmbeddedStorage, null, null);
    const project = (e: RecordedEvent) => {
      projection.apply(e);
      for (const l of applied) l([e]);
    };
    return { db, store, project, rollBack: () => rolledBack.forEach((l) => l()) };
  }

  it('answers a schema as it is after each schema event projected in the open batch, and as it was once the batch rolls back', () => {
    const { db, store, project, rollBack } = embedded();
    project(recorded(T.OntologySchemaCreated, { schema }, 0));
    expect(store.schema(org, schema.id)).toEqual({ schema, revision: 0 });
    expect(store.schema(org, schema.id)).toBe(store.schema(org, schema.id)); // read once while nothing changes

    db.exec('BEGIN');
    const active = { ...schema, status: 'active', activated_at: 1_001, updated_at: 1_001 };
    project(recorded(T.OntologySchemaActivated, { schema: active }, 1));
    expect(store.activeSchema(org, schema.id)).toEqual(active);
    db.exec('ROLLBACK');
    rollBack();
    expect(() => store.activeSchema(org, schema.id)).toThrow(expect.objectContaining({ code: 'schema_not_active' }));
    expect(store.schema(org, schema.id).revision).toBe(0);
  });

  it('answers the types a type event added, and 404 for another organization’s schema', () => {
    const { store, project } = embedded();
    project(recorded(T.OntologySchemaCreated, { schema }, 0));
    expect(store.types(org, schema.id).objects).toEqual([]);
    const client = { id: 'type-1', schema_id: schema.id, org_id: org, name: 'Client', status: 'active', created_at: 1_001, fields_json: [] };
    project(recorded(T.OntologyObjectTypeAdded, { schema: { ...schema, version: 2 }, object_type: client }, 1));
    expect(store.types(org, schema.id).objects.map((t) => t.id)).toEqual(['type-1']);
    expect(() => store.types('org-2', schema.id)).toThrow(expect.objectContaining({ status: 404 }));
  });
});
