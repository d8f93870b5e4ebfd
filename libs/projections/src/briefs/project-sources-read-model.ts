import type { Database, Statement } from 'better-sqlite3';
import { sourcesStamp } from './project-sources-changes';
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
  admitting: { uid: string; version: number }[];
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

  members(org: string, projectUid: string): ProjectMembers {
    const nodeJoin = (kind: string, cols: string) =>
      this.stmt(`SELECT m.uid AS uid, n.version AS version${cols} FROM ps_members m JOIN ps_nodes n ON n.org = m.org AND n.uid = m.uid WHERE m.org = ? AND m.project_uid = ? AND m.kind = '${kind}'`);
    const edgeJoin = (kind: string) =>
      this.stmt(
        `SELECT m.uid AS uid, e.version AS version, e.edge_type AS edge_type, e.from_uid AS from_uid, e.to_uid AS to_uid, e.created_at AS created_at, e.attr AS attr
         FROM ps_members m JOIN ps_edges e ON e.org = m.org AND e.uid = m.uid WHERE m.org = ? AND m.project_uid = ? AND m.kind = '${kind}'`,
      );
    const ids = (kind: string) =>
      this.stmt(`SELECT m.uid AS uid, e.version AS version FROM ps_members m JOIN ps_edges e ON e.org = m.org AND e.uid = m.uid WHERE m.org = ? AND m.project_uid = ? AND m.kind = '${kind}'`);
    return {
      documents: nodeJoin('d', '').all(org, projectUid) as { uid: string; version: number }[],
      chunks: nodeJoin('c', ', m.a AS document_uid').all(org, projectUid) as MemberChunkRow[],
      nodes: nodeJoin('n', ', n.node_type AS node_type, n.confidence AS confidence, n.created_at AS created_at, n.status AS status, n.importance AS importance').all(org, projectUid) as MemberNodeRow[],
      edges: edgeJoin('e').all(org, projectUid) as MemberEdgeRow[],
      admitting: [...(ids('p').all(org, projectUid) as { uid: string; version: number }[]), ...(ids('o').all(org, projectUid) as { uid: string; version: number }[])],
      extractions: edgeJoin('x').all(org, projectUid) as MemberEdgeRow[],
    };
  }
}
