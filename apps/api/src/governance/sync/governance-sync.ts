import { Inject, Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { GovernanceStreams, GovernanceSyncCounts, PolicyRecord } from '@strata/domain/governance';
import { decideCreateNode, decideUpdateNode, GraphChanges } from '@strata/domain/graph';
import { NodeRecord } from '@strata/domain/records';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { createEdge, restoreNode, tombstoneEdge, tombstoneNode } from '@strata/platform/unit-of-work/graph-ops';
import { commandContext } from '@strata/platform/unit-of-work/command-context.factory';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { GovernanceReadModel } from '@strata/projections/governance/governance-read-model';
import { iso } from '../governance-context';

const REASON = 'governance sync';

/** The mirror node's props a policy wants (REFERENCE §13.7). */
function mirrorProps(p: PolicyRecord, enforcing: boolean): Record<string, unknown> {
  return {
    name: p.name,
    description: p.description ?? '',
    policy_type: 'governance',
    rules: [JSON.stringify({ effect: p.effect, match: p.match })],
    applies_to: p.match.principals?.length ? p.match.principals.join(', ') : '*',
    active: p.status === 'published' && enforcing,
    priority: p.priority,
  };
}

function differs(n: NodeRecord, label: string, props: Record<string, unknown>): boolean {
  if (n.label !== label) return true;
  const have = n.props as Record<string, unknown>;
  return Object.entries(props).some(([k, v]) => JSON.stringify(have[k]) !== JSON.stringify(v));
}

/**
 * `POST /v1/governance/sync` and the sync status of the settings: policy state mirrored into
 * the graph as Policy nodes (uid = policy uid) with GovernedByPolicy edges, in one transaction.
 */
@Injectable()
export class GovernanceSync {
  constructor(
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    private readonly governance: GovernanceReadModel,
  ) {}

  async sync(auth: AuthContext, requestId: string) {
    const org = auth.org_id;
    const out = await this.uow.run({ ...commandContext(auth, requestId), http: undefined }, async (tx) => {
      const enforcing = this.governance.settings(org).settings.mode === 'enforce';
      const policies = this.governance.policies(org);
      const c: GovernanceSyncCounts = { policies: 0, nodes_created: 0, nodes_updated: 0, nodes_tombstoned: 0, edges_created: 0, edges_tombstoned: 0 };
      const mirrored: Record<string, number | null> = {};
      const versions: Record<string, number> = {};
      for (const p of policies) {
        if (p.status === 'draft') continue;
        let mirror = await tx.node(p.uid);
        if (p.status === 'rejected') {
          if (mirror && mirror.tombstone_at === null) {
            const r = await tombstoneNode(tx, p.uid, { reason: REASON, cascade: true });
            c.nodes_tombstoned++;
            c.edges_tombstoned += r.edges_tombstoned;
            mirror = r.node;
          }
          mirrored[p.uid] = p.version;
          if (mirror) versions[p.uid] = mirror.version;
          continue;
        }
        c.policies++;
        const props = mirrorProps(p, enforcing);
        if (!mirror) {
          mirror = decideCreateNode({ label: p.name, node_type: 'Policy', props }, p.uid, tx.write);
          tx.emit(GraphChanges.nodeCreated(tx.org, mirror, REASON));
          c.nodes_created++;
        } else {
          let changed = false;
          if (mirror.tombstone_at !== null) {
            mirror = (await restoreNode(tx, p.uid, REASON)).node;
            changed = true;
          }
          if (differs(mirror, p.name, props)) {
            mirror = decideUpdateNode(mirror, { label: p.name, props }, tx.write);
            tx.emit(GraphChanges.nodeChanged(tx.org, 'NodeUpdated', mirror, REASON));
            changed = true;
          }
          if (changed) c.nodes_updated++;
        }
        // GovernedByPolicy from every live node the match names; edges from nodes no longer named go
        const named = new Set([...(p.match.spaces ?? []), ...(p.match.projects ?? []), ...(p.match.tools ?? [])]);
        const existing = await tx.edges({ to_uid: p.uid, edge_types: ['GovernedByPolicy'] });
        const linked = new Set(existing.map((e) => e.from_uid));
        for (const e of existing) {
          const from = await tx.node(e.from_uid);
          if (named.has(e.from_uid) && from && from.tombstone_at === null) continue;
          if ((await tombstoneEdge(tx, e.uid, REASON)).changed) c.edges_tombstoned++;
        }
        for (const uid of named) {
          if (linked.has(uid)) continue;
          const from = await tx.node(uid);
          if (!from || from.tombstone_at !== null) continue;
          createEdge(tx, { edge_type: 'GovernedByPolicy' }, from, mirror);
          c.edges_created++;
        }
        mirrored[p.uid] = p.version;
        versions[p.uid] = (await tx.node(p.uid))!.version;
      }
      tx.emit(GovernanceStreams.governance(org), 'GovernanceSynced', { org_id: org, counts: c, mirrored, mirror_versions: versions, synced_by: auth.principal.id, at: tx.now });
      return { synced_at: tx.now, counts: c };
    });
    return {
      synced_at: iso(out.synced_at),
      ...out.counts,
      sync: await this.status(org),
    };
  }

  /** `sync` of the settings record (REFERENCE §13.5). */
  async status(org: string) {
    const last = this.governance.lastSync(org);
    if (!last) return { status: 'never', last_synced_at: null, last_synced_by: null, pending_policies: 0, drifted_nodes: 0 };
    const enforcing = this.governance.settings(org).settings.mode === 'enforce';
    const policies = this.governance.policies(org).filter((p) => p.status !== 'draft');
    const mirrors = await this.graph.getNodes(org, policies.map((p) => p.uid));
    let pending = 0;
    let drifted = 0;
    for (const p of policies) {
      const m = mirrors.get(p.uid);
      if (m && last.mirror_versions[p.uid] !== undefined && m.version !== last.mirror_versions[p.uid]) drifted++;
      else if (p.status === 'rejected') {
        if (m && m.tombstone_at === null) pending++;
      } else if (last.mirrored[p.uid] !== p.version || !m || m.tombstone_at !== null || differs(m, p.name, mirrorProps(p, enforcing))) pending++;
    }
    return {
      status: pending || drifted ? 'out_of_sync' : 'in_sync',
      last_synced_at: iso(last.last_synced_at),
      last_synced_by: last.last_synced_by,
      pending_policies: pending,
      drifted_nodes: drifted,
    };
  }
}
