import { Inject, Injectable } from '@nestjs/common';
import { Layer, NodeRecord } from '@strata/domain/records';
import { ExtractionContext, Extractor, LayerOutcome } from '@strata/extraction';
import { PageOffset } from '@strata/domain/ingestion';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { decideUpdateNode } from '@strata/domain/graph';
import { DedupCache } from './dedup-cache';
import { ChunkExtractionCounts, stageExtraction } from './stage-extraction';

export interface ChunkOutcome extends ChunkExtractionCounts {
  status: 'completed' | 'failed' | 'skipped';
  errors: { layer: Layer; error: string }[];
}

export interface ExistingChunkWork {
  chunk_uid: string;
  layers: readonly Layer[];
  context?: ExtractionContext;
  pages?: readonly PageOffset[];
  signal?: AbortSignal;
  /** runs the commit: a job serialises its chunks' commits so deduplication sees the ones before */
  commitLock?: <T>(fn: () => Promise<T>) => Promise<T>;
  dedup: DedupCache;
}

const failedPasses = (outcomes: readonly LayerOutcome[]) =>
  outcomes.filter((o): o is { layer: Layer; error: string } => 'error' in o).map((o) => ({ layer: o.layer, error: o.error }));

/**
 * One existing (pending) Chunk of a document job through extraction: the passes run first,
 * outside any transaction; then the chunk's nodes, edges and its `completed` status commit as
 * ONE unit of work, or, when every pass failed, only its `failed` status. A chunk found already
 * completed inside the unit (another attempt committed it) is left alone: no chunk is ever
 * extracted into the graph twice.
 */
@Injectable()
export class ChunkExtractionService {
  constructor(@Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork) {}

  async extractExisting(ctx: CommandContext, extractor: Extractor, chunk: NodeRecord, work: ExistingChunkWork): Promise<ChunkOutcome> {
    const content = String(chunk.props.content ?? '');
    const outcomes = await extractor.extract({ content, layers: work.layers, context: work.context, signal: work.signal });
    const errors = failedPasses(outcomes);
    const allFailed = outcomes.length > 0 && errors.length === outcomes.length;
    const lock = work.commitLock ?? (<T>(fn: () => Promise<T>) => fn());
    return lock(async () => {
      const outcome = await this.uow.run(ctx, async (tx): Promise<ChunkOutcome> => {
      const current = await tx.node(chunk.uid);
      const empty = { nodes_created: 0, nodes_deduplicated: 0, edges_created: 0, extracted_node_uids: [] };
      if (!current || current.tombstone_at !== null || current.props.processing_status === 'completed') return { status: 'skipped', errors: [], ...empty };
      if (allFailed) {
        tx.putNode(decideUpdateNode(current, { props: { processing_status: 'failed' } }, tx.write), 'NodeUpdated', null);
        return { status: 'failed', errors, ...empty };
      }
      const start = current.props.char_offset_start;
      const counts = await stageExtraction(tx, current, outcomes, {
        content,
        method: extractor.method,
        chunkStart: typeof start === 'number' ? start : null,
        pages: work.pages,
        dedup: work.dedup,
      });
      return { status: 'completed', errors, ...counts };
      });
      // before the next chunk's commit, which must see these nodes
      if (outcome.created) await work.dedup.remember(outcome.created);
      return outcome;
    });
  }

  /** Marks a chunk whose unit of work failed as `failed` (nothing else of it was written). */
  async markFailed(ctx: CommandContext, chunkUid: string): Promise<void> {
    await this.uow.run(ctx, async (tx) => {
      const current = await tx.node(chunkUid);
      if (!current || current.tombstone_at !== null || current.props.processing_status === 'completed') return;
      tx.putNode(decideUpdateNode(current, { props: { processing_status: 'failed' } }, tx.write), 'NodeUpdated', null);
    });
  }
}
