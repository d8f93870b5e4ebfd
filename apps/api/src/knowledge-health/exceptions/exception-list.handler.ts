import { Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { EXCEPTION_KINDS, ExceptionQuery, kindRank, readExceptionQuery, severityRank } from '@strata/domain/knowledge-health';
import { decodeCursor, encodeCursor } from '@strata/platform/policy/governance-cursor';
import { KnowledgeHealthReadModel } from '@strata/projections/knowledge-health/knowledge-health-read-model';
import { ExceptionView, ExceptionViewService, presentException } from '../exception-view.service';
import { assertFilterNode } from '../subject-filter';

type Key = [number, number, string];

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
  ) {}

  async list(auth: AuthContext, raw: Record<string, unknown>) {
    const q: ExceptionQuery = readExceptionQuery(raw);
    const { cursor, limit, ...filters } = q;
    const binding = { org: auth.org_id, ...filters };
    const after = cursor === undefined ? null : decodeCursor<Key>(cursor, binding);
    const v = await this.view.visible(auth);
    if (q.project !== undefined) assertFilterNode(this.model, v.scope, 'project', q.project);
    if (q.space !== undefined) assertFilterNode(this.model, v.scope, 'space', q.space);

    const underScope = v.items.filter(
      (x) => q.severity.includes(x.severity) && (q.project === undefined || x.project_uids.includes(q.project)) && (q.space === undefined || x.space_uids.includes(q.space)),
    );
    const groups = EXCEPTION_KINDS.map((kind) => {
      const g = { kind, severity: '', open: 0, acknowledged: 0, resolved: 0 };
      for (const x of underScope) if (x.kind === kind) g[x.state.status]++;
      return g;
    })
      .filter((g) => g.open + g.acknowledged + g.resolved > 0)
      .map((g) => ({ ...g, severity: underScope.find((x) => x.kind === g.kind)!.severity }));
    groups.sort((a, b) => kindRank(a.kind) - kindRank(b.kind));

    const matching = underScope
      .filter((x) => q.kind.includes(x.kind) && q.status.includes(x.state.status))
      .sort((a, b) => compareKeys(keyOf(a), keyOf(b)))
      .filter((x) => after === null || compareKeys(keyOf(x), after) > 0);
    const page = matching.slice(0, limit);
    const has_more = matching.length > limit;
    return {
      items: page.map(presentException),
      has_more,
      limit,
      next_cursor: has_more ? encodeCursor(binding, keyOf(page[page.length - 1])) : null,
      groups,
    };
  }
}
