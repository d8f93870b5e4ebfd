import { Inject, Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import {
  EXCEPTION_KINDS,
  ExceptionKind,
  RESOLVED_RETENTION_S,
  SEVERITY_OF,
  Severity,
  evidenceCompleteness,
  evidenceCompletenessOf,
  healthState,
  readSummaryDays,
} from '@strata/domain/knowledge-health';
import { CLOCK, Clock } from '@strata/domain/time';
import { ReadScope, ReadScopeService } from '@strata/platform/scope/read-scope';
import { KnowledgeHealthReadModel } from '@strata/projections/knowledge-health/knowledge-health-read-model';
import { ExceptionViewService, isoOfSeconds } from '../exception-view.service';

const DAY_S = 86400;

/** What `counts` counts, by node type (§14.1). */
const COUNTED_TYPES = { claims: 'Claim', evidence: 'Evidence', documents: 'Document', chunks: 'Chunk', projects: 'Project', spaces: 'Space' } as const;

/**
 * `GET /v1/knowledge-health/summary` (REFERENCE §14.1): counts of live objects now, activity in
 * the window by the events' times, evidence completeness, exception totals and the state with
 * its reasons, each over only what the caller can see.
 */
@Injectable()
export class HealthSummaryHandler {
  constructor(
    private readonly view: ExceptionViewService,
    private readonly model: KnowledgeHealthReadModel,
    private readonly scopes: ReadScopeService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * The summary of a caller who sees everything, from what the projection keeps: live counters,
   * day counters of activity and transitions, exceptions counted by status lane. Only the
   * exceptions whose status depends on the read (armed, briefs, schedules) are judged one by one.
   * Equal to counting every object: the projection tests compare the two.
   */
  async counted(org: string, scope: ReadScope, days: number) {
    const now = this.clock.now();
    const since = now - days * DAY_S;
    const m = this.model;
    const c = m.counters(org);
    const of = (k: string) => c.get(k) ?? 0;
    const counts = { nodes: 0, edges: of('edges'), claims: of('node:Claim'), evidence: of('node:Evidence'), documents: of('node:Document'), chunks: of('node:Chunk'), projects: of('node:Project'), spaces: of('node:Space') };
    for (const [k, n] of c) if (k.startsWith('node:')) counts.nodes += n;
    const ec = evidenceCompletenessOf(counts.claims, of('claim:evidenced'), of('claim:sourced'));

    const timed = await this.view.timed(org, scope, now);
    const activity = { nodes_created: 0, edges_created: 0, documents_created: 0, chunks_completed: 0, chunks_failed: 0, exceptions_opened: 0, exceptions_resolved: 0 };
    for (const [what, n] of m.windowCounts(org, since, now)) if (what in activity) activity[what as keyof typeof activity] += n;
    // transitions of exceptions nobody sees any more: resolved past retention, timed ones not shown
    const shown = new Set(timed.map((x) => x.id));
    // (a transition at or after `since` belongs to an exception resolved at or after it)
    const unseen = m.resolvedBetween(org, since, now - RESOLVED_RETENTION_S);
    for (const r of m.timedRows(org)) if (!shown.has(r.id)) unseen.push(r);
    for (const r of unseen) for (const t of m.transitionsOf(org, r.subject_uid, r.id, since, now)) activity[t.what === 'opened' ? 'exceptions_opened' : 'exceptions_resolved']--;
    // time-based ones opened by the passing of their threshold, which no event records (a brief
    // judged at read time has no row: its subject, the Project, is the one its id was made from)
    for (const x of timed) {
      if (x.kind !== 'approval_overdue' && x.kind !== 'document_stuck' && x.kind !== 'brief_stale' && x.kind !== 'schedule_failing') continue;
      if (x.state.status === 'resolved') continue;
      const openedAt = x.state.reopen_count > 0 ? x.state.last_changed_at : x.state.first_detected_at;
      if (openedAt >= since && openedAt < now && !m.transitionsOf(org, x.row?.subject_uid ?? x.subject!.uid, x.id, since, now).some((t) => t.what === 'opened')) activity.exceptions_opened++;
    }

    const byKind = {} as Record<ExceptionKind, { severity: Severity; open: number; acknowledged: number }>;
    for (const k of EXCEPTION_KINDS) byKind[k] = { severity: SEVERITY_OF[k], open: 0, acknowledged: 0 };
    for (const r of m.laneCounts(org, now - RESOLVED_RETENTION_S)) if (r.lane !== 'resolved') byKind[r.kind][r.lane] += r.n;
    for (const x of timed) if (x.state.status !== 'resolved') byKind[x.kind][x.state.status]++;
    return this.present(now, days, since, ec, counts, activity, byKind);
  }

  private present(
    now: number,
    days: number,
    since: number,
    ec: ReturnType<typeof evidenceCompletenessOf>,
    counts: Record<string, number>,
    activity: Record<'nodes_created' | 'edges_created' | 'documents_created' | 'chunks_completed' | 'chunks_failed' | 'exceptions_opened' | 'exceptions_resolved', number>,
    byKind: Record<ExceptionKind, { severity: Severity; open: number; acknowledged: number }>,
  ) {
    let open = 0;
    let acknowledged = 0;
    let high = 0;
    for (const k of EXCEPTION_KINDS) {
      const b = byKind[k];
      open += b.open;
      acknowledged += b.acknowledged;
      if (b.severity === 'high') high += b.open + b.acknowledged;
    }
    const { state, reasons } = healthState({
      evidence_completeness: ec.value,
      claims: ec.claims,
      high_severity_exceptions: high,
      exceptions: open + acknowledged,
      chunks_completed: activity.chunks_completed,
      chunks_failed: activity.chunks_failed,
    });
    return {
      generated_at: isoOfSeconds(now),
      window: { days, since: isoOfSeconds(since), until: isoOfSeconds(now) },
      state,
      reasons,
      evidence_completeness: ec,
      counts,
      activity,
      exceptions: { open, acknowledged, by_kind: byKind },
    };
  }

  async summary(auth: AuthContext, raw: Record<string, unknown>) {
    const days = readSummaryDays(raw);
    const scope = await this.scopes.of(auth);
    return scope.restricted ? this.recounted(auth.org_id, scope, days) : this.counted(auth.org_id, scope, days);
  }

  /**
   * The summary counted from the rows, object by object, as the caller's scope lets it see
   * them: for a caller some nodes are hidden from, and the measure `counted` is held to.
   */
  async recounted(org: string, scope: ReadScope, days: number) {
    const now = this.clock.now();
    const v = { scope, now, items: await this.view.visibleIn(org, scope, now) };
    const since = now - days * DAY_S;

    const counts = this.counts(org, scope);
    const ec = evidenceCompleteness(
        this.model
          .claimSupport(org)
          .filter((c) => scope.allows(c.uid))
          .map((c) => ({ evidenced: c.evidence.some((u) => scope.allows(u)), sourced: c.sources.some((u) => scope.allows(u)) })),
      );

    const activity = { nodes_created: 0, edges_created: 0, documents_created: 0, chunks_completed: 0, chunks_failed: 0, exceptions_opened: 0, exceptions_resolved: 0 };
    for (const a of this.model.activity(org, since, now)) {
      const seen = a.from_uid !== null ? scope.allowsEdge({ from_uid: a.from_uid, to_uid: a.to_uid! }) : scope.allows(a.uid);
      if (seen && a.what in activity) activity[a.what as keyof typeof activity]++;
    }
    // exceptions the caller sees (visibility and retention as in the list) opened or resolved in the window
    const byId = new Map(v.items.map((x) => [x.id, x]));
    const counted = new Set<string>();
    for (const t of this.model.transitions(org, since, now)) {
      if (!byId.has(t.id)) continue;
      if (t.what === 'opened') activity.exceptions_opened++;
      else activity.exceptions_resolved++;
      counted.add(`${t.id} ${t.what}`);
    }
    // time-based ones opened by the passing of their threshold, which no event records (a brief
    // judged at read time has no row: its subject, the Project, is the one its id was made from)
    for (const x of v.items) {
      if (x.kind !== 'approval_overdue' && x.kind !== 'document_stuck' && x.kind !== 'brief_stale' && x.kind !== 'schedule_failing') continue;
      if (x.state.status === 'resolved') continue;
      const openedAt = x.state.reopen_count > 0 ? x.state.last_changed_at : x.state.first_detected_at;
      if (openedAt >= since && openedAt < now && !counted.has(`${x.id} opened`)) activity.exceptions_opened++;
    }

    const byKind = {} as Record<ExceptionKind, { severity: Severity; open: number; acknowledged: number }>;
    for (const k of EXCEPTION_KINDS) byKind[k] = { severity: SEVERITY_OF[k], open: 0, acknowledged: 0 };
    for (const x of v.items) if (x.state.status !== 'resolved') byKind[x.kind][x.state.status]++;
    return this.present(now, days, since, ec, counts, activity, byKind);
  }

  private counts(org: string, scope: ReadScope) {
    const byType = this.model.liveCountsByType(org);
    let nodes = [...byType.values()].reduce((a, b) => a + b, 0);
    const of = (t: string) => byType.get(t) ?? 0;
    const out = { nodes: 0, edges: this.model.liveEdgeCount(org), claims: of('Claim'), evidence: of('Evidence'), documents: of('Document'), chunks: of('Chunk'), projects: of('Project'), spaces: of('Space') };
    if (scope.visible !== null) {
      // limited to a set: count what is in it
      const types = this.model.liveTypes(org, scope.uidList() ?? []);
      nodes = types.size;
      for (const [k, t] of Object.entries(COUNTED_TYPES)) out[k as keyof typeof COUNTED_TYPES] = [...types.values()].filter((x) => x === t).length;
      const uids = [...types.keys()];
      out.edges = this.model.liveEdgesTouching(org, uids).filter((e) => scope.allowsEdge(e)).length;
    } else if (scope.hidden.size) {
      const hidden = this.model.liveTypes(org, [...scope.hidden]);
      nodes -= hidden.size;
      for (const [k, t] of Object.entries(COUNTED_TYPES)) out[k as keyof typeof COUNTED_TYPES] -= [...hidden.values()].filter((x) => x === t).length;
      out.edges -= this.model.liveEdgesTouching(org, [...hidden.keys()]).length;
    }
    out.nodes = nodes;
    return out;
  }
}
