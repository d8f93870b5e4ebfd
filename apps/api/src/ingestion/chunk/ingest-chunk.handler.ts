import { Inject, Injectable } from '@nestjs/common';
import { UpstreamError } from '@strata/ai/errors';
import { decideCreateEdge, decideCreateNode, triggerEdgeProps, GraphChanges } from '@strata/domain/graph';
import { chunkOfReason, estimateTokens, readChunkRequest, resolveLayers, standaloneChunkLabel } from '@strata/domain/ingestion';
import { Layer, NodeRecord } from '@strata/domain/records';
import { Body } from '@strata/domain/validation';
import { EVENT_STORE, EventStore } from '@strata/event-store/event-store.port';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { documentsOfChunk } from '../documents/document-chunks';
import { ExtractorSource } from '../pipeline/extractor-source';
import { expectedPlacement } from '../pipeline/placement';
import { inSameSpaces, readModelMembership } from '@strata/platform/scope/space-membership';
import { DedupCache } from '../pipeline/dedup-cache';
import { DedupIndex } from '../pipeline/dedup-index';
import { stageExtraction } from '../pipeline/stage-extraction';
import { ChunkExtractionService } from '../pipeline/chunk-extraction.service';
import { OntologyPass } from '../pipeline/ontology-pass';

export interface IngestChunkResponse {
  chunk_uid: string;
  document_uid: string | null;
  layers: Layer[];
  nodes_created: number;
  nodes_deduplicated: number;
  edges_created: number;
  extracted_node_uids: string[];
  errors: { layer: Layer; error: string }[];
  deduplicated: boolean;
}

/**
 * `POST /ingest/chunk` (REFERENCE §9.3), synchronous: 501 without a provider and 4xx on bad
 * input before anything runs; identical content under the same document (or none) answers
 * the existing chunk; every pass failing is 502 with nothing written; otherwise the Chunk,
 * its ChunkOf edge and its extraction commit as one unit of work.
 */
@Injectable()
export class IngestChunkHandler {
  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    private readonly extractors: ExtractorSource,
    private readonly chunks: ChunkExtractionService,
    private readonly ontology: OntologyPass,
  ) {}

  async ingest(ctx: CommandContext, body: Body): Promise<{ status: 200 | 201; body: IngestChunkResponse }> {
    const extractor = this.extractors.extractor(ctx.org, ctx.request_id);
    const req = readChunkRequest(body);
    const { layers, ontology_schema_id } = resolveLayers('chunk', body, () => this.ontology.defaultSchemaId(ctx.org));
    if (ontology_schema_id) this.ontology.assertActive(ctx.org, ontology_schema_id);
    let doc: NodeRecord | null = null;
    if (req.document_uid) {
      doc = await this.graph.getNode(ctx.org, req.document_uid);
      // the unit of work checks liveness and type again, with the right error
      if (!doc || doc.tombstone_at !== null || doc.node_type !== 'Document') await this.uow.run(ctx, (tx) => tx.liveNode(req.document_uid!, 'document_uid', ['Document']));
    }
    const same = await this.identical(ctx.org, req.content, req.document_uid ?? null, expectedPlacement(ctx));
    if (same) return { status: 200, body: { chunk_uid: same, document_uid: req.document_uid ?? null, layers, nodes_created: 0, nodes_deduplicated: 0, edges_created: 0, extracted_node_uids: [], errors: [], deduplicated: true } };

    const run = ontology_schema_id ? await this.ontology.start(ctx.org, ontology_schema_id, null, ctx.agent_id, ctx.request_id) : undefined;
    const { outcomes, ontology } = await this.chunks.passes(ctx.org, extractor, req.content, layers, { run });
    const errors = outcomes.filter((o): o is { layer: Layer; error: string } => 'error' in o).map((o) => ({ layer: o.layer, error: o.error }));
    if (errors.length === outcomes.length) throw new UpstreamError(`every extraction pass failed: ${errors.map((e) => `${e.layer}: ${e.error}`).join('; ')}`, this.extractors.provider);

    return this.uow.run(ctx, async (tx) => {
      const document = req.document_uid ? await tx.liveNode(req.document_uid, 'document_uid', ['Document']) : null;
      let index = req.chunk_index ?? 0;
      if (document && req.chunk_index === undefined) {
        const siblings = await tx.edges({ to_uid: document.uid, edge_types: ['ChunkOf'] });
        index = siblings.reduce((max, e) => Math.max(max, typeof e.props.chunk_index === 'number' ? e.props.chunk_index + 1 : max), 0);
      }
      const draft = {
        node_type: 'Chunk',
        label: document && !req.label ? `${String(document.props.title ?? document.label)} · chunk ${index}` : standaloneChunkLabel(req.label, req.content),
        props: { content: req.content, chunk_type: req.chunk_type, chunk_index: index, token_count_estimate: estimateTokens(req.content), processing_status: 'processing' },
      };
      let edges = 0;
      // the chunk is created once its extracted nodes are placed, `completed` at once
      const create = (final: Record<string, unknown> | null) => {
        const chunk = decideCreateNode({ ...draft, props: { ...draft.props, ...final } }, tx.uuid(), tx.write);
        // a document's chunk names it itself: a purge of the Document takes the ChunkOf edge along
        tx.emit(GraphChanges.nodeCreated(tx.org, chunk, document ? chunkOfReason(document.uid) : null));
        if (document) {
          tx.emit(GraphChanges.edgeCreated(tx.org, decideCreateEdge({ edge_type: 'ChunkOf', props: triggerEdgeProps('ChunkOf', { chunk_index: index }) }, chunk, document, tx.uuid(), tx.write)));
          edges++;
        }
        return chunk;
      };
      const staged: NodeRecord[] = [];
      const counts = await stageExtraction(tx, null, outcomes, {
        content: req.content,
        method: extractor.method,
        dedup: new DedupIndex(new DedupCache(tx.reader, tx.org, tx.placement?.space_uid ?? null)),
        create: (final) => staged[staged.push(create(final)) - 1],
        ...(ontology ? { ontology: (chunk, locate) => this.ontology.stage(tx, ontology.run, chunk, req.content, ontology.entities, locate) } : {}),
      });
      const created = staged[0];
      return {
        status: 201 as const,
        body: { chunk_uid: created.uid, document_uid: document?.uid ?? null, layers, ...counts, edges_created: counts.edges_created + edges, errors, deduplicated: false },
      };
    });
  }

  /** A live Chunk with this content under the same document, or with none. */
  private async identical(org: string, content: string, documentUid: string | null, placement: string | null): Promise<string | null> {
    const page = await this.graph.listNodes(org, { node_types: ['Chunk'], props_equals: { content } }, { limit: 100, offset: 0 }, 'created_asc');
    for (const c of page.items) {
      // a chunk created for a Document is under it even once the Document is gone (an orphan
      // cleanup will remove): it never stands for a chunk ingested with none
      const parents = await documentsOfChunk(this.graph, this.events, org, c.uid);
      const sameParent = documentUid === null ? parents.length === 0 : parents.includes(documentUid);
      // the same text in another Space is another chunk: it is neither revealed nor reused
      if (sameParent && (await inSameSpaces(readModelMembership(this.graph, org), c.uid, placement))) return c.uid;
    }
    return null;
  }
}
