import { Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { EXCEPTION_KINDS, ExceptionQuery, SEVERITY_OF, kindRank, readExceptionQuery, severityRank } from '@strata/domain/knowledge-health';
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

    // only a filter that reads where an exception is pays for placing every one
    let underScope = v.items.filter((x) => q.severity.includes(x.severity));
    if (q.project !== undefined) {
      const members = await this.view.projectMembers(auth.org_id, q.project);
      underScope = underScope.filter((x) => ExceptionViewService.inProject(x, q.project!, members));
    }
    if (q.space !== undefined) {
      const spaces = this.view.spacesOf(auth.org_id, underScope);
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
      items: this.view.place(auth.org_id, v.scope, page).map(presentException),
      has_more,
      limit,
      next_cursor: has_more ? encodeCursor(binding, keyOf(page[page.length - 1])) : null,
      groups,
    };
  }
}
