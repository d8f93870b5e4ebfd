import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { RecordedEvent, unhandled } from '@strata/domain/events';
import { VectorFacts, VectorWrite, planVectorWrites } from '@strata/projections/vector-writes';
import { NodeRecord } from '@strata/domain/records';
import { embeddingTextOf } from '@strata/domain/retrieval';
import type { SqliteGraphStore } from '@strata/graph-store/sqlite/sqlite-graph-store';
import type { EmbeddedVectorIndex } from '@strata/vector-index/embedded/embedded-vector-index';
import type { VectorItem } from '@strata/vector-index/vector-index.port';
import { EffectiveEmbeddingConfig, EmbeddingSettings } from '../embeddings/embedding-settings.service';

/** Per organization: pinned (explicit) vectors, provider text hashes, a pending backfill. */
interface OrgState {
  pinned: Set<string>;
  hashes: Map<string, string>;
  backfill: boolean;
}

export const STATE_FILE = 'retrieval-state.json';

/**
 * Bump when the vectors this projection computes change (another embedding text, another
 * rule): the service then rebuilds the index from the log beside the stored one and swaps it
 * in, as it does for the SQLite projections. Saved in the state file as `projection_version`.
 * 2: a string repeated among a node's label, summary and props is embedded once.
 * 3: a domain object's text holds the string values of its `fields`.
 */
export const VECTOR_PROJECTION_VERSION = 3;

/**
 * Keeps the vector index in step with the log. Applied after each commit and, at start-up,
 * from its own checkpoint (stored in the index manifest). With the built-in embedder the
 * vector of a node is computed here, from the event (deterministic, so a rebuild needs no
 * provider); vectors from external providers and clients arrive as `EmbeddingSet` events.
 * Tombstones remove vectors, restores put them back, purge and clear drop them.
 *
 * The configuration applied is the organization's current one, so a replay converges on
 * the present state. When the configuration changes, the affected organization is marked for
 * a backfill that re-embeds its live nodes in the background (`runBackfills`).
 */
export class VectorProjection {
  private readonly log = new Logger('VectorProjection');
  private readonly orgs = new Map<string, OrgState>();
  private pending = new Map<string, Map<string, VectorItem>>();
  private readonly configs = new Map<string, EffectiveEmbeddingConfig | null>();
  private appliedPosition = 0;
  private dirty = false;
  /** the code version the stored index was built by (kept on every save until a rebuild replaces it) */
  builtVersion = VECTOR_PROJECTION_VERSION;

  constructor(
    readonly index: EmbeddedVectorIndex,
    private readonly graph: SqliteGraphStore,
    private readonly settings: EmbeddingSettings,
    private readonly dir: string,
  ) {
    this.appliedPosition = index.getCheckpoint() ?? 0;
    this.loadState();
  }

  get position(): number {
    return this.appliedPosition;
  }

  /** The organization's configuration, read once per applied batch (it changes only by event). */
  config(org: string): EffectiveEmbeddingConfig | null {
    let c = this.configs.get(org);
    if (c === undefined) {
      c = this.settings.effectiveSync(this.graph.embeddingConfigSync(org));
      this.configs.set(org, c);
    }
    return c;
  }

  isPinned(org: string, uid: string): boolean {
    return this.orgs.get(org)?.pinned.has(uid) ?? false;
  }

  providerHash(org: string, uid: string): string | undefined {
    return this.orgs.get(org)?.hashes.get(uid);
  }

  /** Organizations waiting for a backfill (re-embedding after a configuration change). */
  backfillsPending(): string[] {
    return [...this.orgs].filter(([, s]) => s.backfill).map(([o]) => o);
  }

  backfillDone(org: string): void {
    const s = this.orgs.get(org);
    if (s) s.backfill = false;
    this.dirty = true;
  }

  /**
   * Applies committed events in log order; events at or before the checkpoint are skipped.
   * What they do to the index is planned by `planVectorWrites`, the rules the servers' Qdrant
   * projection executes too; this side keeps the pinned vectors and provider hashes the
   * planner asks about, and executes on the embedded index.
   */
  apply(events: RecordedEvent[]): void {
    this.configs.clear();
    const fresh = events.filter((e) => e.position > this.appliedPosition);
    if (!fresh.length) return;
    for (const e of fresh) this.follow(e);
    let writes: VectorWrite[] = [];
    try {
      writes = planVectorWrites(fresh, this.facts());
    } catch (err) {
      // a batch that cannot be planned must not stop the projection (the log is the truth)
      this.log.warn(`events ${fresh[0].position}..${fresh[fresh.length - 1].position} not indexed: ${(err as Error).message}`);
    }
    for (const w of writes) {
      try {
        this.execute(w);
      } catch (err) {
        this.log.warn(`vector ${w.kind} for ${w.org} not applied: ${(err as Error).message}`);
      }
    }
    this.appliedPosition = fresh[fresh.length - 1].position;
    this.dirty = true;
    this.flushPending();
  }

  /** Embeds live nodes of an org into the index (backfill chunk); pinned vectors are kept. */
  embedNodes(org: string, nodes: NodeRecord[]): number {
    this.configs.delete(org);
    const cfg = this.config(org);
    const embedder = this.settings.embedder(cfg);
    if (!cfg || cfg.provider !== 'builtin' || !embedder?.embedSync) return 0;
    this.ensureSpace(org, cfg);
    const toEmbed = nodes.filter((n) => n.tombstone_at === null && !this.isPinned(org, n.uid));
    if (!toEmbed.length) return 0;
    const vectors = embedder.embedSync(toEmbed.map(embeddingTextOf));
    this.index.upsertSync(org, toEmbed.map((n, i) => ({ uid: n.uid, vector: vectors[i], node_type: n.node_type, layer: n.layer })));
    this.dirty = true;
    return toEmbed.length;
  }

  /** Persists the index and this projection's state, then the checkpoint (`force`: even unchanged, e.g. a fresh rebuild). */
  flush(force = false): void {
    if (!this.dirty && !force) return;
    this.saveState();
    this.index.flushSync(this.appliedPosition);
    this.dirty = false;
  }

  // ---------- per event ----------

  private state(org: string): OrgState {
    let s = this.orgs.get(org);
    if (!s) this.orgs.set(org, (s = { pinned: new Set(), hashes: new Map(), backfill: false }));
    return s;
  }

  /** Creates or re-creates the org's space for its configuration (a change drops every vector). */
  private ensureSpace(org: string, cfg: EffectiveEmbeddingConfig): void {
    const cur = this.index.configOf(org);
    if (cur && cur.dimensions === cfg.dimensions && cur.metric === cfg.distance_metric) return;
    this.flushPending();
    this.index.configureSync(org, { dimensions: cfg.dimensions, metric: cfg.distance_metric });
    if (cur) {
      // a different space: everything must be embedded again
      const s = this.state(org);
      s.pinned.clear();
      s.hashes.clear();
      s.backfill = cfg.provider === 'builtin';
    }
  }

  /** Pinned vectors and provider hashes as of each event (the planner reads them at the batch's end). */
  private follow(e: RecordedEvent): void {
    const org = e.metadata.org_id;
    switch (e.type) {
      case 'EmbeddingSet': {
        const d = e.data;
        const s = this.state(org);
        if (d.source === 'explicit') s.pinned.add(d.uid);
        else s.pinned.delete(d.uid);
        if (d.text_hash) s.hashes.set(d.uid, d.text_hash);
        else s.hashes.delete(d.uid);
        return;
      }
      case 'EmbeddingDeleted':
        return this.forget(org, [e.data.uid]);
      case 'GraphPurged':
        return this.forget(org, e.data.node_uids);
      case 'GraphCleared':
        this.orgs.delete(org);
        return;
      default:
        return;
    }
  }

  private forget(org: string, uids: string[]): void {
    const s = this.orgs.get(org);
    if (!s) return;
    for (const u of uids) {
      s.pinned.delete(u);
      s.hashes.delete(u);
    }
  }

  private facts(): VectorFacts {
    return {
      space: (org) => {
        const cfg = this.config(org);
        return cfg ? { dimensions: cfg.dimensions, metric: cfg.distance_metric, builtin: cfg.provider === 'builtin' } : null;
      },
      pinned: (org, uid) => this.isPinned(org, uid),
      stored: (org, uid) => this.graph.getEmbeddingSync(org, uid)?.vector,
      node: (org, uid) => this.graph.getNodeSync(org, uid) ?? undefined,
    };
  }

  private execute(w: VectorWrite): void {
    switch (w.kind) {
      case 'configure': {
        const cfg = this.config(w.org);
        if (cfg) this.ensureSpace(w.org, cfg);
        return;
      }
      case 'upsert': {
        const cfg = this.config(w.org);
        if (!cfg) return;
        const texts = w.items.filter((i) => i.vector === undefined).map((i) => i.text ?? '');
        const embedder = texts.length ? this.settings.embedder(cfg) : null;
        if (texts.length && !embedder?.embedSync) return;
        const computed = texts.length ? embedder!.embedSync!(texts) : [];
        let k = 0;
        for (const i of w.items) this.queue(w.org, { uid: i.uid, node_type: i.node_type, layer: i.layer, vector: i.vector ?? computed[k++] });
        return;
      }
      case 'remove':
        return this.remove(w.org, w.uids);
      case 'removeOrg':
        this.configs.delete(w.org);
        this.flushPending();
        this.index.removeOrgSync(w.org);
        return;
      case 'backfill':
        // re-embedded in the background (runBackfills), a page at a time
        this.state(w.org).backfill = true;
        return;
      default:
        return unhandled(w);
    }
  }

  private queue(org: string, item: VectorItem): void {
    let m = this.pending.get(org);
    if (!m) this.pending.set(org, (m = new Map()));
    m.set(item.uid, item);
  }

  private remove(org: string, uids: string[]): void {
    const m = this.pending.get(org);
    if (m) for (const u of uids) m.delete(u);
    if (this.index.configOf(org)) this.index.removeSync(org, uids);
  }

  /** Upserts are batched per commit: one HNSW insertion call per organization. */
  private flushPending(): void {
    if (!this.pending.size) return;
    const pending = this.pending;
    this.pending = new Map();
    for (const [org, items] of pending) if (items.size && this.index.configOf(org)) this.index.upsertSync(org, [...items.values()]);
  }

  // ---------- state file (written with the index, before its manifest) ----------

  private loadState(): void {
    const file = join(this.dir, STATE_FILE);
    if (!existsSync(file)) return;
    try {
      const raw = JSON.parse(readFileSync(file, 'utf8')) as {
        projection_version?: number;
        orgs?: Record<string, { pinned: string[]; hashes: Record<string, string>; backfill: boolean }>;
      };
      // files from before the field were written by version 1
      this.builtVersion = typeof raw.projection_version === 'number' ? raw.projection_version : 1;
      for (const [org, s] of Object.entries(raw.orgs ?? {}))
        this.orgs.set(org, { pinned: new Set(s.pinned), hashes: new Map(Object.entries(s.hashes)), backfill: s.backfill });
    } catch (err) {
      this.log.warn(`ignoring unreadable ${STATE_FILE}: ${(err as Error).message}`);
    }
  }

  private saveState(): void {
    const orgs: Record<string, unknown> = {};
    for (const [org, s] of this.orgs)
      orgs[org] = { pinned: [...s.pinned], hashes: Object.fromEntries(s.hashes), backfill: s.backfill };
    const file = join(this.dir, STATE_FILE);
    writeFileSync(`${file}.tmp`, JSON.stringify({ version: 1, projection_version: this.builtVersion, orgs }));
    renameSync(`${file}.tmp`, file);
  }
}
