import { DomainError, Errors } from '@strata/domain/errors';
import { DomainEvent, EventData, EventMetadata, EventType, domainEvent, liveNodeDelta, PendingEvent, pendingEvent, Streams } from '@strata/domain/events';
import { assertSeriesKeysFree, nodeVersionData, SeriesKey, WriteContext } from '@strata/domain/graph';
import { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { IdGenerator } from '@strata/domain/time';
import { EdgeFilter, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { ExpectedRevision, StreamAppend } from '@strata/event-store/event-store.port';
import { CommandContext } from './command-context';

/**
 * A rule the unit of work checks on every request's staged changes after its handler and
 * before the append (the plan's node limit); a throw refuses the request, nothing written.
 */
export type CommitCheck = (tx: GraphTx) => void | Promise<void>;

/**
 * A step the unit of work runs on every request's transaction before its handler (the Space
 * a request places its new nodes in, and their default classification); a throw refuses the
 * request, nothing written.
 */
export type OpenStep = (tx: GraphTx) => Promise<void>;

/**
 * A rule that answers before a handler's state guard (REFERENCE §4.0 step 9, §13.6): when the
 * handler refuses the request with a 409, each guard check sees the transaction as the handler
 * left it (the nodes it read) and may refuse the request itself (`tx.refuseKeeping`) or throw
 * its own error; when none does, the state guard's answer stands.
 */
export type GuardCheck = (tx: GraphTx, guard: Error) => Promise<void>;

/** A handler's refusal that policies answer before: a 409 on the state the request found. */
export function isStateGuard(err: unknown): err is Error {
  return err instanceof DomainError && err.status === 409;
}

/**
 * Runs the guard checks on a handler's refusal: true when one of them refused the request
 * itself (what it staged since is then appended and its refusal answered); false when the
 * handler's own error stands. A check's throw is the answer instead.
 */
export async function answerBeforeGuard(tx: GraphTx, err: unknown, checks: readonly GuardCheck[]): Promise<boolean> {
  if (!isStateGuard(err) || !checks.length) return false;
  tx.refuseKeeping(err); // nothing the handler staged may land, whatever the checks decide
  tx.refusal = null;
  for (const check of checks) {
    await check(tx, err);
    if (tx.refusal) return true;
  }
  return false;
}

/**
 * One request's view of the graph while it decides: reads come from the read model with
 * this request's own pending changes laid over them; writes are staged as events and
 * appended together, atomically, by the unit of work when the handler returns.
 */
export class GraphTx {
  readonly write: WriteContext;
  private readonly nodeOverlay = new Map<string, NodeRecord>();
  private readonly edgeOverlay = new Map<string, EdgeRecord>();
  private readonly revisions = new Map<string, ExpectedRevision>();
  private readonly appends = new Map<string, StreamAppend>();
  /** nodes as the read model held them before this request (first read); absent: created here */
  private readonly storedNodes = new Map<string, NodeRecord | null>();
  /** Series this request creates or changes, in first-touched order (checked by `verify`) */
  private readonly seriesChanged = new Set<string>();
  private nodesAdded = 0;
  /**
   * The Space this request places the nodes it creates in (REFERENCE §13.1 `space_uid`), set
   * by an open step; an InSpace edge is added for each at commit.
   */
  placement: { space_uid: string; explicit: boolean } | null = null;
  /** Nodes placed in a Space of their own (`/batch` per-node `space_uid`), with the field that named it */
  readonly nodePlacements = new Map<string, { space_uid: unknown; field: string }>();
  /**
   * Nodes the handler had decided to create when it checked its state guards: if a guard
   * refuses the request, the rules that answer before it judge them as written (REFERENCE §13.6).
   */
  readonly wouldCreate: NodeRecord[] = [];
  /**
   * The request's graph writes are made later, by a job it queues (REFERENCE §10 synthesis):
   * policies judge it now, on the nodes it names and `wouldCreate`, and its job's writes as it.
   */
  writesLater = false;

  constructor(
    readonly ctx: CommandContext,
    readonly reader: GraphReadModel,
    private readonly ids: IdGenerator,
    readonly now: number,
  ) {
    this.write = { now, agent_id: ctx.agent_id, principal_id: ctx.principal.id };
  }

  get org(): string {
    return this.ctx.org;
  }

  /** A new graph object's uid. */
  uuid(): string {
    return this.ids.graphUid ? this.ids.graphUid() : this.ids.uuid();
  }

  // ---------- reads ----------
  async node(uid: string): Promise<NodeRecord | null> {
    const staged = this.nodeOverlay.get(uid);
    if (staged) return staged;
    const n = await this.reader.getNode(this.org, uid);
    if (!this.storedNodes.has(uid)) this.storedNodes.set(uid, n);
    if (n) {
      const stream = Streams.node(this.org, uid);
      if (!this.revisions.has(stream)) this.revisions.set(stream, await this.reader.nodeRevision(this.org, uid));
    }
    return n;
  }

  /** A referenced node that must be live (REFERENCE §1.8), optionally of given types. */
  async liveNode(uid: string, field: string, types?: readonly string[]): Promise<NodeRecord> {
    const n = await this.node(uid);
    if (!n || n.tombstone_at !== null) throw Errors.refNotFound(field, uid);
    if (types && types.length && !types.includes(n.node_type)) throw Errors.wrongNodeType(field, uid, n.node_type, types);
    return n;
  }

  /** Checks every uid is live first, then the host types (§4.0 steps 7 and 8). */
  async liveNodes(refs: { uid: string; field: string; types?: readonly string[] }[]): Promise<NodeRecord[]> {
    const out: NodeRecord[] = [];
    for (const r of refs) {
      const n = await this.node(r.uid);
      if (!n || n.tombstone_at !== null) throw Errors.refNotFound(r.field, r.uid);
      out.push(n);
    }
    refs.forEach((r, i) => {
      if (r.types && r.types.length && !r.types.includes(out[i].node_type))
        throw Errors.wrongNodeType(r.field, r.uid, out[i].node_type, r.types);
    });
    return out;
  }

  async edge(uid: string): Promise<EdgeRecord | null> {
    const staged = this.edgeOverlay.get(uid);
    if (staged) return staged;
    const e = await this.reader.getEdge(this.org, uid);
    if (e) {
      const stream = Streams.edge(this.org, uid);
      if (!this.revisions.has(stream)) this.revisions.set(stream, await this.reader.edgeRevision(this.org, uid));
    }
    return e;
  }

  /** Edges matching the filter, including the ones this request created or changed. */
  async edges(filter: EdgeFilter): Promise<EdgeRecord[]> {
    const stored = await this.reader.listEdges(this.org, filter);
    const out = new Map<string, EdgeRecord>();
    for (const e of stored) {
      const stream = Streams.edge(this.org, e.uid);
      if (!this.revisions.has(stream)) this.revisions.set(stream, await this.reader.edgeRevision(this.org, e.uid));
      out.set(e.uid, this.edgeOverlay.get(e.uid) ?? e);
    }
    for (const e of this.edgeOverlay.values()) if (edgeMatches(e, filter)) out.set(e.uid, e);
      else out.delete(e.uid);
    return [...out.values()];
  }

  /** The node as the read model held it before this request; undefined when not read, null when absent. */
  storedNode(uid: string): NodeRecord | null | undefined {
    return this.storedNodes.get(uid);
  }

  /** The nodes this request read from the read model (null: absent), by uid. */
  storedNodeEntries(): IterableIterator<[string, NodeRecord | null]> {
    return this.storedNodes.entries();
  }

  /** Every staged event, in staging order per stream. */
  stagedEvents(): readonly DomainEvent[] {
    // made once per state: several commit checks read it, and a batch stages thousands
    return (this.stagedList ??= [...this.appends.values()].flatMap((a) => a.events as DomainEvent[]));
  }

  private stagedList: DomainEvent[] | null = null;

  // ---------- writes ----------
  private overlayNode(n: NodeRecord): void {
    this.nodeOverlay.set(n.uid, n);
    if (n.node_type === 'Series') this.seriesChanged.add(n.uid);
  }

  /**
   * Rules on the request's outcome as a whole, whatever route staged it: the unit of work
   * calls this after the handler and before the append, and a throw writes nothing. First the
   * checks registered on the unit of work (the plan's node limit), then one live Series per
   * (entity_uid, metric) (REFERENCE §4.3), for every create, update, restore and import that
   * makes a Series live or moves its key.
   */
  async verify(checks: readonly CommitCheck[] = []): Promise<void> {
    for (const check of checks) await check(this);
    if (!this.seriesChanged.size) return;
    const changes = [...this.seriesChanged].map((uid) => ({ before: this.storedNodes.get(uid) ?? null, after: this.nodeOverlay.get(uid)! }));
    await assertSeriesKeysFree(changes, (key) => this.liveSeriesWithKey(key));
  }

  private async liveSeriesWithKey(key: SeriesKey): Promise<NodeRecord[]> {
    const filter = { node_types: ['Series'], props_equals: { entity_uid: key.entity_uid, metric: key.metric } };
    return (await this.reader.listNodes(this.org, filter, { limit: 1000, offset: 0 })).items;
  }

  /**
   * Whatever this request emits on `stream` expects it at `revision` (a writer that holds the
   * stream at the revision it last wrote or read, whatever its emits ask for).
   */
  expect(stream: string, revision: ExpectedRevision): void {
    this.revisions.set(stream, revision);
  }

  /** how many events this request staged on `stream` so far */
  stagedOn(stream: string): number {
    return this.appends.get(stream)?.events.length ?? 0;
  }

  /**
   * Stages typed events, the one way a request writes: a decider's pending events, or one
   * event given by its stream, type and data. `expected` guards a stream this request has not
   * read (none unless given). Graph events keep the request's overlay, so its later reads, the
   * Space rule, the policy gate and the Series key check see them: a created node or edge
   * expects a new stream, a versioned change needs its object read through this transaction
   * first (its revision guards the append), and a node's version records whether its
   * classification moved from the node as read (REFERENCE §13.1).
   */
  emit(events: PendingEvent | readonly PendingEvent[], expected?: ExpectedRevision): void;
  emit<T extends EventType>(stream: string, type: T, data: EventData<T>, expected?: ExpectedRevision): void;
  emit(
    first: string | PendingEvent | readonly PendingEvent[],
    second?: EventType | ExpectedRevision,
    data?: unknown,
    expected: ExpectedRevision = 'any',
  ): void {
    if (typeof first === 'string') return this.stageOne(pendingEvent(first, second as EventType, data as never), expected);
    const exp = (second as ExpectedRevision | undefined) ?? 'any';
    if (isPendingList(first)) for (const e of first) this.stageOne(e, exp);
    else this.stageOne(first, exp);
  }

  private stageOne(e: PendingEvent, expected: ExpectedRevision): void {
    switch (e.type) {
      case 'NodeCreated':
        this.revisions.set(e.stream, 'no_stream');
        this.stage(e.stream, domainEvent(e.type, e.data));
        this.overlayNode(e.data.node);
        return;
      case 'NodeUpdated':
      case 'NodeTombstoned':
      case 'NodeRestored': {
        const node = e.data.node;
        this.stage(e.stream, domainEvent(e.type, nodeVersionData(this.nodeOverlay.get(node.uid) ?? this.storedNodes.get(node.uid), node, e.data.reason)));
        this.overlayNode(node);
        return;
      }
      case 'NodeTouched': {
        const { uid, props, updated_at } = e.data;
        this.stage(e.stream, domainEvent(e.type, e.data));
        const current = this.nodeOverlay.get(uid);
        if (current)
          this.nodeOverlay.set(uid, { ...current, props: { ...current.props, ...props } as NodeRecord['props'], updated_at: updated_at ?? current.updated_at });
        return;
      }
      case 'EdgeCreated':
        this.revisions.set(e.stream, 'no_stream');
        this.stage(e.stream, domainEvent(e.type, e.data));
        this.edgeOverlay.set(e.data.edge.uid, e.data.edge);
        return;
      case 'EdgeUpdated':
      case 'EdgeTombstoned':
      case 'EdgeRestored':
        this.stage(e.stream, domainEvent(e.type, e.data));
        this.edgeOverlay.set(e.data.edge.uid, e.data.edge);
        return;
      default:
        if (!this.revisions.has(e.stream)) this.revisions.set(e.stream, expected);
        this.stage(e.stream, { type: e.type, data: e.data } as DomainEvent);
    }
  }

  /**
   * An answer refusing the request that must still commit what is staged at that point (a
   * policy decision record): the unit of work appends, then rejects with it.
   */
  refusal: Error | null = null;

  /**
   * Drops everything the handler staged and refuses the request with `refusal`; what is
   * staged afterwards (a decision record) is appended before the refusal is answered.
   */
  refuseKeeping(refusal: Error): void {
    this.appends.clear();
    this.stagedList = null;
    this.nodeOverlay.clear();
    this.edgeOverlay.clear();
    this.seriesChanged.clear();
    this.streamsToDelete.length = 0;
    this.nodesAdded = 0;
    this.refusal = refusal;
  }

  /** Streams removed for good when this request commits (purge, clear). */
  readonly streamsToDelete: string[] = [];

  deleteStreams(streams: string[]): void {
    for (const s of streams) this.streamsToDelete.push(s); // no spread: arrays may be huge
  }

  /**
   * Live nodes this request adds to its organization (created live or restored, minus
   * tombstoned), from the staged events themselves: every route counts, whatever it calls.
   */
  get liveNodesAdded(): number {
    return this.nodesAdded;
  }

  hasChanges(): boolean {
    return this.appends.size > 0 || this.streamsToDelete.length > 0;
  }

  /** The staged appends, one per stream, in first-touched order. */
  staged(): StreamAppend[] {
    return [...this.appends.values()];
  }

  private meta?: EventMetadata;

  /** One metadata object for every event of the request (the log serialises it once). */
  metadata(): EventMetadata {
    return (this.meta ??= {
      org_id: this.org,
      principal: this.ctx.principal,
      credential_id: this.ctx.credential_id,
      agent_id: this.ctx.agent_id,
      request_id: this.ctx.request_id,
      occurred_at: this.now,
    });
  }

  private stage(stream: string, event: DomainEvent): void {
    let a = this.appends.get(stream);
    if (!a) {
      const expected = this.revisions.get(stream);
      if (expected === undefined) throw new Error(`internal: ${stream} written without being read in this transaction`);
      a = { stream, expectedRevision: expected, events: [] };
      this.appends.set(stream, a);
    }
    this.nodesAdded += liveNodeDelta(event);
    a.events.push({ ...event, metadata: this.metadata() });
    this.stagedList = null;
  }
}

function isPendingList(x: PendingEvent | readonly PendingEvent[]): x is readonly PendingEvent[] {
  return Array.isArray(x);
}

function edgeMatches(e: EdgeRecord, f: EdgeFilter): boolean {
  if (!f.include_tombstoned && e.tombstone_at !== null) return false;
  if (f.from_uid !== undefined && e.from_uid !== f.from_uid) return false;
  if (f.to_uid !== undefined && e.to_uid !== f.to_uid) return false;
  if (f.touching !== undefined && e.from_uid !== f.touching && e.to_uid !== f.touching) return false;
  if (f.among !== undefined && !(f.among.includes(e.from_uid) && f.among.includes(e.to_uid))) return false;
  if (f.edge_types && f.edge_types.length && !f.edge_types.includes(e.edge_type)) return false;
  if (f.tombstone_reason !== undefined && e.tombstone_reason !== f.tombstone_reason) return false;
  for (const [k, v] of Object.entries(f.props_equals ?? {})) if ((e.props[k] ?? null) !== v) return false;
  for (const [k, vs] of Object.entries(f.props_in ?? {})) if (!vs.includes(e.props[k] ?? null)) return false;
  return true;
}
