import { Inject, Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { identitiesOf, traverseSources } from '@strata/domain/briefs/source-traversal';
import { sourceFingerprint } from '@strata/domain/briefs';
import { readJobListQuery } from '@strata/domain/jobs';
import {
  BRIEF_STALE_AFTER_S,
  DOCUMENT_STUCK_AFTER_S,
  ExceptionKind,
  ExceptionState,
  RESOLVED_RETENTION_S,
  SEVERITY_OF,
  Severity,
  exceptionId,
  nextExceptionState,
  retained,
} from '@strata/domain/knowledge-health';
import { CLOCK, Clock } from '@strata/domain/time';
import { JobRegistry } from '@strata/jobs/job-registry';
import { ReadScope, ReadScopeService } from '@strata/platform/scope/read-scope';
import { KhExceptionRow } from '@strata/projections/knowledge-health/kh-tables';
import { KnowledgeHealthReadModel } from '@strata/projections/knowledge-health/knowledge-health-read-model';
import { scopedState } from './scoped-state';

/** An exception as a caller sees it at `now`, times still in Unix seconds. */
export interface ExceptionView {
  id: string;
  kind: ExceptionKind;
  severity: Severity;
  /** the projection's row, or null for an exception built at read time (a stale brief) */
  row: KhExceptionRow | null;
  state: ExceptionState;
  /**
   * The uids that place it: a node subject, an edge's two ends; null when it belongs to its own
   * Project (a brief, a schedule), already in `project_uids`.
   */
  ends: string[] | null;
  /** filled by `place` (only what a page shows, or a filter reads, pays for it) */
  subject: { uid: string; type: 'node' | 'edge' | 'schedule'; node_type: string | null; edge_type: string | null; label: string | null } | null;
  project_uids: string[] | null;
  space_uids: string[] | null;
}

export type PlacedException = ExceptionView & { subject: NonNullable<ExceptionView['subject']>; project_uids: string[]; space_uids: string[] };

export interface VisibleExceptions {
  scope: ReadScope;
  now: number;
  items: ExceptionView[];
}

const iso = (t: number | null): string | null => (t === null ? null : new Date(Math.round(t * 1000)).toISOString());

/** The wire form of §14.2. */
export function presentException(v: PlacedException) {
  const s = v.state;
  let detail = s.detail;
  if (v.kind === 'approval_overdue') detail = { requested_at: iso(detail.requested_at as number), deadline_at: iso(detail.deadline_at as number) };
  return {
    id: v.id,
    kind: v.kind,
    severity: v.severity,
    status: s.status,
    subject: v.subject,
    detail,
    project_uids: v.project_uids,
    space_uids: v.space_uids,
    task_uids: s.task_uids,
    first_detected_at: iso(s.first_detected_at),
    last_changed_at: iso(s.last_changed_at),
    acknowledged_at: iso(s.acknowledged_at),
    acknowledged_by: s.acknowledged_by,
    resolved_at: iso(s.resolved_at),
    resolution: s.resolution,
    reopen_count: s.reopen_count,
  };
}

export { iso as isoOfSeconds };

/**
 * Every exception the caller may see, as of the read's `now` (REFERENCE §14.2): the projection's
 * rows with their time-based conditions evaluated now, stale briefs, and failing schedules.
 * An exception is visible when its subject is (both endpoints of an edge; a schedule's or
 * brief's Project); resolved ones older than 90 days are gone.
 */
@Injectable()
export class ExceptionViewService {
  constructor(
    private readonly model: KnowledgeHealthReadModel,
    private readonly scopes: ReadScopeService,
    private readonly jobs: JobRegistry,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async visible(auth: AuthContext): Promise<VisibleExceptions> {
    const scope = await this.scopes.of(auth);
    const now = this.clock.now();
    return { scope, now, items: await this.visibleIn(auth.org_id, scope, now) };
  }

  /** Every exception a scope lets its caller see at `now`, from every row. */
  visibleIn(org: string, scope: ReadScope, now: number): Promise<ExceptionView[]> {
    return this.viewOf(org, scope, now, this.model.rows(org), true);
  }

  /**
   * Only the exceptions whose status depends on the read (armed conditions, briefs, schedules),
   * as `visible` shows them: the rest are counted and paged from their status lanes.
   */
  async timed(org: string, scope: ReadScope, now: number): Promise<ExceptionView[]> {
    return this.viewOf(org, scope, now, this.model.timedRows(org), true);
  }

  /** Rows of a status lane as the caller sees them (visibility and retention as in `visible`). */
  async lane(org: string, scope: ReadScope, now: number, rows: KhExceptionRow[]): Promise<ExceptionView[]> {
    return this.viewOf(org, scope, now, rows, false);
  }

  /**
   * `rows` as the caller sees them at `now`: visible subjects only (both ends of an edge; a
   * brief's or schedule's live Project), time-based conditions evaluated now, resolved ones past
   * retention gone; with `briefs`, the stale briefs judged at read time too.
   */
  private async viewOf(org: string, scope: ReadScope, now: number, rows: KhExceptionRow[], briefs: boolean): Promise<ExceptionView[]> {
    const m = this.model;
    const hours = m.deadlineHours(org);
    const out: ExceptionView[] = [];
    const jobActivity = rows.some((r) => r.kind === 'document_stuck' && r.arm) ? await this.jobActivity(org) : null;
    for (const row of rows) {
      // a brief's and a schedule's exceptions belong to their Project (the Project itself, or from_uid)
      const project = row.kind === 'brief_stale' ? row.subject_uid : row.subject_type === 'schedule' ? row.from_uid : null;
      const ends = project !== null ? null : row.subject_type === 'edge' ? [row.from_uid!, row.to_uid!] : [row.subject_uid];
      const visible = ends ? ends.every((u) => scope.allows(u)) : this.projectVisible(org, scope, project!);
      if (!visible) continue;
      const due =
        row.kind === 'document_stuck'
          ? (_arm: unknown, threshold: number) => {
              // a job for it pending or processing, or one within the last hour, holds the clock
              const a = jobActivity!.get(row.subject_uid);
              if (!a) return threshold;
              return a.active ? null : Math.max(threshold, a.last + DOCUMENT_STUCK_AFTER_S);
            }
          : undefined;
      const mat = m.materialize(row, now, hours, due);
      if (!mat || !retained(mat.state, now, RESOLVED_RETENTION_S)) continue;
      // a brief's episodes are scoped once briefsStale has carried them on to now
      const state = row.kind === 'brief_stale' && briefs ? mat.state : scopedState(row.kind, mat.state, scope);
      out.push({ id: row.id, kind: row.kind, severity: SEVERITY_OF[row.kind], row, state, ends, subject: null, project_uids: project !== null ? [project] : null, space_uids: null });
    }
    if (briefs) await this.briefsStale(org, now, scope, out);
    return out;
  }

  /** Documents' job activity: whether a job for each is pending or processing, and when the last one moved. */
  private async jobActivity(org: string): Promise<Map<string, { active: boolean; last: number }>> {
    const out = new Map<string, { active: boolean; last: number }>();
    for (const j of (await this.jobs.list(org, readJobListQuery({ limit: 1000 }))).items) {
      if (!j.document_uid) continue;
      const a = out.get(j.document_uid) ?? { active: false, last: 0 };
      if (j.status === 'pending' || j.status === 'processing') a.active = true;
      a.last = Math.max(a.last, j.completed_at ?? j.updated_at);
      out.set(j.document_uid, a);
    }
    return out;
  }

  private projectVisible(org: string, scope: ReadScope, uid: string): boolean {
    if (!scope.allows(uid)) return false;
    const n = this.model.nodeRow(org, uid);
    return !!n && n.live === 1 && n.node_type === 'Project';
  }

  /**
   * The admitted set of one Project (Docs, Chunks and Nodes of §12.1), for a `project` filter:
   * the shared traversal, without the edges among the nodes, which membership never reads.
   */
  async projectMembers(org: string, project: string): Promise<Set<string>> {
    const reader = { ...this.model.sourceReader(org), edgesAmong: async () => [] };
    const t = await traverseSources(reader, project);
    return new Set([...t.documents.keys(), ...t.chunks.keys(), ...t.nodes.keys()]);
  }

  /** Whether `v` is about something Project `project` admits (`members`: its admitted set). */
  static inProject(v: ExceptionView, project: string, members: ReadonlySet<string>): boolean {
    return v.ends ? v.ends.some((u) => members.has(u)) : v.project_uids!.includes(project);
  }

  /** spaces(subject) for each of `items` (the union over an edge's ends; a brief's or schedule's Project's). */
  spacesOf(org: string, items: readonly ExceptionView[]): Map<string, string[]> {
    const placeBy = (v: ExceptionView) => v.ends ?? v.project_uids ?? [];
    const spaces = this.model.spacesOf(org, items.flatMap(placeBy));
    return new Map(items.map((v) => [v.id, [...new Set(placeBy(v).flatMap((u) => spaces.get(u) ?? []))].sort()]));
  }

  /**
   * Subject, `project_uids` (the visible Projects whose admitted set holds the subject, either
   * end of an edge) and `space_uids` of the exceptions a page shows, looked up from each
   * subject backwards rather than by walking every Project.
   */
  place(org: string, scope: ReadScope, items: readonly ExceptionView[]): PlacedException[] {
    const spaces = this.spacesOf(org, items);
    return items.map((v) => {
      const subject = v.subject ?? this.subjectOf(org, v);
      const project_uids = v.ends ? [...new Set(v.ends.flatMap((u) => this.model.projectsOf(org, u)))].filter((p) => scope.allows(p)).sort() : v.project_uids!;
      return { ...v, subject, project_uids, space_uids: spaces.get(v.id) ?? [] };
    });
  }

  private subjectOf(org: string, v: ExceptionView): NonNullable<ExceptionView['subject']> {
    const row = v.row!;
    if (row.subject_type === 'schedule') {
      const sc = this.model.schedule(org, row.subject_uid);
      return { uid: row.subject_uid, type: 'schedule', node_type: null, edge_type: null, label: sc ? `${sc.channel} briefing` : null };
    }
    if (row.subject_type === 'edge') {
      const e = this.model.edge(org, row.subject_uid);
      return { uid: row.subject_uid, type: 'edge', node_type: null, edge_type: e?.edge_type ?? null, label: null };
    }
    const n = this.model.nodeRow(org, row.subject_uid);
    return { uid: row.subject_uid, type: 'node', node_type: n?.node_type ?? null, edge_type: null, label: n?.label ?? null };
  }

  /**
   * `brief_stale`: a Project whose current brief version is over 24 h old and whose fingerprint
   * (§12.3) no longer matches its admitted sources now. Due from the version's 24th hour; the
   * episodes that ended with a later version are the projection's rows (their history).
   */
  private async briefsStale(org: string, now: number, scope: ReadScope, out: ExceptionView[]): Promise<void> {
    const past = new Map<string, ExceptionView>();
    for (const v of out) if (v.kind === 'brief_stale') past.set(v.row!.subject_uid, v);
    for (const b of this.model.briefs(org)) {
      if (!this.projectVisible(org, scope, b.project_uid)) continue;
      const due = b.created_at + BRIEF_STALE_AFTER_S;
      if (due > now) continue;
      const fingerprint = sourceFingerprint(identitiesOf(await traverseSources(this.model.sourceReader(org), b.project_uid)));
      if (fingerprint === b.source_fingerprint) continue;
      const before = past.get(b.project_uid);
      const state = nextExceptionState(before?.state ?? null, { holds: true, detail: { current_version: b.version }, ack: this.model.acknowledgement(org, [b.project_uid]) }, due)!;
      if (before) {
        before.state = state;
        continue;
      }
      out.push({
        id: exceptionId('brief_stale', b.project_uid),
        kind: 'brief_stale',
        severity: SEVERITY_OF.brief_stale,
        row: null,
        state,
        ends: null,
        subject: { uid: b.project_uid, type: 'node', node_type: 'Project', edge_type: null, label: this.model.nodeRow(org, b.project_uid)?.label ?? null },
        project_uids: [b.project_uid],
        space_uids: null,
      });
    }
    for (const v of out) if (v.kind === 'brief_stale') v.state = scopedState(v.kind, v.state, scope);
  }
}
