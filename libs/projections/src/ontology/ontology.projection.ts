import type { Database, Statement } from 'better-sqlite3';
import { isDomainObjectProps, identityKey, OntologyEventTypes as T } from '@strata/domain/ontology';
import { normaliseText } from '@strata/domain/catalogue';
import { GraphEvent, RecordedEvent, isGraphEvent, isOntologyEvent, unhandled } from '@strata/domain/events';
import { NodeRecord } from '@strata/domain/records';
import { EmbeddedProjection } from '../projection';
import { migrateOntologySchema, ONTOLOGY_DDL, ONTOLOGY_TABLES } from './ontology-schema';
import { prepared } from '../sqlite/prepared';

/**
 * The operational ontology's read model: schemas with their object and relation types,
 * proposals, and an index of the domain objects (graph nodes of the `ontology` layer) by
 * schema, type and identity. Schemas, types and proposals come from their own events (full
 * records); the object index follows the node events. Deterministic, so a rebuild gives the
 * same rows.
 */
export class OntologyProjection implements EmbeddedProjection {
  readonly name = 'ontology';
  readonly version = 2;
  private readonly stmts = new Map<string, Statement>();

  constructor(readonly db: Database) {
    db.exec(ONTOLOGY_DDL);
    migrateOntologySchema(db);
  }

  private run(sql: string, ...params: unknown[]): void {
    prepared(this.stmts, this.db, sql).run(...params);
  }

  apply(e: RecordedEvent): void {
    if (isOntologyEvent(e)) return this.applyOntology(e);
    if (isGraphEvent(e)) return this.applyGraph(e);
  }

  private upsertSchema(e: RecordedEvent, s: { id: string; org_id: string; status: string; activated_at: number | null; updated_at: number }): void {
    // the log position of the activation orders two schemas activated at the same instant
    const activatedPosition = e.type === T.OntologySchemaActivated ? e.position : null;
    this.run(
      `INSERT INTO onto_schemas(id, org_id, status, activated_at, updated_at, revision, record, activated_position) VALUES (?,?,?,?,?,?,?,?)
       ON CONFLICT(id) DO UPDATE SET status = excluded.status, activated_at = excluded.activated_at, updated_at = excluded.updated_at,
         revision = excluded.revision, record = excluded.record, activated_position = coalesce(excluded.activated_position, onto_schemas.activated_position)`,
      s.id, s.org_id, s.status, s.activated_at, s.updated_at, e.revision, JSON.stringify(s), activatedPosition,
    );
  }

  private upsertType(kind: 'object' | 'relation', t: { id: string; org_id: string; schema_id: string; name: string; status: string; created_at: number }): void {
    this.run(
      `INSERT INTO onto_types(id, org_id, schema_id, kind, name, status, created_at, record) VALUES (?,?,?,?,?,?,?,?)
       ON CONFLICT(id) DO UPDATE SET name = excluded.name, status = excluded.status, record = excluded.record`,
      t.id, t.org_id, t.schema_id, kind, t.name, t.status, t.created_at, JSON.stringify(t),
    );
  }

  private applyOntology(e: Extract<RecordedEvent, { type: keyof typeof T }>): void {
    switch (e.type) {
      case T.OntologySchemaCreated:
      case T.OntologySchemaUpdated:
      case T.OntologySchemaActivated:
      case T.OntologySchemaDeprecated:
      case T.OntologySchemaArchived:
        return this.upsertSchema(e, e.data.schema);
      case T.OntologyObjectTypeAdded:
      case T.OntologyObjectTypeUpdated:
      case T.OntologyObjectTypeArchived:
        this.upsertSchema(e, e.data.schema);
        return this.upsertType('object', e.data.object_type);
      case T.OntologyRelationTypeAdded:
      case T.OntologyRelationTypeUpdated:
      case T.OntologyRelationTypeArchived:
        this.upsertSchema(e, e.data.schema);
        return this.upsertType('relation', e.data.relation_type);
      case T.OntologyProposalCreated:
      case T.OntologyProposalEdited:
      case T.OntologyProposalApproved:
      case T.OntologyProposalRejected:
      case T.OntologyProposalApplied:
      case T.OntologyProposalApplyFailed: {
        const p = e.data.proposal;
        this.run(
          `INSERT INTO onto_proposals(id, org_id, schema_id, review_status, object_type, proposal_type, extract_job_id, created_at, revision, record)
           VALUES (?,?,?,?,?,?,?,?,?,?)
           ON CONFLICT(id) DO UPDATE SET review_status = excluded.review_status, object_type = excluded.object_type,
             revision = excluded.revision, record = excluded.record`,
          p.id, p.org_id, p.schema_id, p.review_status, p.object_type, p.proposal_type, p.extract_job_id, p.created_at, e.revision, JSON.stringify(p),
        );
        return;
      }
      case T.OntologyIdentityClaimed:
      case T.OntologyRelationSlotClaimed:
        return; // locks for concurrent writers: the object index follows the node events, relations are edges
      default:
        return unhandled(e);
    }
  }

  private indexObject(org: string, n: NodeRecord): void {
    const props = n.props as unknown as Record<string, unknown>;
    if (n.layer !== 'ontology' || !isDomainObjectProps(props)) return;
    const identity = props.identity && typeof props.identity === 'object' ? (props.identity as Record<string, unknown>) : {};
    const key = Object.keys(identity).length ? identityKey(identity) : `name:${normaliseText(props.canonical_name)}`;
    this.run(
      `INSERT INTO onto_objects(org_id, uid, schema_id, object_type_id, object_type, canonical_name, identity_key, created_at, updated_at, live)
       VALUES (?,?,?,?,?,?,?,?,?,?)
       ON CONFLICT(org_id, uid) DO UPDATE SET canonical_name = excluded.canonical_name, identity_key = excluded.identity_key,
         updated_at = excluded.updated_at, live = excluded.live`,
      org, n.uid, props.schema_id, props.object_type_id, n.node_type, props.canonical_name, key, n.created_at, n.updated_at, n.tombstone_at === null ? 1 : 0,
    );
  }

  private applyGraph(e: RecordedEvent<GraphEvent>): void {
    const org = e.metadata.org_id;
    switch (e.type) {
      case 'NodeCreated':
      case 'NodeUpdated':
      case 'NodeTombstoned':
      case 'NodeRestored':
        return this.indexObject(org, e.data.node);
      case 'GraphPurged':
        for (const uid of e.data.node_uids) this.run('DELETE FROM onto_objects WHERE org_id = ? AND uid = ?', org, uid);
        return;
      case 'GraphCleared':
        this.run('DELETE FROM onto_objects WHERE org_id = ?', org);
        return;
      default:
        return;
    }
  }

  reset(): void {
    for (const t of ONTOLOGY_TABLES) this.db.prepare(`DELETE FROM ${t}`).run();
  }
}
