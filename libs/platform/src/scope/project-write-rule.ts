import { DomainError, Errors } from '@strata/domain/errors';
import { GraphTx } from '../unit-of-work/graph-tx';
import { ProvenanceService } from './provenance.service';
import { SpaceAccessService } from './space-access.service';
import { spacedNodes } from './space-membership';
import { txMembership } from './space-write-rule';

/**
 * Project grants on graph writes (REFERENCE §12.2, §13.3). A key bound to an agent that grants
 * restrict writes inside the admitted sets of its Projects only where its grant is `agent`: a
 * `viewer` grant reads them (403 `forbidden`, `required_role: "agent"`), and a node outside
 * every granted Project and every Space grant is outside its scope (404). The checked nodes
 * are those the request updates, tombstones or restores and the existing endpoints of the
 * edges it writes (a PartOfProject edge admits into its Project, the Project being one of
 * them); spaced nodes are the Space rule's. Registered after the Space rule.
 */
export class ProjectWriteRule {
  constructor(
    private readonly spaces: SpaceAccessService,
    private readonly provenance: ProvenanceService,
  ) {}

  readonly commit = async (tx: GraphTx): Promise<void> => {
    const p = tx.ctx.access;
    if (!p || p.credential !== 'api_key' || p.bound_agent_id === null || !tx.hasChanges() || tx.refusal) return;
    const plan = this.spaces.planForPrincipal(tx.org, p);
    if (!plan.agentLimited) return;
    const touched = new Map<string, string>(); // uid → field named in a refusal
    const created = new Set<string>();
    for (const e of tx.stagedEvents()) {
      if (e.type === 'NodeCreated') created.add(e.data.node.uid);
      else if (e.type === 'NodeUpdated' || e.type === 'NodeTombstoned' || e.type === 'NodeRestored') touched.set(e.data.node.uid, 'uid');
      else if (e.type === 'EdgeCreated' || e.type === 'EdgeUpdated' || e.type === 'EdgeTombstoned' || e.type === 'EdgeRestored') {
        if (!touched.has(e.data.edge.from_uid)) touched.set(e.data.edge.from_uid, 'from_uid');
        if (!touched.has(e.data.edge.to_uid)) touched.set(e.data.edge.to_uid, 'to_uid');
      }
    }
    // nodes this request created are its own; the edges attaching them are checked at their other end
    for (const uid of created) touched.delete(uid);
    if (!touched.size) return;
    const spaced = await spacedNodes(txMembership(tx), [...touched.keys()]);
    const sets = await Promise.all(plan.agentProjects.map(async (g) => ({ role: g.role, admitted: await this.provenance.admittedBy(tx.org, g.project_uid) })));
    for (const [uid, field] of touched) {
      if (spaced.has(uid)) continue;
      const roles = sets.filter((s) => s.admitted.has(uid)).map((s) => s.role);
      if (roles.some((r) => r !== 'viewer')) continue;
      if (roles.length) throw new DomainError(403, 'forbidden', `node ${uid} is in a Project where this agent may only read`, { uid, required_role: 'agent' });
      throw Errors.refNotFound(field, uid);
    }
  };
}
