import type { Database, Statement } from 'better-sqlite3';
import { ObjectTypeRecord, OntologySchemaRecord, ProposalRecord, RelationTypeRecord, SchemaTypes } from '@strata/domain/ontology';
import { prepared } from '../sqlite/prepared';

export interface SchemaRow {
  schema: OntologySchemaRecord;
  /** stream revision the row was decided from: the expected revision of the next write */
  revision: number;
}

export interface ObjectIndexRow {
  uid: string;
  schema_id: string;
  object_type_id: string;
  object_type: string;
  canonical_name: string;
  created_at: number;
  updated_at: number;
}

export interface ProposalFilter {
  status?: string;
  schema_id?: string;
  object_type?: string;
  proposal_type?: string;
  extract_job_id?: string;
}

const OBJECT_SORTS: Record<string, string> = { updated_at: 'updated_at', created_at: 'created_at', canonical_name: 'canonical_name' };

/** How many parsed schema and type records a read model keeps (a few per schema in use). */
const PARSED_RECORDS = 2_000;

/** Queries over the ontology projection's tables (synchronous: the embedded read model). */
export class OntologyReadModel {
  private readonly stmts = new Map<string, Statement>();
  /**
   * Schema and type records by their stored JSON: every object write reads its schema and
   * types, and parsing them was most of its own cost. Keyed by content, not id or revision,
   * so a batch rolled back and decided again can never be answered from a stale entry.
   * Frozen: callers share them.
   */
  private readonly parsed = new Map<string, unknown>();

  constructor(private readonly db: Database) {}

  private record<T>(json: string): T {
    let r = this.parsed.get(json);
    if (r === undefined) {
      if (this.parsed.size >= PARSED_RECORDS) this.parsed.clear();
      this.parsed.set(json, (r = deepFreeze(JSON.parse(json))));
    }
    return r as T;
  }

  private q(sql: string): Statement {
    return prepared(this.stmts, this.db, sql);
  }

  schema(org: string, id: string): SchemaRow | null {
    const r = this.q('SELECT record, revision FROM onto_schemas WHERE id = ? AND org_id = ?').get(id, org) as { record: string; revision: number } | undefined;
    return r ? { schema: this.record(r.record), revision: r.revision } : null;
  }

  /** `updated_at` descending, ties by id; one more than `limit` tells whether more exist. */
  schemas(org: string, status: string | undefined, limit: number, offset: number): OntologySchemaRecord[] {
    const rows = (status
      ? this.q('SELECT record FROM onto_schemas WHERE org_id = ? AND status = ? ORDER BY updated_at DESC, id ASC LIMIT ? OFFSET ?').all(org, status, limit, offset)
      : this.q('SELECT record FROM onto_schemas WHERE org_id = ? ORDER BY updated_at DESC, id ASC LIMIT ? OFFSET ?').all(org, limit, offset)) as { record: string }[];
    return rows.map((r) => JSON.parse(r.record));
  }

  /** The active schemas, most recently activated first. */
  activeSchemas(org: string): OntologySchemaRecord[] {
    return (this.q("SELECT record FROM onto_schemas WHERE org_id = ? AND status = 'active' ORDER BY activated_at DESC, activated_position DESC, id DESC").all(org) as { record: string }[]).map((r) =>
      JSON.parse(r.record),
    );
  }

  /** In the order they were added (rowid: the log's order, so a rebuild gives the same). */
  types(schemaId: string): SchemaTypes {
    const rows = this.q('SELECT kind, record FROM onto_types WHERE schema_id = ? ORDER BY created_at ASC, rowid ASC').all(schemaId) as { kind: string; record: string }[];
    const objects: ObjectTypeRecord[] = [];
    const relations: RelationTypeRecord[] = [];
    for (const r of rows) (r.kind === 'object' ? objects : relations).push(this.record(r.record));
    return { objects, relations };
  }

  objectType(org: string, id: string): ObjectTypeRecord | null {
    const r = this.q("SELECT record FROM onto_types WHERE id = ? AND org_id = ? AND kind = 'object'").get(id, org) as { record: string } | undefined;
    return r ? this.record(r.record) : null;
  }

  proposal(org: string, id: string): { proposal: ProposalRecord; revision: number } | null {
    const r = this.q('SELECT record, revision FROM onto_proposals WHERE id = ? AND org_id = ?').get(id, org) as { record: string; revision: number } | undefined;
    return r ? { proposal: JSON.parse(r.record), revision: r.revision } : null;
  }

  /** `created_at` descending, ties by id. */
  proposals(org: string, f: ProposalFilter, limit: number, offset: number): ProposalRecord[] {
    const where = ['org_id = ?'];
    const params: unknown[] = [org];
    const add = (col: string, v: string | undefined) => {
      if (v === undefined) return;
      where.push(`${col} = ?`);
      params.push(v);
    };
    add('review_status', f.status);
    add('schema_id', f.schema_id);
    add('object_type', f.object_type);
    add('proposal_type', f.proposal_type);
    add('extract_job_id', f.extract_job_id);
    const sql = `SELECT record FROM onto_proposals WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id ASC LIMIT ? OFFSET ?`;
    return (this.q(sql).all(...params, limit, offset) as { record: string }[]).map((r) => JSON.parse(r.record));
  }

  /** Live objects of a type with an identity key, oldest first. */
  objectsWithIdentity(org: string, objectTypeId: string, key: string): string[] {
    return (this.q('SELECT uid FROM onto_objects WHERE org_id = ? AND object_type_id = ? AND identity_key = ? AND live = 1 ORDER BY created_at ASC, uid ASC').all(org, objectTypeId, key) as {
      uid: string;
    }[]).map((r) => r.uid);
  }

  /** Identity keys held by more than one live object of the schema's types. */
  identityCollisions(org: string, schemaId: string): { object_type: string; identity_key: string; uids: string[] }[] {
    const rows = this.q(
      `SELECT object_type, identity_key, group_concat(uid, char(31)) AS uids FROM
         (SELECT object_type, object_type_id, identity_key, uid FROM onto_objects WHERE org_id = ? AND schema_id = ? AND live = 1 ORDER BY uid)
       GROUP BY object_type_id, identity_key HAVING count(*) > 1 ORDER BY object_type, identity_key`,
    ).all(org, schemaId) as { object_type: string; identity_key: string; uids: string }[];
    return rows.map((r) => ({ object_type: r.object_type, identity_key: r.identity_key, uids: r.uids.split('\u001f').sort() }));
  }

  /** A page of live objects; `sort` is a column name with an optional leading '-'. */
  /** `visible`: only these uids (a scoped caller's grants); undefined = all. */
  objects(org: string, schemaId: string, objectType: string | undefined, sort: string, limit: number, offset: number, visible?: string[]): ObjectIndexRow[] {
    const desc = sort.startsWith('-');
    const col = OBJECT_SORTS[desc ? sort.slice(1) : sort];
    const where = ['org_id = ?', 'schema_id = ?', 'live = 1'];
    const params: unknown[] = [org, schemaId];
    if (objectType) {
      where.push('object_type = ?');
      params.push(objectType);
    }
    if (visible) {
      where.push('uid IN (SELECT value FROM json_each(?))');
      params.push(JSON.stringify(visible));
    }
    const sql = `SELECT uid, schema_id, object_type_id, object_type, canonical_name, created_at, updated_at FROM onto_objects WHERE ${where.join(' AND ')}
      ORDER BY ${col} ${desc ? 'DESC' : 'ASC'}, uid ASC LIMIT ? OFFSET ?`;
    return this.q(sql).all(...params, limit, offset) as ObjectIndexRow[];
  }

  object(org: string, uid: string): (ObjectIndexRow & { live: number }) | null {
    return (this.q('SELECT uid, schema_id, object_type_id, object_type, canonical_name, created_at, updated_at, live FROM onto_objects WHERE org_id = ? AND uid = ?').get(org, uid) as
      | (ObjectIndexRow & { live: number })
      | undefined) ?? null;
  }

  /** Live object uids of the given schema (and types), for search filtering. */
  objectUids(org: string, schemaId: string | undefined, objectTypes: string[] | undefined): string[] {
    const where = ['org_id = ?', 'live = 1'];
    const params: unknown[] = [org];
    if (schemaId) {
      where.push('schema_id = ?');
      params.push(schemaId);
    }
    if (objectTypes?.length) {
      where.push(`object_type IN (${objectTypes.map(() => '?').join(',')})`);
      params.push(...objectTypes);
    }
    return (this.db.prepare(`SELECT uid FROM onto_objects WHERE ${where.join(' AND ')}`).all(...params) as { uid: string }[]).map((r) => r.uid);
  }
}

export const OBJECT_SORT_KEYS = Object.keys(OBJECT_SORTS);

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}
