import { GraphChanges } from '@strata/domain/graph';
import { Inject, Injectable } from '@nestjs/common';
import { cacheOf, nextCache } from '@strata/domain/cognitive/series-points';
import { Streams } from '@strata/domain/events';
import { ImportCounts, ParsedSnapshot, checkReferences, parseSnapshot } from '@strata/domain/maintenance';
import { Layer, NodeRecord } from '@strata/domain/records';
import { embeddingTextOf } from '@strata/domain/retrieval/embedding-text';
import { CLOCK, Clock } from '@strata/domain/time';
import { Body } from '@strata/domain/validation';
import { GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { RecordedEmbedding, textHash } from '@strata/domain/retrieval/embedding-events';
import { EmbeddingSpace, ServerEmbeddingDefault, sameEmbeddingSpace } from './server-embedding-default';

export const IMPORT_REASON = 'import';
const LOOKUP_CHUNK = 500;

interface NodeHead {
  node_type: string;
  layer: Layer;
}

/** Type and layer of the given uids that exist in the graph (live or tombstoned). */
async function nodeHeads(reader: GraphReadModel, org: string, uids: Iterable<string>): Promise<Map<string, NodeHead>> {
  const all = [...new Set(uids)];
  const out = new Map<string, NodeHead>();
  for (let i = 0; i < all.length; i += LOOKUP_CHUNK) {
    const found = await reader.getNodes(org, all.slice(i, i + LOOKUP_CHUNK));
    for (const [uid, n] of found) out.set(uid, { node_type: n.node_type, layer: n.layer });
  }
  return out;
}

/**
 * Where an imported vector counts as coming from. The built-in embedder's vectors are never
 * recorded, so with it every exported vector was a client's (kept: pinned). With an external
 * provider the vector is taken as the provider's for the node's current text, so unchanged
 * nodes are not sent to the provider again and changed ones are re-embedded.
 */
async function vectorSource(tx: GraphTx, provider: string, uid: string, importedNode: NodeRecord | undefined): Promise<Pick<RecordedEmbedding, 'source' | 'text_hash'>> {
  if (provider === 'builtin') return { source: 'explicit', text_hash: null };
  const node = importedNode ?? (await tx.reader.getNode(tx.org, uid));
  return { source: 'provider', text_hash: node ? textHash(embeddingTextOf(node)) : null };
}

/**
 * Stages an import (REFERENCE §8.6) on one transaction: additive — objects that exist are
 * skipped, never changed — and idempotent, so a second import of the same snapshot writes
 * nothing. Each imported node and edge gets one version record: create, reason `import`;
 * a node keeps the decay clock (`last_decayed_at`) the snapshot gives it.
 * `serverDefault` is the embedding configuration in force for an organization that never
 * configured its own (null: embeddings off).
 */
async function stageImport(tx: GraphTx, snap: ParsedSnapshot, serverDefault: EmbeddingSpace | null, progress: (n?: number) => void = () => undefined): Promise<ImportCounts> {
  const { org, reader } = tx;
  const counts: ImportCounts = {
    nodes_imported: 0,
    nodes_skipped: 0,
    edges_imported: 0,
    edges_skipped: 0,
    aliases_imported: 0,
    embeddings_imported: 0,
    embeddings_skipped: 0,
    series_points_imported: 0,
  };
  const present = await nodeHeads(reader, org, snap.nodes.map((n) => n.uid));
  const outside = await nodeHeads(reader, org, snap.references.map((r) => r.uid));
  checkReferences(snap.references, (uid) => outside.get(uid)?.node_type ?? null);

  const imported = new Set<string>();
  const layerOf = new Map<string, Layer>();
  for (const n of snap.nodes) {
    progress();
    layerOf.set(n.uid, n.layer);
    if (present.has(n.uid)) {
      counts.nodes_skipped++;
      continue;
    }
    // the node's decay clock comes along, so decay here counts from where the source's stopped
    tx.emit(GraphChanges.nodeCreated(tx.org, n, IMPORT_REASON, snap.decay_clocks.get(n.uid) ?? null));
    imported.add(n.uid);
    counts.nodes_imported++;
  }

  for (const e of snap.edges) {
    progress();
    if ((await reader.edgeRevision(org, e.uid)) >= 0) {
      counts.edges_skipped++;
      continue;
    }
    // an edge's layer is its from-node's (REFERENCE §3.3) when the snapshot does not say
    const layer = e.layer ?? layerOf.get(e.from_uid) ?? outside.get(e.from_uid)!.layer;
    tx.emit(Streams.edge(org, e.uid), 'EdgeCreated', { edge: { ...e, layer }, reason: IMPORT_REASON }, 'no_stream');
    counts.edges_imported++;
  }

  const knownAliases = new Map<string, Set<string>>();
  for (const a of snap.aliases) {
    progress();
    if (!imported.has(a.canonical_uid)) {
      let norms = knownAliases.get(a.canonical_uid);
      if (!norms) knownAliases.set(a.canonical_uid, (norms = new Set((await reader.aliasesOf(org, a.canonical_uid)).map((x) => x.norm))));
      if (norms.has(a.norm)) continue;
    }
    tx.emit(Streams.node(org, a.canonical_uid), 'AliasSet', { text: a.text, norm: a.norm, canonical_uid: a.canonical_uid, score: a.score, created_at: a.created_at });
    counts.aliases_imported++;
  }

  if (snap.embeddings) {
    const s = snap.embeddings;
    let config: EmbeddingSpace | null = await reader.embeddingConfig(org);
    if (!config) {
      const snapshotSpace: EmbeddingSpace = { provider: s.provider, model: s.model, dimensions: s.dimension, distance_metric: s.metric };
      if (serverDefault && sameEmbeddingSpace(serverDefault, snapshotSpace)) {
        // the server default the organization runs on already is the snapshot's: nothing to adopt
        config = serverDefault;
      } else {
        // no configuration yet: the snapshot's is adopted
        const adopted = { ...snapshotSpace, configured_at: tx.now };
        tx.emit(Streams.graph(org), 'EmbeddingConfigured', { ...adopted, dropped: false });
        config = adopted;
      }
    }
    // vectors of another model or space would be meaningless here: skipped
    const matches = config.model === s.model && config.dimensions === s.dimension && config.distance_metric === s.metric;
    const importedNodes = new Map<string, NodeRecord>(snap.nodes.filter((n) => imported.has(n.uid)).map((n) => [n.uid, n]));
    for (const item of s.items) {
      progress();
      if (!matches || (!imported.has(item.uid) && (await reader.getEmbedding(org, item.uid)) !== null)) {
        counts.embeddings_skipped++;
        continue;
      }
      const data: RecordedEmbedding = { uid: item.uid, vector: item.vector, model: s.model, updated_at: tx.now, ...(await vectorSource(tx, config.provider, item.uid, importedNodes.get(item.uid))) };
      tx.emit(Streams.embedding(org, item.uid), 'EmbeddingSet', data);
      counts.embeddings_imported++;
    }
  }

  for (const [seriesUid, points] of snap.series) {
    progress(points.length);
    let fresh = points;
    let have: Set<number> | null = null;
    if (!imported.has(seriesUid)) {
      const stored = await reader.seriesPoints(org, seriesUid, { limit: 100_000_000, offset: 0 });
      have = new Set(stored.items.map((p) => p.ts));
      fresh = points.filter((p) => !have!.has(p.ts));
    }
    if (!fresh.length) continue;
    const stored = fresh.map(({ ts, value, source_uid, note, recorded_at }) => ({ ts, value, source_uid, note, recorded_at }));
    tx.emit(Streams.series(org, seriesUid), 'SeriesPointsAppended', { series_uid: seriesUid, points: stored });
    counts.series_points_imported += fresh.length;
    if (have) {
      // an imported Series carries its cache; one that was already here must count the new points
      const node = (await tx.node(seriesUid))!;
      tx.emit(GraphChanges.nodeTouched(tx.org, seriesUid, { ...nextCache(cacheOf(node.props, have.size), stored, new Set()).cache }, tx.now));
    }
  }
  return counts;
}

/** Objects of a validated snapshot, as the staging progress counts them (each series point counts). */
export function snapshotObjectCount(snap: ParsedSnapshot): number {
  let points = 0;
  for (const p of snap.series.values()) points += p.length;
  return snap.nodes.length + snap.edges.length + snap.aliases.length + (snap.embeddings?.items.length ?? 0) + points;
}

/**
 * Imports a `strata.graph` snapshot into an organization: validated in full first (nothing
 * is written on any error), then committed as one atomic append. Used by `POST /import` and
 * by the CLI (`strata import`) through a Nest application context.
 */
@Injectable()
export class ImportService {
  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly embeddingDefault: ServerEmbeddingDefault,
  ) {}

  async importSnapshot(ctx: CommandContext, body: Body): Promise<ImportCounts> {
    return this.importParsed(ctx, this.parse(body));
  }

  /**
   * Validates a whole snapshot (REFERENCE §8.6: before anything is written). The result holds
   * no reference to `body`, so a caller that drops the request body frees it for the write.
   */
  parse(body: Body): ParsedSnapshot {
    return parseSnapshot(body, this.clock.now());
  }

  /**
   * Imports a snapshot validated by `parse`, as one atomic append. `onStaged` is told the
   * objects staged so far (of `snapshotObjectCount`), for progress reports.
   */
  importParsed(ctx: CommandContext, parsed: ParsedSnapshot, onStaged?: (done: number, total: number) => void): Promise<ImportCounts> {
    const total = onStaged ? snapshotObjectCount(parsed) : 0;
    let done = 0;
    const progress = onStaged ? (n = 1) => onStaged((done += n), total) : undefined;
    return this.uow.run(ctx, (tx) => stageImport(tx, parsed, this.embeddingDefault.get(), progress));
  }
}
