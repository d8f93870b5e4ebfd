import { Inject, Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { typeKey } from '@strata/domain/catalogue';
import { Errors } from '@strata/domain/errors';
import { OntologyErrors, RelationTypeRecord, validateObjectFields } from '@strata/domain/ontology';
import { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { Body, readObject, readString, readUid, readUnit } from '@strata/domain/validation';
import { commandContext } from '@strata/platform/unit-of-work/command-context.factory';
import { createEdge } from '@strata/platform/unit-of-work/graph-ops';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { OntologyScope } from '../ontology-scope';
import { OntologyStore } from '@strata/ontology/ontology-store';
import { checkReferences, isDomainObject, objectProps } from '@strata/ontology/domain-objects';
import { RelationSlots } from '@strata/ontology/relation-slots';

/**
 * `POST /ontology/relation`: an edge of a schema's relation type between two domain objects,
 * created once — the same (from, to, relation) again returns the live edge (200, created:false).
 */
@Injectable()
export class RelationHandlers {
  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    private readonly store: OntologyStore,
    private readonly scope: OntologyScope,
    private readonly slots: RelationSlots,
  ) {}

  async create(auth: AuthContext, rid: string, body: Body): Promise<{ edge: EdgeRecord; created: boolean }> {
    const action = body.action ?? 'create';
    if (action !== 'create') throw Errors.unknownAction(action, ['create']);
    const from = readUid(body, 'from_uid', { required: true })!;
    const to = readUid(body, 'to_uid', { required: true })!;
    const relationName = readString(body, 'relation_type', { required: true, max: 100 })!;
    const fields = readObject(body, 'fields') ?? {};
    const confidence = readUnit(body, 'confidence');
    const scope = await this.scope.of(auth);
    const visible = (u: string) => !scope || scope.allows(u);
    for (const [field, uid] of [['from_uid', from], ['to_uid', to]] as const) if (!visible(uid)) throw Errors.refNotFound(field, uid);
    return this.uow.run(commandContext(auth, rid, body), async (tx) => {
      const a = await endpoint(tx, from, 'from_uid');
      const b = await endpoint(tx, to, 'to_uid');
      const schemaId = objectProps(a).schema_id as string;
      const schema = this.store.activeSchema(auth.org_id, schemaId);
      const rel = this.store.types(auth.org_id, schema.id).relations.find((r) => r.status !== 'archived' && typeKey(r.name) === typeKey(relationName));
      if (!rel) throw OntologyErrors.validationFailed([{ path: 'relation_type', message: `${relationName} is not a relation type of schema ${schema.id}` }]);
      // a relation type joins object types of its own schema: a same-named type of another schema is not one
      if (objectProps(b).schema_id !== schemaId)
        throw OntologyErrors.validationFailed([{ path: 'to_uid', message: `${to} is an object of another schema than ${from}; ${rel.name} links objects of schema ${schema.id}` }]);
      const forward = typeKey(a.node_type) === typeKey(rel.source_type) && typeKey(b.node_type) === typeKey(rel.target_type);
      const reverse = rel.symmetric && typeKey(a.node_type) === typeKey(rel.target_type) && typeKey(b.node_type) === typeKey(rel.source_type);
      if (!forward && !reverse)
        throw OntologyErrors.validationFailed([
          { path: 'from_uid', message: `${rel.name} goes from ${rel.source_type} to ${rel.target_type}${rel.symmetric ? ' (either way)' : ''}; got ${a.node_type} to ${b.node_type}` },
        ]);
      // the request is checked whole before the idempotent answer: bad fields are 422 even for a link that exists
      const checked = validateObjectFields({ name: rel.name, fields_json: rel.fields_json, required_fields: [] } as never, fields, null);
      await checkReferences(tx, checked.references, visible);
      const existing = await this.existing(tx, rel, from, to);
      if (existing) return { edge: existing, created: false };
      await this.assertCardinality(tx, rel, from, to);
      // servers mode: the same check against the endpoints' claims, and the claims this edge makes
      const claim = await this.slots.reserve(tx, rel, from, to);
      const props = { _type: rel.name, schema_id: schema.id, relation_type_id: rel.id, fields: checked.fields };
      const edge = createEdge(tx, { edge_type: rel.name, confidence, props }, a, b);
      claim(edge.uid);
      return { edge, created: true };
    });
  }

  /** The live edge of this relation between the two objects (either direction when symmetric). */
  private async existing(tx: GraphTx, rel: RelationTypeRecord, from: string, to: string): Promise<EdgeRecord | null> {
    const same = await tx.edges({ from_uid: from, to_uid: to, edge_types: [rel.name] });
    if (same.length) return same[0];
    if (!rel.symmetric) return null;
    return (await tx.edges({ from_uid: to, to_uid: from, edge_types: [rel.name] }))[0] ?? null;
  }

  /**
   * one_to_one: neither end has another edge of this relation; one_to_many: the target has no
   * other source. A symmetric relation counts its edges in both directions.
   */
  private async assertCardinality(tx: GraphTx, rel: RelationTypeRecord, from: string, to: string): Promise<void> {
    if (!rel.cardinality || rel.cardinality === 'many_to_many') return;
    const touching = async (uid: string, as: 'from' | 'to') => {
      const edges = rel.symmetric
        ? await tx.edges({ touching: uid, edge_types: [rel.name] })
        : await tx.edges({ [as === 'from' ? 'from_uid' : 'to_uid']: uid, edge_types: [rel.name] });
      return edges.length;
    };
    if (rel.cardinality === 'one_to_one' && (await touching(from, 'from')) > 0) throw OntologyErrors.cardinalityViolation(rel.name, rel.cardinality, 'from_uid', from);
    if ((await touching(to, 'to')) > 0) throw OntologyErrors.cardinalityViolation(rel.name, rel.cardinality, 'to_uid', to);
  }
}

async function endpoint(tx: GraphTx, uid: string, field: string): Promise<NodeRecord> {
  const n = await tx.node(uid);
  if (!n || n.tombstone_at !== null) throw Errors.refNotFound(field, uid);
  if (!isDomainObject(n)) throw Errors.wrongNodeType(field, uid, (n as NodeRecord).node_type, ['a domain object']);
  return n;
}
