import { Inject, Injectable } from '@nestjs/common';
import { Layer, NodeRecord } from '@strata/domain/records';
import { ExtractionContext, Extractor, LayerOutcome } from '@strata/extraction';
import { PageOffset, chunkOfReason } from '@strata/domain/ingestion';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { decideCreateEdge, decideCreateNode, decideUpdateNode, triggerEdgeProps, GraphChanges } from '@strata/domain/graph';
import { EntityMention } from '@strata/domain/ontology';
import { DedupCache } from './dedup-cache';
import { OntologyPass, OntologyRun } from './ontology-pass';
import { DedupIndex } from './dedup-index';
import { ChunkExtractionCounts, stageExtraction } from './stage-extraction';

export interface ChunkOutcome extends ChunkExtractionCounts {
  status: 'completed' | 'failed' | 'skipped';
  errors: { layer: Layer; error: string }[];
  /** what the ontology pass did, when it ran */
  ontology?: OntologyTally;
}

export interface OntologyTally {
  schema_id?: string;
  proposals_created: number;
  auto_applied: number;
  objects_linked: number;
}

/**
 * A chunk of a job's content not yet in the graph: the unit that commits its extraction (or
 * its failure) creates it with its final status, under `chunk`'s uid, which the job derives
 * from the document and the chunk's index so that no two attempts can create it twice.
 */
export interface ChunkDraft {
  document_uid: string;
  label: string;
  props: Record<string, unknown>;
}

/** One Chunk with its passes already run, ready to commit: an existing (pending) one, or one to create (`draft`). */
export interface ExtractedChunk {
  /** the chunk as stored, or as it will be created (`draft`) */
  chunk: NodeRecord;
  draft?: ChunkDraft;
  outcomes: readonly LayerOutcome[];
  method: Extractor['method'];
  /** the ontology pass's run and the entities it found in the chunk, when the job asked for it */
  ontology?: { run: OntologyRun; entities: EntityMention[] };
}

export interface ChunkPlacement {
  /** the document's page map (for page numbers in the quotes' locations) */
  pages?: readonly PageOffset[];
  /** what deduplication compares with; a job keeps one across its chunks */
  dedup: DedupCache;
}

const failedPasses = (outcomes: readonly LayerOutcome[]) =>
  outcomes.filter((o): o is { layer: Layer; error: string } => 'error' in o).map((o) => ({ layer: o.layer, error: o.error }));

const EMPTY = { nodes_created: 0, nodes_deduplicated: 0, edges_created: 0, extracted_node_uids: [] as string[] };

/**
 * Chunks of a document job through extraction: the passes run first, outside any transaction
 * (`extract`); then `commit` stages several extracted chunks in ONE unit of work, each chunk's
 * nodes, edges and `completed` status together (or, when every pass failed, only its `failed`
 * status): one append and one fsync for the lot, and each chunk still all or nothing. A chunk
 * the graph does not hold yet (`draft`) is created by that unit with its final status. A chunk
 * found already completed inside the unit (another attempt committed it) is left alone, and two
 * attempts creating one drafted chunk collide on its uid: no chunk is ever extracted into the
 * graph twice.
 */
@Injectable()
export class ChunkExtractionService {
  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    private readonly ontology: OntologyPass,
  ) {}

  /**
   * The chunk's layer passes (no transaction, no write): the catalogue's layers through the
   * extractor, the `ontology` layer through the entity finder of the run.
   */
  async extract(org: string, extractor: Extractor, chunk: NodeRecord, layers: readonly Layer[], context?: ExtractionContext, signal?: AbortSignal, run?: OntologyRun): Promise<ExtractedChunk> {
    return { chunk, method: extractor.method, ...(await this.passes(org, extractor, chunkContent(chunk), layers, { context, signal, run })) };
  }

  /** The passes over a text, in the order of `layers`; an `ontology` layer without a run is a failed pass. */
  async passes(
    org: string,
    extractor: Extractor,
    content: string,
    layers: readonly Layer[],
    opts: { context?: ExtractionContext; signal?: AbortSignal; run?: OntologyRun },
  ): Promise<{ outcomes: LayerOutcome[]; ontology?: { run: OntologyRun; entities: EntityMention[] } }> {
    const catalogue = layers.filter((l) => l !== 'ontology');
    const wantsOntology = layers.includes('ontology');
    const [found, onto] = await Promise.all([
      catalogue.length ? extractor.extract({ content, layers: catalogue, context: opts.context, signal: opts.signal }) : Promise.resolve([] as LayerOutcome[]),
      wantsOntology && opts.run ? this.ontology.find(opts.run, org, content, opts.signal) : Promise.resolve(null),
    ]);
    const outcomes = layers.map((layer): LayerOutcome => {
      if (layer !== 'ontology') return found.find((o) => o.layer === layer) ?? { layer, error: `no ${layer} pass ran` };
      if (!onto) return { layer, error: 'no active ontology schema' };
      return 'error' in onto ? { layer, error: onto.error } : { layer, nodes: [] };
    });
    return { outcomes, ...(opts.run && onto && 'entities' in onto ? { ontology: { run: opts.run, entities: onto.entities } } : {}) };
  }

  /**
   * Commits the chunks in one unit of work; when that unit fails, each chunk alone, so that
   * one bad chunk fails only itself. The dedup cache learns the new nodes once committed.
   * Callers serialise their commits so that each sees the nodes of the ones before.
   */
  async commit(ctx: CommandContext, items: readonly ExtractedChunk[], place: ChunkPlacement): Promise<ChunkOutcome[]> {
    if (items.length === 0) return [];
    try {
      return await this.commitTogether(ctx, items, place);
    } catch (err) {
      if (items.length === 1) throw err;
      const out: ChunkOutcome[] = [];
      for (const item of items) out.push(await this.commitTogether(ctx, [item], place).then((o) => o[0], (e: unknown) => this.failed(ctx, item, e)));
      return out;
    }
  }

  private async commitTogether(ctx: CommandContext, items: readonly ExtractedChunk[], place: ChunkPlacement): Promise<ChunkOutcome[]> {
    let dedup: DedupIndex | null = null;
    const memories = [...new Set(items.flatMap((i) => (i.ontology ? [i.ontology.run.memory] : [])))];
    const outcomes = await this.uow.run(ctx, async (tx) => {
      dedup = new DedupIndex(place.dedup, memories.length === 0); // a replayed unit starts afresh
      for (const m of memories) m.begin();
      const out: ChunkOutcome[] = [];
      for (const item of items) out.push(await stageChunk(tx, item, place, dedup, this.ontology));
      return out;
    });
    // before the next unit's commit, which must see these nodes
    await place.dedup.remember((dedup as DedupIndex | null)?.created() ?? []);
    for (const m of memories) m.committed();
    return outcomes;
  }

  /** A chunk whose unit failed: marked `failed` (nothing else of it was written), for a resume to take up. */
  private async failed(ctx: CommandContext, item: ExtractedChunk, err: unknown): Promise<ChunkOutcome> {
    await this.markFailed(ctx, item).catch(() => undefined);
    const reason = err instanceof Error ? err.message : String(err);
    return { status: 'failed', errors: [{ layer: item.outcomes[0]?.layer ?? 'reality', error: reason }], ...EMPTY, extracted_node_uids: [] };
  }

  /** Marks a chunk whose unit of work failed as `failed` (nothing else of it was written); a chunk not yet in the graph is created `failed`. */
  async markFailed(ctx: CommandContext, item: Pick<ExtractedChunk, 'chunk' | 'draft'>): Promise<void> {
    await this.uow.run(ctx, async (tx) => {
      const current = await tx.node(item.chunk.uid);
      if (!current && item.draft) {
        const document = await tx.node(item.draft.document_uid);
        if (document && document.tombstone_at === null && document.node_type === 'Document') createChunk(tx, item.chunk.uid, item.draft, { processing_status: 'failed' }, document);
        return;
      }
      if (!current || current.tombstone_at !== null || current.props.processing_status === 'completed') return;
      tx.emit(GraphChanges.nodeChanged(tx.org, 'NodeUpdated', decideUpdateNode(current, { props: { processing_status: 'failed' } }, tx.write), null));
    });
  }
}

const chunkContent = (chunk: NodeRecord) => String(chunk.props.content ?? '');

async function stageChunk(tx: GraphTx, item: ExtractedChunk, place: ChunkPlacement, dedup: DedupIndex, ontology: OntologyPass): Promise<ChunkOutcome> {
  const errors = failedPasses(item.outcomes);
  const allFailed = item.outcomes.length > 0 && errors.length === item.outcomes.length;
  const skipped: ChunkOutcome = { status: 'skipped', errors: [], ...EMPTY, extracted_node_uids: [] };
  const current = await tx.node(item.chunk.uid);
  let create: ((final: Record<string, unknown> | null) => NodeRecord) | undefined;
  if (!current && item.draft) {
    const draft = item.draft;
    // a chunk of a document deleted meanwhile is not created
    const document = await tx.node(draft.document_uid);
    if (!document || document.tombstone_at !== null || document.node_type !== 'Document') return skipped;
    create = (final) => createChunk(tx, item.chunk.uid, draft, final ?? {}, document);
  } else if (!current || current.tombstone_at !== null || current.props.processing_status === 'completed') return skipped;
  if (allFailed) {
    if (create) create({ processing_status: 'failed' });
    else tx.emit(GraphChanges.nodeChanged(tx.org, 'NodeUpdated', decideUpdateNode(current!, { props: { processing_status: 'failed' } }, tx.write), null));
    return { status: 'failed', errors, ...EMPTY, extracted_node_uids: [] };
  }
  const source = current ?? item.chunk;
  const start = source.props.char_offset_start;
  const content = chunkContent(source);
  let tally: OntologyTally | undefined;
  const onto = item.ontology;
  const counts = await stageExtraction(tx, current, item.outcomes, {
    content,
    method: item.method,
    chunkStart: typeof start === 'number' ? start : null,
    pages: place.pages,
    dedup,
    // a chunk not yet in the graph is created by this unit, once its extraction is staged
    ...(create ? { create } : {}),
    ...(onto
      ? {
          ontology: async (chunk, locate) => {
            const c = await ontology.stage(tx, onto.run, chunk, content, onto.entities, locate);
            tally = { proposals_created: c.proposals_created, auto_applied: c.auto_applied, objects_linked: c.objects_linked };
            return c;
          },
        }
      : {}),
  });
  return { status: 'completed', errors, ...counts, ...(tally ? { ontology: tally } : {}) };
}

/** Stages a drafted chunk's creation under `uid`, with `final` over its drafted props, and its ChunkOf edge. */
export function createChunk(tx: GraphTx, uid: string, draft: ChunkDraft, final: Record<string, unknown>, document: NodeRecord): NodeRecord {
  const chunk = decideCreateNode({ node_type: 'Chunk', label: draft.label, props: { ...draft.props, ...final } }, uid, tx.write);
  // the chunk names its Document itself: a purge of the Document takes the ChunkOf edge along
  tx.emit(GraphChanges.nodeCreated(tx.org, chunk, chunkOfReason(document.uid)));
  const props = triggerEdgeProps('ChunkOf', { chunk_index: draft.props.chunk_index });
  tx.emit(GraphChanges.edgeCreated(tx.org, decideCreateEdge({ edge_type: 'ChunkOf', props }, chunk, document, tx.uuid(), tx.write)));
  return chunk;
}
