import { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { GraphSnapshot, SNAPSHOT_FORMAT, SNAPSHOT_FORMAT_VERSION, SnapshotCounts } from '@strata/domain/maintenance';
import { CLOCK, Clock } from '@strata/domain/time';
import { Body, coerceQuery, readBoolean } from '@strata/domain/validation';
import type { SnapshotAliasRow, SnapshotScope, SnapshotSource } from '@strata/graph-store/maintenance-reads.port';
import type { SeriesPointRow } from '@strata/graph-store/graph-read-model.port';
import { MAINTENANCE_STORE, MaintenanceStore } from './maintenance-store';
import { EmbeddingSpace, ServerEmbeddingDefault } from './server-embedding-default';

export interface ExportOptions {
  include_tombstoned: boolean;
  include_embeddings: boolean;
}

/** `GET /export` query: `include_tombstoned` (false), `include_embeddings` (true). */
export function readExportOptions(query: Body): ExportOptions {
  const q = coerceQuery(query, [], ['include_tombstoned', 'include_embeddings']);
  return {
    include_tombstoned: readBoolean(q, 'include_tombstoned') ?? false,
    include_embeddings: readBoolean(q, 'include_embeddings') ?? true,
  };
}

/** Text is handed to the socket in pieces of about this many characters. */
const CHUNK_CHARS = 64 * 1024;

async function* jsonArray(items: AsyncIterable<string> | Iterable<string>): AsyncGenerator<string> {
  let buf = '[';
  let first = true;
  for await (const item of items) {
    buf += first ? item : ',' + item;
    first = false;
    if (buf.length >= CHUNK_CHARS) {
      yield buf;
      buf = '';
    }
  }
  yield buf + ']';
}

async function* mapIter<T>(items: AsyncIterable<T> | Iterable<T>, f: (t: T) => string): AsyncGenerator<string> {
  for await (const t of items) yield f(t);
}

async function* keepOnly<T>(items: AsyncIterable<T> | Iterable<T>, keep: ((t: T) => boolean) | null): AsyncGenerator<T> {
  for await (const t of items) if (keep === null || keep(t)) yield t;
}

async function countOf<T>(items: AsyncIterable<T>): Promise<number> {
  let n = 0;
  for await (const _ of items) n++;
  return n;
}

/** Which objects a caller may take out: a node by uid; everything else follows its nodes. */
export type ExportVisibility = (uid: string) => boolean;

/** Per-section filters for a caller who may not see every node (null: everything goes out). */
function sectionFilters(visible: ExportVisibility | null) {
  if (visible === null) return { node: null, edge: null, alias: null, embedding: null, point: null };
  return {
    node: (doc: string) => visible((JSON.parse(doc) as { uid: string }).uid),
    edge: (doc: string) => {
      const e = JSON.parse(doc) as { from_uid: string; to_uid: string };
      return visible(e.from_uid) && visible(e.to_uid);
    },
    alias: (a: SnapshotAliasRow) => visible(a.canonical_uid),
    embedding: (e: { uid: string }) => visible(e.uid),
    point: (p: SeriesPointRow) => visible(p.series_uid),
  };
}

/**
 * Writes a `strata.graph` v1 snapshot (REFERENCE §8.6) as JSON text, section by section, from
 * one consistent read of the graph. Node and edge records go out as stored, without a
 * parse/serialise round trip; a node decayed by `POST /decay` also carries its decay clock,
 * `last_decayed_at`, which import restores. Version history is not exported. The reader is
 * closed when the text ends, fails or is abandoned (a generator's finally runs on return()).
 *
 * The embeddings section names the configuration in force — the organization's own, else the
 * server default it runs on when it never configured one (`serverDefault`; null when the
 * operator turned embeddings off) — and carries every RECORDED vector of an exported node:
 * those set by clients (`PUT /node/{uid}/embedding`) and those from an external provider
 * (`EmbeddingSet` events). Those cannot be recomputed from the snapshot, so they are never
 * left out. The built-in lexical embedder's vectors are not recorded: they are derived from
 * each node's text and recomputed wherever the snapshot is imported, so they are not carried.
 */
async function* snapshotText(
  reader: SnapshotSource,
  org: string,
  opts: ExportOptions,
  exportedAt: number,
  serverDefault: EmbeddingSpace | null,
  visible: ExportVisibility | null,
): AsyncGenerator<string> {
  try {
    const scope: SnapshotScope = { include_tombstoned: opts.include_tombstoned };
    const config = opts.include_embeddings ? ((await reader.embeddingConfig(org)) ?? serverDefault) : null;
    const only = sectionFilters(visible);
    // a caller who may not see everything gets counts of what it is given: one more pass over
    // the same pinned read, for those callers only
    const counts: SnapshotCounts =
      visible === null
        ? {
            nodes: await reader.count('nodes', org, scope),
            edges: await reader.count('edges', org, scope),
            aliases: await reader.count('aliases', org, scope),
            embeddings: config ? await reader.count('embeddings', org, scope) : 0,
            series_points: await reader.count('series_points', org, scope),
          }
        : {
            nodes: await countOf(keepOnly(reader.nodeDocs(org, scope), only.node)),
            edges: await countOf(keepOnly(reader.edgeDocs(org, scope), only.edge)),
            aliases: await countOf(keepOnly(reader.aliases(org, scope), only.alias)),
            embeddings: config ? await countOf(keepOnly(reader.embeddings(org, scope), only.embedding)) : 0,
            series_points: await countOf(keepOnly(reader.seriesPoints(org, scope), only.point)),
          };
    const head = JSON.stringify({ format: SNAPSHOT_FORMAT, format_version: SNAPSHOT_FORMAT_VERSION, exported_at: exportedAt, counts });
    yield head.slice(0, -1) + ',"nodes":';
    yield* jsonArray(keepOnly(reader.nodeDocs(org, scope), only.node));
    yield ',"edges":';
    yield* jsonArray(keepOnly(reader.edgeDocs(org, scope), only.edge));
    yield ',"aliases":';
    yield* jsonArray(mapIter(keepOnly(reader.aliases(org, scope), only.alias), (a) => JSON.stringify(a)));
    yield ',"embeddings":';
    if (!config) yield 'null';
    else {
      const c = { model: config.model, dimension: config.dimensions, metric: config.distance_metric, provider: config.provider };
      yield JSON.stringify(c).slice(0, -1) + ',"items":';
      yield* jsonArray(mapIter(keepOnly(reader.embeddings(org, scope), only.embedding), (e) => JSON.stringify(e)));
      yield '}';
    }
    yield ',"series_points":';
    yield* jsonArray(mapIter(keepOnly(reader.seriesPoints(org, scope), only.point), (p) => JSON.stringify(p)));
    yield '}';
  } finally {
    await reader.close();
  }
}

/**
 * Exports an organization's graph. Used by `GET /export` and by the CLI (`strata export`)
 * through a Nest application context.
 */
@Injectable()
export class ExportService {
  constructor(
    @Inject(MAINTENANCE_STORE) private readonly store: MaintenanceStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly embeddingDefault: ServerEmbeddingDefault,
  ) {}

  /**
   * The snapshot as a stream of JSON text. The read is pinned when this returns, so writes
   * made while the stream is consumed are not in it; the graph never sits in memory whole.
   */
  stream(org: string, opts: ExportOptions = { include_tombstoned: false, include_embeddings: true }, visible: ExportVisibility | null = null): Readable {
    const reader = this.store.openSnapshot();
    return Readable.from(snapshotText(reader, org, opts, this.clock.now(), this.embeddingDefault.get(), visible), { objectMode: false, highWaterMark: CHUNK_CHARS });
  }

  /** The whole snapshot as an object (small graphs, tests). */
  async snapshot(org: string, opts?: ExportOptions, visible: ExportVisibility | null = null): Promise<GraphSnapshot> {
    const parts: Buffer[] = [];
    for await (const chunk of this.stream(org, opts, visible)) parts.push(chunk as Buffer);
    return JSON.parse(Buffer.concat(parts).toString('utf8')) as GraphSnapshot;
  }
}
