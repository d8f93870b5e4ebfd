import { Controller, Get, Inject, Query } from '@nestjs/common';
import { EVENT_STORE, EventStore } from '@strata/event-store/event-store.port';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@strata/auth/auth-context';
import { UserJwt } from '@strata/auth/route-tags';
import { Auth } from '@strata/auth/request-context.decorator';
import { GOVERNANCE_AUDIT_KINDS } from '@strata/domain/audit/governance-audit';
import { Errors } from '@strata/domain/errors';
import { POLICY_EFFECTS } from '@strata/domain/governance';
import { Body, coerceQuery, parseIsoDateTime, readBoolean } from '@strata/domain/validation';
import { decodeCursor, encodeCursor } from '@strata/platform/policy/governance-cursor';
import { AuditFilter, AuditReadModel } from '@strata/projections/governance/audit-read-model';
import { Answers } from '../../platform/http/responses/response-fields';
import { GovernanceAuditPage } from './audit.response';

@ApiTags('governance: audit')
@Controller('v1/governance/audit')
export class AuditController {
  constructor(
    private readonly audit: AuditReadModel,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {}

  /**
   * Records projected inline on the embedded default were applied before the log handed out
   * their event ids; the id is the log's, read back by position (one primary-key read each).
   */
  private async withEventIds<R extends { id: string; position: number }>(items: R[]): Promise<R[]> {
    for (const r of items) {
      if (r.id) continue;
      const [e] = await this.events.readAll({ after: r.position - 1, limit: 1 });
      if (e && e.position === r.position) r.id = e.id;
    }
    return items;
  }

  @Get()
  @UserJwt()
  @ApiOperation({ summary: 'Governance audit records (a projection of the log), newest first; owners and admins see all, others their own' })
  @Answers(200, 'a page of audit records', GovernanceAuditPage)
  async list(@Auth() auth: AuthContext, @Query() raw: Body) {
    const q = coerceQuery(raw, ['limit'], ['enforced']);
    const asked = q.limit === undefined ? 50 : q.limit;
    if (typeof asked !== 'number' || !Number.isInteger(asked) || asked < 1) throw Errors.invalidField('limit', 'limit must be a positive integer');
    // above the maximum is clamped, and the echo says so (REFERENCE §1.9)
    const limit = Math.min(asked, 500);
    const text = (f: string): string | undefined => {
      const v = q[f];
      if (v === undefined || v === null || v === '') return undefined;
      if (typeof v !== 'string') throw Errors.invalidField(f, `${f} must be a string`);
      return v;
    };
    const kinds = text('kind')?.split(',').map((k) => k.trim()).filter(Boolean);
    for (const k of kinds ?? []) if (!(GOVERNANCE_AUDIT_KINDS as readonly string[]).includes(k)) throw Errors.invalidField('kind', `unknown kind '${k}'`, { allowed: [...GOVERNANCE_AUDIT_KINDS] });
    const decision = text('decision');
    if (decision !== undefined && !(POLICY_EFFECTS as readonly string[]).includes(decision)) throw Errors.invalidField('decision', `decision must be one of: ${POLICY_EFFECTS.join(', ')}`);
    const order = text('order') ?? 'desc';
    if (order !== 'asc' && order !== 'desc') throw Errors.invalidField('order', 'order must be asc or desc');
    const time = (f: 'since' | 'until') => {
      const v = text(f);
      if (v === undefined) return undefined;
      const ms = parseIsoDateTime(v);
      if (ms === null) throw Errors.invalidField(f, `${f} must be an ISO 8601 date-time`);
      return new Date(ms).toISOString();
    };
    const own = auth.role === 'owner' || auth.role === 'admin' ? undefined : auth.principal.id;
    const principal = text('principal');
    const filter: AuditFilter = {
      kinds,
      principal: principal ?? own,
      policy_uid: text('policy_uid'),
      target_uid: text('target_uid'),
      decision,
      enforced: readBoolean(q, 'enforced'),
      since: time('since'),
      until: time('until'),
      order,
    };
    const binding = { org: auth.org_id, own: own ?? null, ...filter };
    const cursor = text('cursor');
    const after = cursor === undefined ? null : decodeCursor<number>(cursor, binding, (k): k is number => typeof k === 'number' && Number.isInteger(k));
    // a member or viewer asking for someone else's records sees none
    if (own !== undefined && principal !== undefined && principal !== own) return { items: [], has_more: false, limit, next_cursor: null };
    const page = this.audit.page(auth.org_id, filter, after, limit);
    const last = page.items.at(-1);
    return { items: await this.withEventIds(page.items), has_more: page.has_more, limit, next_cursor: page.has_more && last ? encodeCursor(binding, last.position) : null };
  }
}
