import { Errors } from '@strata/domain/errors';
import { DomainEvent } from '@strata/domain/events';
import {
  AccessPrincipal,
  assertMayLowerClassification,
  assertMayWriteSpaceNode,
  classificationOf,
  classificationRank,
  holdsAnySpaceWrite,
  mayWriteIntoSpace,
  readOnlyOutsideSpaces,
  SpaceAccess,
  spaceRuleAllows,
  spaceWriteForbidden,
  writesOnlyInSpaces,
} from '@strata/domain/governance';
import { decideCreateEdge, triggerEdgeProps, GraphChanges } from '@strata/domain/graph';
import { DomainError } from '@strata/domain/errors';
import { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { GraphTx } from '../unit-of-work/graph-tx';
import { SpaceAccessService } from './space-access.service';
import { MembershipReader, spacedNodes } from './space-membership';
import { wouldBeWritten } from '../policy/named-nodes';

/** A Space a caller names: a listed key not listing it cannot see it (404); else it needs write access (403). */
function assertMayWriteInto(access: SpaceAccess, p: AccessPrincipal, spaceUid: string, field: string): void {
  if (p.credential === 'api_key' && p.space_uids !== null && !p.space_uids.includes(spaceUid)) throw Errors.refNotFound(field, spaceUid);
  if (!mayWriteIntoSpace(access, spaceUid)) throw new DomainError(403, 'forbidden', `no write access to Space ${spaceUid}`, { field, uid: spaceUid });
}

/** Space membership as a request sees it: the read model with the request's own changes laid over it. */
export function txMembership(tx: GraphTx): MembershipReader {
  return {
    listEdges: (f) => tx.edges(f),
    getNodes: async (uids) => {
      const out = new Map<string, NodeRecord>();
      for (const u of uids) {
        const n = await tx.node(u);
        if (n) out.set(u, n);
      }
      return out;
    },
  };
}

/**
 * The Space rule on writes (REFERENCE §13.1), for every write path at once: registered on the
 * unit of work, it reads the request's staged events, whatever route or job staged them.
 *
 * - open step: a request's `space_uid` (or the single Space of a key limited to one) is
 *   checked and becomes the placement of the nodes it creates, with that Space's
 *   `default_classification`;
 * - commit check: each created node gets its InSpace edge; Space nodes are the owner's to
 *   write; lowering a classification is for owners and admins; a spaced node may only be
 *   written with write access meeting its classification; an InSpace edge needs write access
 *   to its Space.
 */
export class SpaceWriteRule {
  constructor(private readonly spaces: SpaceAccessService) {}

  readonly open = async (tx: GraphTx): Promise<void> => {
    const p = tx.ctx.access;
    if (!p) return;
    // an org viewer without a write grant anywhere is read-only, before anything is decided
    if (writesOnlyInSpaces(p) && !holdsAnySpaceWrite(this.spaces.planForPrincipal(tx.org, p).access)) throw readOnlyOutsideSpaces();
    const raw = tx.ctx.space_uid;
    if (raw === undefined) {
      if (p.credential === 'api_key' && p.space_uids !== null && p.space_uids.length === 1) {
        const s = await tx.node(p.space_uids[0]);
        if (s && s.tombstone_at === null && s.node_type === 'Space') this.place(tx, s, false);
      }
      return;
    }
    this.place(tx, await this.namedSpace(tx, p, raw, 'space_uid'), true);
  };

  /** A Space a request names to place nodes in: live, visible, a Space, and writable by the caller. */
  private async namedSpace(tx: GraphTx, p: AccessPrincipal, raw: unknown, field: string): Promise<NodeRecord> {
    if (typeof raw !== 'string' || !raw) throw Errors.invalidField(field, `${field} must be a Space uid`);
    const s = await tx.node(raw);
    if (!s || s.tombstone_at !== null) throw Errors.refNotFound(field, raw);
    if (p.credential === 'api_key' && p.space_uids !== null && !p.space_uids.includes(raw)) throw Errors.refNotFound(field, raw);
    if (s.node_type !== 'Space') throw Errors.wrongNodeType(field, raw, s.node_type, ['Space']);
    const plan = this.spaces.planForPrincipal(tx.org, p);
    // an agent confined by its grants sees only the Spaces it holds a grant on: another is
    // absent for it (404, as on every read and on an InSpace edge), not a 403 that confirms it
    if (plan.agentLimited && !plan.agentAllows({ spaces: [raw], classification: 'public' })) throw Errors.refNotFound(field, raw);
    assertMayWriteInto(plan.access, p, raw, field);
    return s;
  }

  private place(tx: GraphTx, space: NodeRecord, explicit: boolean): void {
    tx.placement = { space_uid: space.uid, explicit };
    const d = (space.props as Record<string, unknown>).default_classification;
    tx.write.default_classification = classificationOf({ classification: d });
  }

  readonly commit = async (tx: GraphTx): Promise<void> => {
    const p = tx.ctx.access;
    if (!p || !tx.hasChanges()) return;
    const events = tx.stagedEvents();
    const created = createdNodes(events);
    await this.placeCreated(tx, p, created);
    const plan = this.spaces.planForPrincipal(tx.org, p);
    const written = new Map<string, NodeRecord>();
    for (const e of tx.stagedEvents()) {
      if (e.type === 'NodeCreated' || e.type === 'NodeUpdated' || e.type === 'NodeTombstoned' || e.type === 'NodeRestored') {
        const after = e.data.node;
        const before = tx.storedNode(after.uid) ?? null;
        if (after.node_type === 'Space' || before?.node_type === 'Space') assertMayWriteSpaceNode(p);
        if (before && classificationRank(classificationOf(after)) < classificationRank(classificationOf(before))) assertMayLowerClassification(p);
        written.set(after.uid, after);
      } else if (e.type === 'EdgeCreated' || e.type === 'EdgeTombstoned' || e.type === 'EdgeRestored' || e.type === 'EdgeUpdated') {
        if (e.data.edge.edge_type === 'InSpace') await this.checkInSpace(tx, p, plan.access, e.data.edge, e.type === 'EdgeCreated');
      }
    }
    if (writesOnlyInSpaces(p)) return this.keepInsideSpaces(tx, plan.access, events, written);
    if (plan.unlimited || !written.size) return;
    const spaced = await spacedNodes(txMembership(tx), [...written.keys()]);
    for (const [uid, node] of spaced) {
      const after = written.get(uid)!;
      if (!spaceRuleAllows(plan.access, { spaces: node.spaces, classification: classificationOf(after) }, 'write')) throw spaceWriteForbidden(uid);
    }
  };

  /**
   * An org viewer writes only inside a Space it holds a `write` grant on: every node the
   * request writes must be in such a Space, as the request leaves it or, where the request
   * took it out (a tombstone takes its InSpace edges with it), as it was; every edge it writes
   * must have one end there (an InSpace edge's Space was judged by `checkInSpace`), and a node
   * an InSpace edge moves must have been writable by it before (or be new). A change of any
   * other kind (a purge, an embedding, settings) is not a write inside a Space.
   */
  private async keepInsideSpaces(tx: GraphTx, access: SpaceAccess, events: readonly DomainEvent[], written: ReadonlyMap<string, NodeRecord>): Promise<void> {
    const nodes = new Set<string>(written.keys());
    const edges: [string, string | null][] = [];
    /** nodes an InSpace edge of the request moves into or out of a Space: the viewer must have been able to write them */
    const placed = new Set<string>();
    const created = new Set<string>();
    for (const e of events) {
      switch (e.type) {
        case 'NodeCreated':
          created.add(e.data.node.uid);
          break;
        case 'NodeUpdated':
        case 'NodeTombstoned':
        case 'NodeRestored':
        case 'PolicyDecisionRecorded':
        case 'PolicyApprovalConsumed':
          break;
        case 'NodeTouched':
          nodes.add(e.data.uid);
          break;
        case 'EdgeCreated':
        case 'EdgeUpdated':
        case 'EdgeTombstoned':
        case 'EdgeRestored':
          edges.push([e.data.edge.from_uid, e.data.edge.edge_type === 'InSpace' ? null : e.data.edge.to_uid]);
          if (e.data.edge.edge_type === 'InSpace') placed.add(e.data.edge.from_uid);
          break;
        case 'AliasSet':
        case 'AliasRemoved':
          nodes.add(e.data.canonical_uid);
          break;
        case 'SeriesPointsAppended':
          nodes.add(e.data.series_uid);
          break;
        case 'SalienceDecayed':
          for (const i of e.data.items) nodes.add(i.uid);
          break;
        default:
          throw readOnlyOutsideSpaces();
      }
    }
    const uids = new Set(nodes);
    for (const [from, to] of edges) {
      uids.add(from);
      if (to !== null) uids.add(to);
    }
    const after = await spacedNodes(txMembership(tx), [...uids]);
    const before = uids.size > after.size || placed.size ? await this.spaces.spacedNodes(tx.org) : null;
    // placing a node it could not write into its Space would be writing outside it
    for (const uid of placed) {
      if (created.has(uid)) continue;
      const was = before!.get(uid);
      if (!was || !spaceRuleAllows(access, { spaces: was.spaces, classification: was.classification }, 'write')) throw readOnlyOutsideSpaces(uid);
    }
    const inside = (uid: string): 'yes' | 'unspaced' | 'forbidden' => {
      const node = after.get(uid) ?? before?.get(uid);
      if (!node) return 'unspaced';
      const classification = classificationOf(written.get(uid) ?? node);
      return spaceRuleAllows(access, { spaces: node.spaces, classification }, 'write') ? 'yes' : 'forbidden';
    };
    for (const uid of nodes) {
      const verdict = inside(uid);
      if (verdict === 'unspaced') throw readOnlyOutsideSpaces(uid);
      if (verdict === 'forbidden') throw spaceWriteForbidden(uid);
    }
    for (const [from, to] of edges) {
      if (inside(from) === 'yes' || (to !== null && inside(to) === 'yes')) continue;
      throw readOnlyOutsideSpaces(from);
    }
  }

  /**
   * Before a handler's state guard answers (a 409), the access it needs comes first: a caller
   * that may not write a spaced node the request names hears 403 `forbidden`, not the node's
   * state, and no policy decision is made for it.
   */
  readonly guard = async (tx: GraphTx): Promise<void> => {
    const p = tx.ctx.access;
    if (!p) return;
    const plan = this.spaces.planForPrincipal(tx.org, p);
    if (plan.unlimited) return;
    const { nodes: named, placed } = wouldBeWritten(tx);
    if (!named.size) return;
    const spaced = await spacedNodes(txMembership(tx), [...named.keys()]);
    for (const [uid, spaces] of placed) if (spaces.length) spaced.set(uid, { spaces, classification: classificationOf(named.get(uid)!) });
    for (const [uid, node] of spaced)
      if (!spaceRuleAllows(plan.access, { spaces: node.spaces, classification: classificationOf(named.get(uid)!) }, 'write')) throw spaceWriteForbidden(uid);
  };

  /** N → S for every node the request created, in the placement Space (a key with several Spaces must name one). */
  private async placeCreated(tx: GraphTx, p: AccessPrincipal, created: NodeRecord[]): Promise<void> {
    // a Space is never inside a Space (an InSpace edge cannot start at one): naming a Space to put
    // a new Space in is refused, not ignored. A key's implicit single Space places nothing here:
    // keys cannot write Space nodes at all.
    for (const n of created) {
      if (n.node_type !== 'Space') continue;
      const own = tx.nodePlacements.get(n.uid);
      const field = own?.field ?? (tx.placement?.explicit ? 'space_uid' : null);
      if (field === null) continue;
      assertMayWriteSpaceNode(p);
      throw new DomainError(400, 'wrong_node_type', 'a Space cannot be placed in a Space: an InSpace edge cannot start at a Space', { field, uid: n.uid, ...(own ? { index: own.field } : {}) });
    }
    const nodes = created.filter((n) => n.node_type !== 'Space');
    if (!nodes.length) return;
    const props = triggerEdgeProps('InSpace', { assigned_at: tx.now, assigned_by: tx.ctx.principal.id });
    const into = (n: NodeRecord, space: string) =>
      tx.emit(GraphChanges.edgeCreated(tx.org, decideCreateEdge({ edge_type: 'InSpace', props }, n, { uid: space, layer: 'agent' } as NodeRecord, tx.uuid(), tx.write)));
    for (const n of nodes) {
      const own = tx.nodePlacements.get(n.uid);
      if (own) into(n, (await naming(own.field, () => this.namedSpace(tx, p, own.space_uid, own.field))).uid);
      else if (tx.placement) into(n, tx.placement.space_uid);
      else if (p.credential === 'api_key' && p.space_uids !== null && p.space_uids.length > 1)
        throw Errors.missingField('space_uid', 'space_uid is required: this key reaches several Spaces');
    }
  }

  private async checkInSpace(tx: GraphTx, p: AccessPrincipal, access: SpaceAccess, e: EdgeRecord, created: boolean): Promise<void> {
    if (created) {
      const to = await tx.node(e.to_uid);
      const from = await tx.node(e.from_uid);
      if (to && to.node_type !== 'Space') throw Errors.wrongNodeType('to_uid', e.to_uid, to.node_type, ['Space']);
      if (from && from.node_type === 'Space') throw new DomainError(400, 'wrong_node_type', 'an InSpace edge cannot start at a Space', { field: 'from_uid', uid: e.from_uid });
    }
    // the placement edges this request added itself were checked when the Space was named
    if (tx.placement && e.to_uid === tx.placement.space_uid && tx.placement.explicit) return;
    if (tx.nodePlacements.get(e.from_uid)?.space_uid === e.to_uid) return;
    assertMayWriteInto(access, p, e.to_uid, 'to_uid');
  }
}

/** A refusal of a `/batch` node's own Space names that item, as every other refusal of a batch item does (`index`). */
async function naming<T>(index: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof DomainError) throw new DomainError(err.status, err.code, err.message, { ...err.context, index });
    throw err;
  }
}

function createdNodes(events: readonly DomainEvent[]): NodeRecord[] {
  const out: NodeRecord[] = [];
  for (const e of events) if (e.type === 'NodeCreated') out.push(e.data.node);
  return out;
}
