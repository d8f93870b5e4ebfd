import { DomainError, Errors } from '@strata/domain/errors';
import { NodeRecord } from '@strata/domain/records';
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
 *
 * A node the request creates must land inside that scope too, as the request leaves the graph:
 * unspaced, it must join the admitted set of a Project where the grant is `agent` (a Document
 * by its PartOfProject edge, a Chunk by ChunkOf to such a Document, any other node by
 * ExtractedFrom to such a Chunk); otherwise 403 `forbidden` (`required_role: "agent"`), since
 * the agent could neither read nor write what it made. Spaced, the Space rule decides.
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
        // an InSpace edge's Space is the Space rule's (write access to the Space)
        if (e.data.edge.edge_type !== 'InSpace' && !touched.has(e.data.edge.to_uid)) touched.set(e.data.edge.to_uid, 'to_uid');
      }
    }
    // nodes this request created are its own; the edges attaching them are checked at their other end
    for (const uid of created) touched.delete(uid);
    const spaced = await spacedNodes(txMembership(tx), [...touched.keys(), ...created]);
    await this.checkCreated(tx, [...created].filter((u) => !spaced.has(u)), plan.agentProjects.filter((g) => g.role !== 'viewer').map((g) => g.project_uid));
    if (!touched.size) return;
    const sets = await Promise.all(plan.agentProjects.map(async (g) => ({ role: g.role, admitted: await this.provenance.admittedBy(tx.org, g.project_uid) })));
    for (const [uid, field] of touched) {
      if (spaced.has(uid)) continue;
      const roles = sets.filter((s) => s.admitted.has(uid)).map((s) => s.role);
      if (roles.some((r) => r !== 'viewer')) continue;
      if (roles.length) throw new DomainError(403, 'forbidden', `node ${uid} is in a Project where this agent may only read`, { uid, required_role: 'agent' });
      throw Errors.refNotFound(field, uid);
    }
  };

  /** Each unspaced node the request created lands in the admitted set of a Project in `writable` (§12.1 over the request's own writes). */
  private async checkCreated(tx: GraphTx, created: string[], writable: string[]): Promise<void> {
    if (!created.length) return;
    const admits = new Set(writable);
    const memo = new Map<string, Promise<boolean>>();
    const live = async (uid: string, type: string | null): Promise<NodeRecord | null> => {
      const n = await tx.node(uid);
      return n && n.tombstone_at === null && (type === null || n.node_type === type) ? n : null;
    };
    const targets = async (uid: string, edgeType: string) => (await tx.edges({ from_uid: uid, edge_types: [edgeType] })).map((e) => e.to_uid);
    const once = (key: string, f: () => Promise<boolean>) => {
      if (!memo.has(key)) memo.set(key, f());
      return memo.get(key)!;
    };
    const docInside = (uid: string) =>
      once(`d:${uid}`, async () => !!(await live(uid, 'Document')) && (await targets(uid, 'PartOfProject')).some((p) => admits.has(p)));
    const chunkInside = (uid: string) =>
      once(`c:${uid}`, async () => {
        if (!(await live(uid, 'Chunk'))) return false;
        for (const d of await targets(uid, 'ChunkOf')) if (await docInside(d)) return true;
        return false;
      });
    for (const uid of created) {
      const n = await live(uid, null);
      if (!n) continue; // created and tombstoned again: nothing is left behind
      let inside = false;
      if (n.node_type === 'Document') inside = await docInside(uid);
      else if (n.node_type === 'Chunk') inside = await chunkInside(uid);
      else if (!NEVER_EXTRACTED.has(n.node_type)) for (const c of await targets(uid, 'ExtractedFrom')) if ((inside = await chunkInside(c))) break;
      if (!inside)
        throw new DomainError(
          403,
          'forbidden',
          `this agent writes only inside the Projects where its grant is 'agent' (or the Spaces it may write): the new ${n.node_type} must join one (a Document by PartOfProject, a Chunk by ChunkOf, any other node by ExtractedFrom) or name a space_uid`,
          { uid, node_type: n.node_type, required_role: 'agent' },
        );
    }
  }
}

/** Never among a Project's extracted nodes (REFERENCE §12.1): Articles are outputs, Spaces are the owner's. */
const NEVER_EXTRACTED = new Set(['Document', 'Chunk', 'Article', 'Space']);
