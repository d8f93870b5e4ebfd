import { Inject, Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { EXCEPTION_KINDS, ExceptionKind, ExceptionQuery, RESOLVED_RETENTION_S, SEVERITY_OF, kindRank, readExceptionQuery, severityRank } from '@strata/domain/knowledge-health';
import { CLOCK, Clock } from '@strata/domain/time';
import { ReadScope, ReadScopeService } from '@strata/platform/scope/read-scope';
import { decodeCursor, encodeCursor } from '@strata/platform/policy/governance-cursor';
import { KnowledgeHealthReadModel } from '@strata/projections/knowledge-health/knowledge-health-read-model';
import { ExceptionView, ExceptionViewService, presentException } from '../exception-view.service';
import { assertFilterNode } from '../subject-filter';

export type Key = [number, number, string];

const keyOf = (v: ExceptionView): Key => [severityRank(v.severity), v.state.first_detected_at, v.id];
const compareKeys = (a: Key, b: Key): number => a[0] - b[0] || a[1] - b[1] || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0);

/**
 * `GET /v1/knowledge-health/exceptions` (REFERENCE §14.3): filters, order (severity, first
 * detection, id), a keyset cursor bound to the filters, and `groups` under every filter but
 * `kind` and `status`.
 */
@Injectable()
export class ExceptionListHandler {
  constructor(
    private readonly view: ExceptionViewService,
    private readonly model: KnowledgeHealthReadModel,
    private readonly scopes: ReadScopeService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * A caller who sees everything, with no Project or Space filter: `groups` from the status
   * lanes' counts, and the page read lane by lane in the list's order from where the cursor
   * stopped, merged with the exceptions whose status depends on the read (judged one by one).
   */
  async paged(org: string, scope: ReadScope, now: number, q: ExceptionQuery, binding: Record<string, unknown>, after: Key | null) {
    const { limit } = q;
    const timed = (await this.view.timed(org, scope, now)).filter((x) => q.severity.includes(x.severity));
    const counts = new Map<ExceptionKind, { open: number; acknowledged: number; resolved: number }>();
    const at = (k: ExceptionKind) => {
      let g = counts.get(k);
      if (!g) counts.set(k, (g = { open: 0, acknowledged: 0, resolved: 0 }));
      return g;
    };
    for (const r of this.model.laneCounts(org, now - RESOLVED_RETENTION_S)) if (q.severity.includes(SEVERITY_OF[r.kind])) at(r.kind)[r.lane] += r.n;
    for (const x of timed) at(x.kind)[x.state.status]++;
    const groups = EXCEPTION_KINDS.filter((k) => counts.has(k))
      .map((kind) => ({ kind, severity: SEVERITY_OF[kind], ...counts.get(kind)! }))
      .filter((g) => g.open + g.acknowledged + g.resolved > 0);

    const wanted = (x: ExceptionView) => q.kind.includes(x.kind) && q.status.includes(x.state.status) && (after === null || compareKeys(keyOf(x), after) > 0);
    const candidates = timed.filter(wanted);
    for (const lane of q.status) {
      // enough of this lane for a page: rows in order from the cursor, skipping other kinds and severities
      let from: Key | null = after;
      let found = 0;
      for (;;) {
        const rows = this.model.laneRows(org, lane, from, limit + 1);
        const keep = rows.filter((r) => q.kind.includes(r.kind) && q.severity.includes(SEVERITY_OF[r.kind]));
        for (const x of await this.view.lane(org, scope, now, keep)) if (wanted(x)) {
          candidates.push(x);
          found++;
        }
        if (rows.length < limit + 1 || found > limit) break;
        const last = rows[rows.length - 1];
        from = [last.sev!, last.first_at!, last.id];
      }
    }
    candidates.sort((a, b) => compareKeys(keyOf(a), keyOf(b)));
    const page = candidates.slice(0, limit);
    const has_more = candidates.length > limit;
    return {
      items: this.view.place(org, scope, page).map(presentException),
      has_more,
      limit,
      next_cursor: has_more ? encodeCursor(binding, keyOf(page[page.length - 1])) : null,
      groups,
    };
  }

  async list(auth: AuthContext, raw: Record<string, unknown>) {
    const q: ExceptionQuery = readExceptionQuery(raw);
    const { cursor, limit, ...filters } = q;
    const binding = { org: auth.org_id, ...filters };
    const after = cursor === undefined ? null : decodeCursor<Key>(cursor, binding);
    const scope = await this.scopes.of(auth);
    const now = this.clock.now();
    if (!scope.restricted && q.project === undefined && q.space === undefined) return this.paged(auth.org_id, scope, now, q, binding, after);
    return this.listed(auth.org_id, scope, now, q, binding, after);
  }

  /**
   * The list from every row the caller can see, filtered and ordered in memory: for a Project
   * or Space filter or a caller some nodes are hidden from, and the measure `paged` is held to.
   */
  async listed(org: string, scope: ReadScope, now: number, q: ExceptionQuery, binding: Record<string, unknown>, after: Key | null) {
    const { limit } = q;
    const v = { scope, now, items: await this.view.visibleIn(org, scope, now) };
    if (q.project !== undefined) assertFilterNode(this.model, v.scope, 'project', q.project);
    if (q.space !== undefined) assertFilterNode(this.model, v.scope, 'space', q.space);

    // only a filter that reads where an exception is pays for placing every one
    let underScope = v.items.filter((x) => q.severity.includes(x.severity));
    if (q.project !== undefined) {
      const members = await this.view.projectMembers(org, q.project);
      underScope = underScope.filter((x) => ExceptionViewService.inProject(x, q.project!, members));
    }
    if (q.space !== undefined) {
      const spaces = this.view.spacesOf(org, underScope);
      underScope = underScope.filter((x) => spaces.get(x.id)!.includes(q.space!));
    }
    const groups = EXCEPTION_KINDS.map((kind) => {
      const g = { kind, severity: SEVERITY_OF[kind], open: 0, acknowledged: 0, resolved: 0 };
      for (const x of underScope) if (x.kind === kind) g[x.state.status]++;
      return g;
    }).filter((g) => g.open + g.acknowledged + g.resolved > 0);
    groups.sort((a, b) => kindRank(a.kind) - kindRank(b.kind));

    const matching = underScope
      .filter((x) => q.kind.includes(x.kind) && q.status.includes(x.state.status) && (after === null || compareKeys(keyOf(x), after) > 0))
      .sort((a, b) => compareKeys(keyOf(a), keyOf(b)));
    const page = matching.slice(0, limit);
    const has_more = matching.length > limit;
    return {
      items: this.view.place(org, v.scope, page).map(presentException),
      has_more,
      limit,
      next_cursor: has_more ? encodeCursor(binding, keyOf(page[page.length - 1])) : null,
      groups,
    };
  }
}
