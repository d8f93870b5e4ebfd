import { Inject, Injectable, Optional } from '@nestjs/common';
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
import { StalePremise } from '@strata/domain/retrieval';
import { CLOCK, Clock } from '@strata/domain/time';
import { JobRegistry } from '@strata/jobs/job-registry';
import { ReadScope, ReadScopeService } from '@strata/platform/scope/read-scope';
import { KnowledgeHealthReadModel } from '@strata/projections/knowledge-health/knowledge-health-read-model';
import { SCHEDULE_FAILURES, ScheduleFailures } from './schedule-failures.port';

/** An exception as a caller sees it at `now`, times still in Unix seconds. */
export interface ExceptionView {
  id: string;
  kind: ExceptionKind;
  severity: Severity;
  subject: { uid: string; type: 'node' | 'edge' | 'schedule'; node_type: string | null; edge_type: string | null; label: string | null };
  /** the uids whose visibility decides the caller's (the subject, or an edge's endpoints, or a schedule's Project) */
  state: ExceptionState;
  project_uids: string[];
  space_uids: string[];
}

export interface VisibleExceptions {
  scope: ReadScope;
  now: number;
  items: ExceptionView[];
  /** the live Projects the caller sees, each with its admitted set (§12.1) */
  projects: Map<string, Set<string>>;
}

const iso = (t: number | null): string | null => (t === null ? null : new Date(Math.round(t * 1000)).toISOString());

/** The wire form of §14.2. */
export function presentException(v: ExceptionView) {
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
    @Optional() @Inject(SCHEDULE_FAILURES) private readonly schedules: ScheduleFailures | null = null,
  ) {}

  async visible(auth: AuthContext): Promise<VisibleExceptions> {
    const org = auth.org_id;
    const now = this.clock.now();
    const scope = await this.scopes.of(auth);
    const m = this.model;
    const hours = m.deadlineHours(org);
    const out: ExceptionView[] = [];
    let jobActivity: Map<string, { active: boolean; last: number }> | null = null;
    const activityOf = async () => {
      if (jobActivity) return jobActivity;
      jobActivity = new Map();
      for (const j of (await this.jobs.list(org, readJobListQuery({ limit: 1000 }))).items) {
        if (!j.document_uid) continue;
        const a = jobActivity.get(j.document_uid) ?? { active: false, last: 0 };
        if (j.status === 'pending' || j.status === 'processing') a.active = true;
        a.last = Math.max(a.last, j.completed_at ?? j.updated_at);
        jobActivity.set(j.document_uid, a);
      }
      return jobActivity;
    };
    const rows = m.rows(org);
    if (rows.some((r) => r.kind === 'document_stuck' && r.arm)) await activityOf();
    for (const row of rows) {
      const visible = row.subject_type === 'edge' ? scope.allowsEdge({ from_uid: row.from_uid!, to_uid: row.to_uid! }) : scope.allows(row.subject_uid);
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
      let state = mat.state;
      if (row.kind === 'derivation_stale' && scope.restricted) {
        const premises = (state.detail.stale_premises as StalePremise[] | undefined) ?? [];
        state = { ...state, detail: { stale_premises: premises.filter((p) => scope.allows(p.uid)) } };
      }
      out.push({ id: row.id, kind: row.kind, severity: SEVERITY_OF[row.kind], subject: this.subjectOf(org, row), state, project_uids: [], space_uids: [] });
    }

    const projects = new Map<string, Set<string>>();
    for (const p of m.liveUidsOfType(org, 'Project').sort()) {
      if (!scope.allows(p)) continue;
      const t = await traverseSources(m.sourceReader(org), p);
      projects.set(p, new Set([...t.documents.keys(), ...t.chunks.keys(), ...t.nodes.keys()]));
    }
    await this.briefsStale(org, now, projects, out);
    await this.failingSchedules(org, now, projects, out);

    const spaces = m.spaces(org);
    for (const v of out) {
      const ends = v.subject.type === 'edge' ? [(v.state.detail.from_uid as string) ?? '', (v.state.detail.to_uid as string) ?? ''] : [v.subject.uid];
      if (v.subject.type === 'edge') {
        const row = m.edge(org, v.subject.uid);
        if (row) ends.splice(0, 2, row.from_uid, row.to_uid);
      }
      if (v.subject.type === 'node' || v.subject.type === 'edge') {
        const ps: string[] = [];
        for (const [p, set] of projects) if (ends.some((u) => set.has(u))) ps.push(p);
        if (!v.project_uids.length) v.project_uids = ps;
        v.space_uids = [...new Set(ends.flatMap((u) => spaces.get(u) ?? []))].sort();
      } else v.space_uids = [...(spaces.get(v.project_uids[0]) ?? [])];
    }
    return { scope, now, items: out, projects };
  }

  private subjectOf(org: string, row: { subject_uid: string; subject_type: string }): ExceptionView['subject'] {
    if (row.subject_type === 'edge') {
      const e = this.model.edge(org, row.subject_uid);
      return { uid: row.subject_uid, type: 'edge', node_type: null, edge_type: e?.edge_type ?? null, label: null };
    }
    const n = this.model.nodeRow(org, row.subject_uid);
    return { uid: row.subject_uid, type: 'node', node_type: n?.node_type ?? null, edge_type: null, label: n?.label ?? null };
  }

  /**
   * `brief_stale`: a Project whose current brief version is over 24 h old and whose fingerprint
   * (§12.3) no longer matches its admitted sources now. Due from the version's 24th hour.
   */
  private async briefsStale(org: string, now: number, projects: Map<string, Set<string>>, out: ExceptionView[]): Promise<void> {
    for (const b of this.model.briefs(org)) {
      if (!projects.has(b.project_uid)) continue;
      const due = b.created_at + BRIEF_STALE_AFTER_S;
      if (due > now) continue;
      const fingerprint = sourceFingerprint(identitiesOf(await traverseSources(this.model.sourceReader(org), b.project_uid)));
      if (fingerprint === b.source_fingerprint) continue;
      const state = nextExceptionState(null, { holds: true, detail: { current_version: b.version }, ack: this.model.acknowledgement(org, [b.project_uid]) }, due)!;
      const n = this.model.nodeRow(org, b.project_uid);
      out.push({
        id: exceptionId('brief_stale', b.project_uid),
        kind: 'brief_stale',
        severity: SEVERITY_OF.brief_stale,
        subject: { uid: b.project_uid, type: 'node', node_type: 'Project', edge_type: null, label: n?.label ?? null },
        state,
        project_uids: [b.project_uid],
        space_uids: [],
      });
    }
  }

  /** `schedule_failing`, from the briefing schedules' provider when one is installed. */
  private async failingSchedules(org: string, now: number, projects: Map<string, Set<string>>, out: ExceptionView[]): Promise<void> {
    if (!this.schedules) return;
    for (const f of await this.schedules.failing(org)) {
      if (!projects.has(f.project_uid)) continue;
      const state: ExceptionState = {
        status: f.recovered_at === null ? 'open' : 'resolved',
        first_detected_at: f.failing_since,
        last_changed_at: f.recovered_at ?? f.failing_since,
        acknowledged_at: null,
        acknowledged_by: null,
        task_uids: [],
        resolved_at: f.recovered_at,
        resolution: f.recovered_at === null ? null : 'condition_cleared',
        reopen_count: f.reopen_count,
        detail: { last_errors: f.last_errors },
      };
      if (!retained(state, now, RESOLVED_RETENTION_S)) continue;
      out.push({
        id: exceptionId('schedule_failing', f.schedule_id),
        kind: 'schedule_failing',
        severity: SEVERITY_OF.schedule_failing,
        subject: { uid: f.schedule_id, type: 'schedule', node_type: null, edge_type: null, label: f.label },
        state,
        project_uids: [f.project_uid],
        space_uids: [],
      });
    }
  }
}
