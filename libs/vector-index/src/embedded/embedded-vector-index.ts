import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Index, MetricKind, ScalarKind } from 'usearch';
import { DomainError } from '@strata/domain/errors';
import { checkVector, notConfigured } from '../vector-validation';
import type { DistanceMetric, VectorHit, VectorIndex, VectorItem, VectorQuery, VectorSpaceConfig } from '../vector-index.port';
import { ChunkedRows } from './chunked-rows';
import { QuantizedVectors } from './quantized-vectors';
import { TopK, norm, similarity } from './vector-math';

/**
 * HNSW parameters, chosen on 100k × 384 (bench/vector-index.bench.ts): M = 24 links per node,
 * a 200-wide build beam and a 320-wide search beam give recall@10 = 1.0 on clustered data
 * (real embedding models) and ≈ 0.95 on the built-in lexical embedder's hashed vectors, whose
 * near-orthogonality makes them hard for any graph index. Uniform random vectors, which have
 * no neighbourhood structure at all, stay far below that at any affordable beam.
 */
export const HNSW_DEFAULTS = { connectivity: 24, expansionAdd: 200, expansionSearch: 320 };

export interface EmbeddedVectorIndexOptions {
  connectivity?: number;
  expansionAdd?: number;
  expansionSearch?: number;
  /** filtered sets at most this large are scanned exactly instead of via HNSW (default 2048) */
  exactScanLimit?: number;
  /**
   * cosine spaces holding at most this many components (vectors × dimensions) are searched
   * by a full scan of an 8-bit copy plus exact re-ranking instead of via HNSW (default
   * SCAN_LIMIT_DEFAULT; 0 always uses the graph)
   */
  scanLimit?: number;
}

/**
 * 2²⁶ components: 100k vectors at 384 dimensions or 40k at 1536, a scan of ≤ 64 MiB taking
 * ~2 ms per 100k × 384 on one core. There it beats an HNSW beam wide enough for 0.95 recall on
 * hard (lexical) vectors, and its recall is ~1.0 on any data.
 */
export const SCAN_LIMIT_DEFAULT = 1 << 26;
/** Candidates from the 8-bit scan re-scored exactly: at least this many, or 4 × what is wanted. */
const SCAN_RERANK_MIN = 64;

type HnswOptions = Required<Omit<EmbeddedVectorIndexOptions, 'exactScanLimit' | 'scanLimit'>>;

const FORMAT_VERSION = 1;
const MANIFEST = 'manifest.json';

interface SpaceMeta {
  version: number;
  org: string;
  dimensions: number;
  metric: DistanceMetric;
  /** per slot: uid, node_type, layer ('' uid = free slot) */
  uids: string[];
  types: string[];
  layers: string[];
  /** number of removals since the HNSW graph was last built from scratch */
  churn: number;
  /** slots stored but not yet in the saved graph (indexed in the background after load) */
  pending?: number[];
}

const METRIC_KIND: Record<DistanceMetric, MetricKind> = {
  cosine: MetricKind.Cos,
  dot: MetricKind.IP,
  euclidean: MetricKind.L2sq,
};

/** One organization's vector space: HNSW graph + our own copy of every vector and its tags. */
class Space {
  index: Index;
  /** slot i holds the vector of uids[i] */
  readonly vectors: ChunkedRows<Float32Array>;
  norms: Float32Array;
  uids: string[] = [];
  types: string[] = [];
  layers: string[] = [];
  readonly slotOf = new Map<string, number>();
  free: number[] = [];
  /** live count per `${node_type}\u0000${layer}` (to size filtered searches without a scan) */
  readonly tagCounts = new Map<string, number>();
  churn = 0;
  dirty = true;
  /**
   * Slots whose vector is stored but not yet in the HNSW graph. Inserting into the graph is
   * the expensive part of a write (~0.3–3 ms per vector), so it happens in the background;
   * searches score these slots exactly, so results never miss a fresh vector.
   */
  readonly pending = new Set<number>();
  /** 8-bit copy for full scans (cosine only: per-vector scaling would change dot and L2) */
  readonly quantized: QuantizedVectors | null;

  constructor(
    readonly org: string,
    readonly dimensions: number,
    readonly metric: DistanceMetric,
    private readonly hnsw: HnswOptions,
    private readonly scanLimit: number,
  ) {
    this.index = this.newIndex();
    this.vectors = new ChunkedRows(dimensions, (n) => new Float32Array(n), 4);
    this.norms = new Float32Array(16);
    this.quantized = metric === 'cosine' ? new QuantizedVectors(dimensions) : null;
  }

  get size(): number {
    return this.slotOf.size;
  }

  /**
   * Whether searches take their candidates from the 8-bit scan. The graph is not needed then,
   * so vectors wait in `pending` until the space outgrows the scan and the graph is built.
   */
  get scanned(): boolean {
    return this.quantized !== null && this.uids.length * this.dimensions <= this.scanLimit;
  }

  /** Vectors still to be put into the graph, when searches go through it. */
  get backlog(): number {
    return this.scanned ? 0 : this.pending.size;
  }

  newIndex(): Index {
    return new Index({
      dimensions: this.dimensions,
      metric: METRIC_KIND[this.metric],
      quantization: ScalarKind.F32,
      connectivity: this.hnsw.connectivity,
      expansion_add: this.hnsw.expansionAdd,
      expansion_search: this.hnsw.expansionSearch,
      multi: false,
    });
  }

  ensureCapacity(slots: number): void {
    // vectors grow by chunks, never copied; norms (4 bytes a slot) double
    this.vectors.ensureCapacity(slots);
    this.quantized?.ensureCapacity(slots);
    if (slots <= this.norms.length) return;
    let cap = this.norms.length;
    while (cap < slots) cap *= 2;
    const norms = new Float32Array(cap);
    norms.set(this.norms);
    this.norms = norms;
  }

  /**
   * Whether `slot` already holds exactly this vector (as stored, in 32 bits), type and layer:
   * such an upsert changes nothing. Updates that keep a node's text (a status, an end time, a
   * salience) embed the same vector again; storing it would take the node out of the graph and
   * put it back.
   */
  holds(slot: number, item: VectorItem): boolean {
    if (this.types[slot] !== item.node_type || this.layers[slot] !== item.layer) return false;
    const chunk = this.vectors.chunk(slot);
    const off = this.vectors.offset(slot);
    const v = item.vector;
    for (let i = 0; i < this.dimensions; i++) if (chunk[off + i] !== Math.fround(v[i])) return false;
    return true;
  }

  /** Stores a slot's vector (capacity already ensured). */
  setVector(slot: number, vector: ArrayLike<number>): void {
    this.vectors.set(slot, vector);
    this.refreshDerived(slot);
  }

  /** The norm and the 8-bit copy of a slot's stored vector. */
  refreshDerived(slot: number): void {
    const chunk = this.vectors.chunk(slot);
    const off = this.vectors.offset(slot);
    this.norms[slot] = norm(chunk, off, this.dimensions);
    this.quantized?.set(slot, chunk, off);
  }

  tag(slot: number): string {
    return `${this.types[slot]}\u0000${this.layers[slot]}`;
  }

  countTag(slot: number, delta: number): void {
    const key = this.tag(slot);
    const n = (this.tagCounts.get(key) ?? 0) + delta;
    if (n > 0) this.tagCounts.set(key, n);
    else this.tagCounts.delete(key);
  }

  /** Frees a slot (the HNSW node is removed by the caller). */
  release(slot: number): void {
    this.countTag(slot, -1);
    this.slotOf.delete(this.uids[slot]);
    this.uids[slot] = '';
    this.types[slot] = '';
    this.layers[slot] = '';
    this.quantized?.clear(slot);
    this.free.push(slot);
  }

  /** Moves up to `max` pending slots into the graph; returns how many. */
  indexPending(max: number): number {
    if (!this.pending.size) return 0;
    const slots: number[] = [];
    for (const slot of this.pending) {
      slots.push(slot);
      if (slots.length >= max) break;
    }
    for (const slot of slots) this.pending.delete(slot);
    addSlots(this.index, this, slots);
    return slots.length;
  }

  /** Rebuilds the HNSW graph from the stored vectors (drops removal damage). */
  rebuild(): void {
    this.pending.clear();
    const index = this.newIndex();
    const slots = [...this.slotOf.values()].sort((a, b) => a - b);
    if (this.scanned) {
      // no graph needed yet: an empty one, every vector waiting for it
      for (const slot of slots) this.pending.add(slot);
      this.index = index;
      this.churn = 0;
      this.dirty = true;
      return;
    }
    for (let i = 0; i < slots.length; i += 4096) addSlots(index, this, slots.slice(i, i + 4096));
    this.index = index;
    this.churn = 0;
    this.dirty = true;
  }
}

function addSlots(index: Index, space: Space, slots: number[]): void {
  if (!slots.length) return;
  const d = space.dimensions;
  const keys = new BigUint64Array(slots.length);
  const matrix = new Float32Array(slots.length * d);
  slots.forEach((slot, i) => {
    keys[i] = BigInt(slot);
    matrix.set(space.vectors.row(slot), i * d);
  });
  // one thread for small batches: spawning the pool costs more than the work
  // one thread: usearch 2.25's JS binding cannot reserve capacity, and a multi-threaded add
  // into a full index fails with "Reserve capacity ahead of insertions"
  index.add(keys, matrix, 1);
}

/**
 * Embedded ANN index on usearch (HNSW), one space per organization, persisted under `dir`:
 * per organization `<name>.usearch` (the graph), `<name>.f32` (our copy of the vectors) and
 * `<name>.json` (uid/type/layer per slot), plus `manifest.json` (written last, holds the
 * projection checkpoint). Keys in the graph are slot numbers.
 *
 * Search is exact where it matters: candidates are re-scored from the stored vectors. Cosine
 * spaces up to `scanLimit` components take their candidates from a full scan of an 8-bit copy
 * (QuantizedVectors), larger ones and other metrics from the graph. Filtered searches
 * over-fetch and post-filter, and scan the filtered set exactly when it is small or when too
 * few candidates survive; a graph that returns fewer hits than exist (possible after heavy
 * removal) is backed by an exact scan too. Removal deletes the
 * graph node and the stored vector; after very heavy churn the graph is rebuilt on flush
 * (`compactSync` does it on demand).
 */
/** Background graph insertion: at most this long per slice, this many vectors per add call. */
const INDEXING_SLICE_MS = 4;
// small enough that one add call fits the slice: 64 vectors (~30–60 ms) blocked writes for
// longer than the 50 ms "busy" window, so under load the index stayed in catch-up mode and
// took most of the thread (POST /epistemic/argument: ~2.8 instead of ~1.4 ms CPU per request)
const INDEXING_BATCH = 4;
/** Past this many unindexed vectors, exact scans of the backlog would slow searches: catch up. */
const BACKLOG_SOFT_LIMIT = 20_000;

export class EmbeddedVectorIndex implements VectorIndex {
  private readonly spaces = new Map<string, Space>();
  private readonly hnsw: HnswOptions;
  private readonly exactScanLimit: number;
  private readonly scanLimit: number;
  private removedOrgs = new Set<string>();
  private checkpoint: number | undefined;
  private closed = false;

  constructor(
    private readonly dir: string,
    options: EmbeddedVectorIndexOptions = {},
  ) {
    this.hnsw = {
      connectivity: options.connectivity ?? HNSW_DEFAULTS.connectivity,
      expansionAdd: options.expansionAdd ?? HNSW_DEFAULTS.expansionAdd,
      expansionSearch: options.expansionSearch ?? HNSW_DEFAULTS.expansionSearch,
    };
    this.exactScanLimit = options.exactScanLimit ?? 2048;
    this.scanLimit = options.scanLimit ?? SCAN_LIMIT_DEFAULT;
    mkdirSync(dir, { recursive: true });
    this.load();
  }

  // ---- synchronous API (embedded hot path) ----

  configureSync(org: string, config: VectorSpaceConfig): void {
    this.assertOpen();
    if (!Number.isInteger(config.dimensions) || config.dimensions < 1 || config.dimensions > 8192) {
      throw new DomainError(400, 'invalid_field', 'dimensions must be an integer from 1 to 8192', { field: 'dimensions' });
    }
    if (!(config.metric in METRIC_KIND)) {
      throw new DomainError(400, 'invalid_field', 'metric must be cosine, dot or euclidean', { field: 'distance_metric' });
    }
    const current = this.spaces.get(org);
    if (current && current.dimensions === config.dimensions && current.metric === config.metric) return;
    this.spaces.set(org, new Space(org, config.dimensions, config.metric, this.hnsw, this.scanLimit));
    this.removedOrgs.delete(org);
  }

  upsertSync(org: string, items: VectorItem[]): void {
    this.assertOpen();
    if (!items.length) return;
    const space = this.spaces.get(org);
    if (!space) throw notConfigured(org);
    const d = space.dimensions;
    for (const item of items) checkVector(item.vector, d);

    // last write wins within a batch
    const latest = new Map<string, VectorItem>();
    for (const item of items) latest.set(item.uid, item);

    const added: number[] = [];
    for (const item of latest.values()) {
      let slot = space.slotOf.get(item.uid);
      if (slot !== undefined && space.holds(slot, item)) continue;
      if (slot !== undefined) {
        if (!space.pending.has(slot)) {
          space.index.remove(BigInt(slot));
          space.churn++;
        }
        space.countTag(slot, -1);
      } else {
        slot = space.free.pop() ?? space.uids.length;
        space.ensureCapacity(slot + 1);
        space.uids[slot] = item.uid;
        space.slotOf.set(item.uid, slot);
      }
      space.setVector(slot, item.vector);
      space.types[slot] = item.node_type;
      space.layers[slot] = item.layer;
      space.countTag(slot, +1);
      added.push(slot);
    }
    if (!added.length) return;
    for (const slot of added) space.pending.add(slot);
    space.dirty = true;
    this.lastWrite = performance.now();
    if (space.backlog) this.scheduleIndexing();
  }

  /**
   * Vectors still to be put into the HNSW graph of one organization, or of all, counting only
   * spaces searched through their graph (a scanned space finds every stored vector already).
   */
  pendingCount(org?: string): number {
    if (org !== undefined) return this.spaces.get(org)?.backlog ?? 0;
    let n = 0;
    for (const space of this.spaces.values()) n += space.backlog;
    return n;
  }

  /** Puts every pending vector of graph-searched spaces into the graph now (flush, tests, benchmarks). */
  indexAllPendingSync(): void {
    for (const space of this.spaces.values()) while (space.backlog > 0 && space.indexPending(4096) > 0);
    this.notifyIndexed();
  }

  /** callers of whenIndexed, answered once the background indexing has no backlog left */
  private readonly indexedWaiters: (() => void)[] = [];

  /**
   * Resolves once the background indexing has put every pending vector into the graph (at
   * once when none is pending). Tests await it instead of polling; indexAllPendingSync does
   * the work in the caller instead.
   */
  whenIndexed(): Promise<void> {
    if (this.pendingCount() === 0 || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.indexedWaiters.push(resolve));
  }

  /** answers whenIndexed once nothing is pending (or the index is closed) */
  private notifyIndexed(): void {
    if (this.indexedWaiters.length && (this.closed || this.pendingCount() === 0)) for (const w of this.indexedWaiters.splice(0)) w();
  }

  private indexingScheduled = false;
  /** monotonic (performance.now()): the slices share out CPU time, they do not tell the time of day */
  private lastWrite = -Infinity;

  /**
   * Background graph insertion in short slices between I/O callbacks. While writes keep
   * coming and the backlog is modest, it takes a small share of the thread (the backlog is
   * searched exactly meanwhile); when writes pause, or the backlog grows past
   * BACKLOG_SOFT_LIMIT, it catches up in bigger slices.
   */
  private scheduleIndexing(): void {
    if (this.indexingScheduled || this.closed) return;
    this.indexingScheduled = true;
    const busy = performance.now() - this.lastWrite < 50 && this.pendingCount() < BACKLOG_SOFT_LIMIT;
    const run = () => {
      this.indexingScheduled = false;
      if (this.closed) return;
      const deadline = performance.now() + (busy ? 1 : INDEXING_SLICE_MS);
      for (const space of this.spaces.values()) {
        // one graph insertion costs ~0.3–3 ms: while busy, take them a couple at a time
        while (space.backlog && performance.now() < deadline) space.indexPending(busy ? 2 : INDEXING_BATCH);
      }
      if (this.pendingCount() > 0) this.scheduleIndexing();
      else this.notifyIndexed();
    };
    if (busy) setTimeout(run, 20).unref();
    else setImmediate(run);
  }

  removeSync(org: string, uids: string[]): void {
    this.assertOpen();
    const space = this.spaces.get(org);
    if (!space) return;
    for (const uid of uids) {
      const slot = space.slotOf.get(uid);
      if (slot === undefined) continue;
      if (space.pending.has(slot)) space.pending.delete(slot);
      else space.index.remove(BigInt(slot));
      space.release(slot);
      space.churn++;
      space.dirty = true;
    }
  }

  removeOrgSync(org: string): void {
    this.assertOpen();
    if (this.spaces.delete(org)) this.removedOrgs.add(org);
    else if (existsSync(this.metaPath(org))) this.removedOrgs.add(org);
  }

  /** Drops every organization's space (projection rebuild); files go on the next flush. */
  clearSync(): void {
    this.assertOpen();
    for (const org of this.spaces.keys()) this.removedOrgs.add(org);
    this.spaces.clear();
  }

  countSync(org: string): number {
    return this.spaces.get(org)?.size ?? 0;
  }

  /** The active configuration of an organization's space, if any. */
  configOf(org: string): VectorSpaceConfig | undefined {
    const space = this.spaces.get(org);
    return space ? { dimensions: space.dimensions, metric: space.metric } : undefined;
  }

  /** The stored vector of one node (e.g. for GET /node/{uid}/embedding). */
  getVector(org: string, uid: string): number[] | undefined {
    const space = this.spaces.get(org);
    const slot = space?.slotOf.get(uid);
    if (!space || slot === undefined) return undefined;
    return Array.from(space.vectors.row(slot));
  }

  searchSync(q: VectorQuery): VectorHit[] {
    this.assertOpen();
    const space = this.spaces.get(q.org);
    if (!space) return [];
    checkVector(q.vector, space.dimensions);
    const k = Math.floor(q.k);
    if (!(k > 0) || space.size === 0) return [];
    const query = q.vector instanceof Float32Array ? q.vector : Float32Array.from(q.vector);
    const qNorm = norm(query);

    const types = q.node_types?.length ? new Set(q.node_types) : undefined;
    const excluded = q.exclude_node_types?.length ? new Set(q.exclude_node_types) : undefined;
    const layer = q.layer ?? undefined;
    const filtered = !!(types || excluded || layer !== undefined);
    const passes = (slot: number) =>
      (!types || types.has(space.types[slot])) &&
      (!excluded || !excluded.has(space.types[slot])) &&
      (layer === undefined || space.layers[slot] === layer);

    let matching = space.size;
    if (filtered) {
      matching = 0;
      for (const [key, n] of space.tagCounts) {
        const [type, lay] = key.split('\u0000');
        if ((!types || types.has(type)) && (!excluded || !excluded.has(type)) && (layer === undefined || lay === layer)) matching += n;
      }
      if (matching === 0) return [];
    }
    const want = Math.min(k, matching);

    let top: TopK | undefined;
    if (!filtered || (matching > this.exactScanLimit && matching / space.size >= 0.01)) {
      // a graph still catching up on a large backlog would leave too much to score exactly
      top =
        space.quantized && qNorm > 0 && (space.scanned || space.pending.size > this.exactScanLimit)
          ? this.scanCandidates(space, query, qNorm, k, want, matching, filtered ? passes : null)
          : this.graphCandidates(space, query, qNorm, k, want, matching, filtered ? passes : null);
    }
    if (!top) {
      top = new TopK(k);
      for (const slot of space.slotOf.values()) {
        if (filtered && !passes(slot)) continue;
        top.push(slot, this.score(space, query, qNorm, slot));
      }
    }

    const hits: VectorHit[] = [];
    for (const { id, score } of top.sorted()) {
      if (q.threshold !== undefined && q.threshold !== null && score < q.threshold) continue;
      hits.push({ uid: space.uids[id], score });
    }
    // equal scores: order by uid, as the API sorts
    hits.sort((a, b) => b.score - a.score || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
    return hits;
  }

  /**
   * Top-k from a full 8-bit scan: the best `4 × wanted` candidates (at least SCAN_RERANK_MIN)
   * by quantized cosine, re-scored exactly. Filters apply to the candidates, which are
   * over-fetched in proportion to how much of the space the filter keeps; undefined when too
   * few survive (the caller scans the filtered set exactly).
   */
  private scanCandidates(
    space: Space,
    query: Float32Array,
    qNorm: number,
    k: number,
    want: number,
    matching: number,
    passes: ((slot: number) => boolean) | null,
  ): TopK | undefined {
    const perHit = passes ? Math.ceil((want * space.size) / matching) : want;
    const slots = space.quantized!.nearest(query, space.uids.length, Math.max(SCAN_RERANK_MIN, 4 * perHit));
    const top = new TopK(k);
    let survivors = 0;
    for (const slot of slots) {
      if (!space.uids[slot] || (passes && !passes(slot))) continue;
      survivors++;
      top.push(slot, this.score(space, query, qNorm, slot));
    }
    return survivors >= want ? top : undefined;
  }

  /**
   * Top-k from the HNSW graph, re-scored exactly, plus the vectors not yet in the graph
   * (scored exactly). Filtered searches over-fetch and post-filter; undefined when too few
   * candidates survive.
   */
  private graphCandidates(
    space: Space,
    query: Float32Array,
    qNorm: number,
    k: number,
    want: number,
    matching: number,
    passes: ((slot: number) => boolean) | null,
  ): TopK | undefined {
    // over-fetch in proportion to how much of the space the filter keeps
    const fetch = Math.min(space.size, passes ? Math.ceil((want * space.size) / matching) * 2 + 16 : want);
    const result = space.index.search(query, Math.max(fetch, 1), 1);
    const candidates = new TopK(k);
    let survivors = 0;
    for (let i = 0; i < result.keys.length; i++) {
      const slot = Number(result.keys[i]);
      if (!space.uids[slot] || (passes && !passes(slot)) || space.pending.has(slot)) continue;
      survivors++;
      candidates.push(slot, this.score(space, query, qNorm, slot));
    }
    for (const slot of space.pending) {
      if (passes && !passes(slot)) continue;
      survivors++;
      candidates.push(slot, this.score(space, query, qNorm, slot));
    }
    return survivors >= want ? candidates : undefined;
  }

  /** Saves every changed space, then the manifest (with `checkpoint` when given). */
  flushSync(checkpoint?: number): void {
    this.assertOpen();
    for (const org of this.removedOrgs) {
      if (this.spaces.has(org)) continue;
      for (const p of [this.metaPath(org), this.vectorsPath(org), this.indexPath(org)]) rmSync(p, { force: true });
    }
    this.removedOrgs.clear();
    for (const space of this.spaces.values()) {
      // usearch reuses freed nodes (no bloat), so only rebuild after very heavy churn: a
      // rebuild blocks for seconds at 100k vectors
      if (space.churn > Math.max(10_000, space.size * 2)) space.rebuild();
      if (space.dirty) this.saveSpace(space);
    }
    if (checkpoint !== undefined) this.checkpoint = checkpoint;
    writeAtomic(join(this.dir, MANIFEST), JSON.stringify({ version: FORMAT_VERSION, checkpoint: this.checkpoint ?? null }));
  }

  /** Rebuilds an organization's HNSW graph from the stored vectors (blocks; O(n log n)). */
  compactSync(org: string): void {
    this.assertOpen();
    this.spaces.get(org)?.rebuild();
  }

  /** The checkpoint stored by the last `flushSync(checkpoint)`, as loaded or set since. */
  getCheckpoint(): number | undefined {
    return this.checkpoint;
  }

  // ---- port ----

  async configure(org: string, config: VectorSpaceConfig): Promise<void> {
    this.configureSync(org, config);
  }

  async upsert(org: string, items: VectorItem[]): Promise<void> {
    this.upsertSync(org, items);
  }

  async remove(org: string, uids: string[]): Promise<void> {
    this.removeSync(org, uids);
  }

  async removeOrg(org: string): Promise<void> {
    this.removeOrgSync(org);
  }

  async search(q: VectorQuery): Promise<VectorHit[]> {
    return this.searchSync(q);
  }

  async count(org: string): Promise<number> {
    return this.countSync(org);
  }

  async flush(): Promise<void> {
    this.flushSync();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.flushSync();
    this.spaces.clear();
    this.closed = true;
    this.notifyIndexed();
  }

  // ---- internals ----

  private score(space: Space, query: Float32Array, qNorm: number, slot: number): number {
    return similarity(space.metric, query, space.vectors.chunk(slot), space.vectors.offset(slot), space.dimensions, qNorm, space.norms[slot]);
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('EmbeddedVectorIndex is closed');
  }

  private fileBase(org: string): string {
    return join(this.dir, `org-${createHash('sha256').update(org).digest('hex').slice(0, 40)}`);
  }
  private metaPath(org: string): string {
    return `${this.fileBase(org)}.json`;
  }
  private vectorsPath(org: string): string {
    return `${this.fileBase(org)}.f32`;
  }
  private indexPath(org: string): string {
    return `${this.fileBase(org)}.usearch`;
  }

  private saveSpace(space: Space): void {
    const highWater = space.uids.length;
    // the chunks in order: the same row-major bytes one array held
    const parts = [...space.vectors.segments(highWater)].map((seg) => Buffer.from(seg.rows.buffer, seg.rows.byteOffset, seg.rows.byteLength));
    writeAtomic(this.vectorsPath(space.org), parts);
    const tmpIndex = `${this.indexPath(space.org)}.tmp`;
    space.index.save(tmpIndex);
    renameSync(tmpIndex, this.indexPath(space.org));
    const meta: SpaceMeta = {
      version: FORMAT_VERSION,
      org: space.org,
      dimensions: space.dimensions,
      metric: space.metric,
      uids: space.uids,
      types: space.types,
      layers: space.layers,
      churn: space.churn,
      pending: [...space.pending],
    };
    // meta last: it is what load() trusts, the others are checked against it
    writeAtomic(this.metaPath(space.org), JSON.stringify(meta));
    space.dirty = false;
  }

  private load(): void {
    const manifestPath = join(this.dir, MANIFEST);
    if (existsSync(manifestPath)) {
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { checkpoint?: number | null };
      this.checkpoint = manifest.checkpoint ?? undefined;
    }
    for (const name of readdirSync(this.dir)) {
      if (!/^org-[0-9a-f]{40}\.json$/.test(name)) continue;
      const meta = JSON.parse(readFileSync(join(this.dir, name), 'utf8')) as SpaceMeta;
      if (meta.version !== FORMAT_VERSION) continue;
      const space = new Space(meta.org, meta.dimensions, meta.metric, this.hnsw, this.scanLimit);
      const d = meta.dimensions;
      const raw = existsSync(this.vectorsPath(meta.org)) ? readFileSync(this.vectorsPath(meta.org)) : Buffer.alloc(0);
      if (raw.length !== meta.uids.length * d * 4) {
        // vectors and meta disagree (interrupted flush): start this space empty; a projection
        // rebuild restores it from the log
        space.dirty = true;
        this.spaces.set(meta.org, space);
        continue;
      }
      space.ensureCapacity(Math.max(1, meta.uids.length));
      space.vectors.loadBytes(raw, meta.uids.length);
      space.uids = meta.uids;
      space.types = meta.types;
      space.layers = meta.layers;
      space.churn = meta.churn;
      for (let slot = 0; slot < meta.uids.length; slot++) {
        const uid = meta.uids[slot];
        if (!uid) {
          space.free.push(slot);
          continue;
        }
        space.slotOf.set(uid, slot);
        space.refreshDerived(slot);
        space.countTag(slot, +1);
      }
      space.free.reverse(); // pop() hands out the lowest free slot first
      let loaded = false;
      if (existsSync(this.indexPath(meta.org))) {
        try {
          space.index.load(this.indexPath(meta.org));
          const pending = (meta.pending ?? []).filter((slot) => !!meta.uids[slot]);
          loaded = space.index.size() === space.size - pending.length && space.index.dimensions() === d;
          if (loaded) for (const slot of pending) space.pending.add(slot);
        } catch {
          loaded = false;
        }
      }
      if (!loaded) space.rebuild();
      else space.dirty = false;
      this.spaces.set(meta.org, space);
    }
    if (this.pendingCount() > 0) this.scheduleIndexing();
  }
}

function writeAtomic(path: string, data: string | Buffer | Buffer[]): void {
  const tmp = `${path}.tmp`;
  if (Array.isArray(data)) {
    const fd = openSync(tmp, 'w');
    try {
      for (const part of data) for (let at = 0; at < part.length; ) at += writeSync(fd, part, at);
    } finally {
      closeSync(fd);
    }
  } else writeFileSync(tmp, data);
  renameSync(tmp, path);
}
