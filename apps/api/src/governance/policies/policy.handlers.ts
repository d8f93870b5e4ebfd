import { Inject, Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { ACCOUNTS_UNIT_OF_WORK } from '@strata/accounts/accounts-unit-of-work';
import { Errors } from '@strata/domain/errors';
import {
  checkPolicyMatch,
  decidePolicyPatch,
  GovernanceStreams,
  invalidPolicy,
  matchUids,
  POLICY_LIMITS,
  PolicyEffect,
  PolicyMatch,
  PolicyRecord,
  PolicyStatus,
  templateMatchesRoute,
} from '@strata/domain/governance';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { KnownRoutes } from '@strata/platform/policy/http-request';
import { UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { GovernanceReadModel } from '@strata/projections/governance/governance-read-model';
import { governanceContext, iso } from '../governance-context';
import { CreatePolicyDto, PatchPolicyDto } from './policy.dto';

/** Structured policies (REFERENCE §13.6): records and their lifecycle. Evaluation is the policy gate's. */
@Injectable()
export class PolicyHandlers {
  constructor(
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    @Inject(ACCOUNTS_UNIT_OF_WORK) private readonly uow: UnitOfWork,
    private readonly governance: GovernanceReadModel,
    private readonly routes: KnownRoutes,
  ) {}

  list(auth: AuthContext, filter: { status?: PolicyStatus; effect?: PolicyEffect }, limit: number, offset: number) {
    const all = this.governance.policies(auth.org_id, { statuses: filter.status ? [filter.status] : undefined, effect: filter.effect });
    const page = all.slice(offset, offset + limit);
    return { items: page.map((p) => this.present(auth.org_id, p)), has_more: all.length > offset + page.length, limit, offset };
  }

  /** `match` checked against the routes, the catalogue and the graph: 422 invalid_policy with every error. */
  private async checkMatch(org: string, raw: unknown): Promise<PolicyMatch> {
    const uids = matchUids(raw);
    const nodes = uids.length ? await this.graph.getNodes(org, [...new Set(uids)]) : new Map();
    const customTypes = new Map<string, boolean>();
    for (const name of customTypeNames(raw)) customTypes.set(name, (await this.graph.countNodes(org, { node_types: [name] })) > 0);
    const routes = this.routes.all();
    const { match, errors } = checkPolicyMatch(raw, {
      routeExists: (method, template) => routes.some((r) => (method === '*' || r.method === method) && templateMatchesRoute(template, r.url)),
      nodeTypeOf: (uid) => {
        const n = nodes.get(uid);
        return n && n.tombstone_at === null ? n.node_type : null;
      },
      customNodeTypeExists: (name) => customTypes.get(name) ?? false,
    });
    if (!match) throw invalidPolicy(errors);
    return match;
  }

  async create(auth: AuthContext, dto: CreatePolicyDto, requestId: string) {
    const org = auth.org_id;
    const match = await this.checkMatch(org, dto.match);
    return this.uow.run(governanceContext(auth, requestId), async (tx) => {
      const counts = this.governance.policyCounts(org);
      if (counts.draft + counts.shadow + counts.published >= POLICY_LIMITS.live_per_org)
        throw Errors.invalidField('status', `an organization holds at most ${POLICY_LIMITS.live_per_org} policies that are not rejected`);
      const status = dto.status ?? 'draft';
      const policy: PolicyRecord = {
        uid: tx.uuid(),
        name: dto.name,
        description: dto.description ?? null,
        status,
        effect: dto.effect,
        priority: dto.priority ?? 0,
        match,
        version: 1,
        status_reason: null,
        created_by: auth.principal.id,
        created_at: tx.now,
        updated_at: tx.now,
        status_changed_by: auth.principal.id,
        status_changed_at: tx.now,
        mirrored_version: null,
      };
      tx.emit(GovernanceStreams.policy(org, policy.uid), 'PolicyCreated', { org_id: org, policy }, 'no_stream');
      return this.present(org, policy);
    });
  }

  async patch(auth: AuthContext, uid: string, dto: PatchPolicyDto, requestId: string) {
    const org = auth.org_id;
    const before = this.governance.policy(org, uid);
    if (!before) throw Errors.notFound(`policy ${uid} not found`, { field: 'policy_uid', uid });
    // the lifecycle first (a published policy's match is immutable whatever it says), then the new match itself
    decidePolicyPatch(before, { ...dto, match: dto.match as PolicyMatch | undefined }, auth.principal.id, 0);
    const match = dto.match !== undefined ? await this.checkMatch(org, dto.match) : undefined;
    return this.uow.run(governanceContext(auth, requestId), async (tx) => {
      const current = this.governance.policy(org, uid)!;
      const change = decidePolicyPatch(current, { ...dto, match }, auth.principal.id, tx.now);
      if (!change) return this.present(org, current);
      const edits = change.changed_fields.filter((f) => f !== 'status');
      if (edits.length) tx.emit(GovernanceStreams.policy(org, uid), 'PolicyUpdated', { org_id: org, policy: change.policy, changed_fields: edits });
      if (change.status) tx.emit(GovernanceStreams.policy(org, uid), 'PolicyStatusChanged', { org_id: org, policy_uid: uid, ...change.status, policy: change.policy });
      return this.present(org, change.policy);
    });
  }

  present(org: string, p: PolicyRecord) {
    const mirrored = this.governance.lastSync(org)?.mirrored[p.uid] ?? null;
    return {
      uid: p.uid,
      name: p.name,
      description: p.description,
      status: p.status,
      effect: p.effect,
      priority: p.priority,
      match: p.match,
      version: p.version,
      status_reason: p.status_reason,
      created_by: p.created_by,
      created_at: iso(p.created_at),
      updated_at: iso(p.updated_at),
      status_changed_by: p.status_changed_by,
      status_changed_at: iso(p.status_changed_at),
      mirrored_version: mirrored,
    };
  }
}

/** Node type names in `match` that are not built-ins (their existence is a graph question). */
function customTypeNames(raw: unknown): string[] {
  if (!raw || typeof raw !== 'object') return [];
  const list = (raw as Record<string, unknown>).node_types;
  if (!Array.isArray(list)) return [];
  return list.filter((v): v is string => typeof v === 'string' && !!v);
}
