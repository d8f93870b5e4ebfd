import type { Database, Statement } from 'better-sqlite3';
import { sourcesChangedSince, sourcesStamp } from './project-sources-changes';
import { prepared } from '../sqlite/prepared';

export interface MemberNodeRow {
  uid: string;
  version: number;
  node_type: string;
  confidence: number;
  created_at: number;
  /** the `status` prop as JSON, null when absent */
  status: string | null;
  importance: number | null;
}

export interface MemberChunkRow {
  uid: string;
  version: number;
  document_uid: string;
}

export interface MemberEdgeRow {
  uid: string;
  version: number;
  edge_type: string;
  from_uid: string;
  to_uid: string;
  created_at: number;
  /** JSON: a Contradicts edge's `resolution_status`, an ExtractedFrom edge's `location` */
  attr: string | null;
}

/** A Project's admitted sources as the projection keeps them: identities and ranking facts, no content. */
export interface ProjectMembers {
  documents: { uid: string; version: number }[];
  chunks: MemberChunkRow[];
  nodes: MemberNodeRow[];
  edges: MemberEdgeRow[];
  /** the admitting PartOfProject edges */
  part_of: { uid: string; version: number }[];
  /** the admitting ChunkOf edges */
  chunk_of: { uid: string; version: number }[];
  extractions: MemberEdgeRow[];
}

/** Reads of the project-sources projection (the same tables on the embedded store and in a replica's mirror). */
export class ProjectSourcesReadModel {
  private readonly stmts = new Map<string, Statement>();

  constructor(private readonly db: Database) {}

  private stmt(sql: string): Statement {
    return prepared(this.stmts, this.db, sql);
  }

  /** Moves whenever the Project's members, their versions or their ranking facts change (in this process). */
  stamp(org: string, projectUid: string): string {
    return sourcesStamp(this.db, org, projectUid);
  }

  /**
   * The members named by the changes since `stamp` (empty: none), or null when they are not all
   * remembered: the reader then reads the Project afresh.
   */
  changedSince(org: string, projectUid: string, stamp: string): Set<string> | null {
    return sourcesChangedSince(this.db, org, projectUid, stamp);
  }

  /** Every member of the Project, in uid order within each kind. */
  members(org: string, projectUid: string): ProjectMembers {
    return this.read(org, projectUid, '', []);
  }

  /** The memberships of these uids only (of every kind), as `members` lists them. */
  membersOf(org: string, projectUid: string, uids: readonly string[]): ProjectMembers {
    return this.read(org, projectUid, ' AND m.uid IN (SELECT value FROM json_each(?))', [JSON.stringify(uids)]);
  }

  private read(org: string, projectUid: string, only: string, more: unknown[]): ProjectMembers {
    const nodeJoin = (kind: string, cols: string) =>
      this.stmt(`SELECT m.uid AS uid, n.version AS version${cols} FROM ps_members m JOIN ps_nodes n ON n.org = m.org AND n.uid = m.uid WHERE m.org = ? AND m.project_uid = ? AND m.kind = '${kind}'${only}`);
    const edgeJoin = (kind: string) =>
      this.stmt(
        `SELECT m.uid AS uid, e.version AS version, e.edge_type AS edge_type, e.from_uid AS from_uid, e.to_uid AS to_uid, e.created_at AS created_at, e.attr AS attr
         FROM ps_members m JOIN ps_edges e ON e.org = m.org AND e.uid = m.uid WHERE m.org = ? AND m.project_uid = ? AND m.kind = '${kind}'${only}`,
      );
    const ids = (kind: string) =>
      this.stmt(`SELECT m.uid AS uid, e.version AS version FROM ps_members m JOIN ps_edges e ON e.org = m.org AND e.uid = m.uid WHERE m.org = ? AND m.project_uid = ? AND m.kind = '${kind}'${only}`);
    const args = [org, projectUid, ...more];
    return {
      documents: nodeJoin('d', '').all(...args) as { uid: string; version: number }[],
      chunks: nodeJoin('c', ', m.a AS document_uid').all(...args) as MemberChunkRow[],
      nodes: nodeJoin('n', ', n.node_type AS node_type, n.confidence AS confidence, n.created_at AS created_at, n.status AS status, n.importance AS importance').all(...args) as MemberNodeRow[],
      edges: edgeJoin('e').all(...args) as MemberEdgeRow[],
      part_of: ids('p').all(...args) as { uid: string; version: number }[],
      chunk_of: ids('o').all(...args) as { uid: string; version: number }[],
      extractions: edgeJoin('x').all(...args) as MemberEdgeRow[],
    };
  }
}
