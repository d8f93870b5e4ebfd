import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { decideCreateNode, decideUpdateNode, GraphChanges } from '@strata/domain/graph';
import { chunkText, documentChunkLabel, draftedChunkUid, finalStatuses } from '@strata/domain/ingestion';
import { JobRecord } from '@strata/domain/jobs';
import { NodeRecord } from '@strata/domain/records';
import { ExtractionContext } from '@strata/extraction';
import { DOCUMENT_LEDGER, DocumentLedger } from '@strata/extraction/ledger/document-ledger.port';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { JOB_QUEUE, JobQueue, QueuedJob } from '@strata/jobs/queue/job-queue.port';
import { JobContext, JobHandler, JobStopped } from '@strata/jobs/runner/job-runner';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { chunkStatus, documentChunks } from '../documents/document-chunks';
import { ChunkDraft, ChunkExtractionService, ChunkOutcome, ExtractedChunk, OntologyTally, createChunk } from '../pipeline/chunk-extraction.service';
import { OntologyPass, OntologyRun } from '../pipeline/ontology-pass';
import { ExtractorSource } from '../pipeline/extractor-source';
import { DedupCache } from '../pipeline/dedup-cache';
import { IngestionJobInput, jobCommandContext } from './ingestion-job-input';

const CHUNKS_PER_UNIT = 200;
/**
 * Extracted chunks committed in one unit of work: at most this many chunks and (roughly) this
 * many extracted nodes, so that a unit, which holds the event loop while it is decided and
 * projected, stays short next to the requests waiting behind it.
 */
const UNIT_MAX_CHUNKS = 8;
const UNIT_MAX_NODES = 1500;
const RESULT_UIDS_MAX = 1000;

/** Counters a job carries across its attempts (its checkpoint), so a resumed job reports the whole run. */
interface Tally {
  nodes_created: number;
  nodes_deduplicated: number;
  edges_created: number;
  extracted_node_uids: string[];
  errors: { chunk_index: number; error: string }[];
  /** what the ontology pass did, when the job runs it */
  ontology?: OntologyTally;
  /** what the uids of the chunks this job creates are derived from (draftedChunkUid), the same for each attempt */
  chunk_salt?: string;
}

/** A chunk to extract: stored (pending or failed), or still only in the job's content (`draft`). */
interface ChunkInJob {
  chunk: NodeRecord;
  draft?: ChunkDraft;
}

const emptyTally = (): Tally => ({ nodes_created: 0, nodes_deduplicated: 0, edges_created: 0, extracted_node_uids: [], errors: [] });

/**
 * Runs `ingest_document`, `ingest_session` and `ingest_resume` jobs on the durable runner:
 * extracts every chunk of the document not yet completed, up to STRATA_LLM_CONCURRENCY at a
 * time (commits are serialised so deduplication sees the chunks before). A chunk of the job's
 * content that the graph does not hold yet is created by the unit that commits its extraction,
 * `completed` (or `failed`) at once: a Chunk holds its whole text, and writing it `pending`
 * first and then again `completed` rewrote that text in the log, the graph, the full-text and
 * the vector index. Until then its text is in the job's payload, which the queue keeps until
 * the job ends; a job that ends early (cancelled, failed) first writes the chunks it did not
 * reach, `pending`, for a resume. Progress is reported after every unit; a cancel stops after
 * the chunks in flight; a shutdown leaves the job to be resumed (stored chunks' statuses and
 * the drafted chunks' uids are the cursor: a chunk is never extracted into the graph twice).
 * At the end the Document's `processing_status` follows REFERENCE §9.4.
 */
@Injectable()
export class IngestionJobHandler implements JobHandler {
  private readonly log = new Logger('Ingestion');

  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    @Inject(DOCUMENT_LEDGER) private readonly ledger: DocumentLedger,
    private readonly extractors: ExtractorSource,
    private readonly chunks: ChunkExtractionService,
    private readonly ontology: OntologyPass,
  ) {}

  async run(job: QueuedJob, jc: JobContext): Promise<unknown> {
    const input = job.input as IngestionJobInput;
    const ctx = jobCommandContext(job.org, job.id, input.actor);
    const extractor = this.extractors.extractor(job.org, job.id);
    const doc = await this.graph.getNode(job.org, input.document_uid);
    if (!doc || doc.tombstone_at !== null) throw new Error(`document ${input.document_uid} was deleted`);
    const content = input.content ?? (input.chunking ? await this.queue.payload(job.id) : null);
    const tally: Tally = { ...emptyTally(), ...((job.checkpoint as Tally | null) ?? {}) };
    const stored = await documentChunks(this.graph, job.org, input.document_uid);
    const drafts = content !== null ? this.drafts(doc, input, content, stored, (tally.chunk_salt ??= randomBytes(16).toString('hex'))) : [];
    const chunkCount = content !== null ? stored.length + drafts.length : undefined;
    await this.setStatus(ctx, input.document_uid, 'processing', chunkCount);

    const meta = await this.ledger.get(job.org, input.document_uid);
    const context: ExtractionContext = {
      title: input.title,
      participants: meta?.context.participants,
      occurred_at: meta?.context.occurred_at ?? undefined,
      context: meta?.context.context ?? undefined,
    };
    const all: ChunkInJob[] = [...stored.map((chunk) => ({ chunk })), ...drafts].sort((a, b) => Number(a.chunk.props.chunk_index) - Number(b.chunk.props.chunk_index));
    const remaining = all.filter((c) => c.draft || chunkStatus(c.chunk) !== 'completed');
    const run = input.layers.includes('ontology') ? await this.ontologyRun(job, input) : undefined;
    if (run) tally.ontology ??= { schema_id: run.schema_id, proposals_created: 0, auto_applied: 0, objects_linked: 0 };
    let processed = all.length - remaining.length;
    const progress = (): Partial<JobRecord['progress']> => ({ total_chunks: all.length, processed_chunks: processed, nodes_created: tally.nodes_created, edges_created: tally.edges_created });
    // before any chunk is created: the salt of their uids must outlive this attempt
    await jc.checkpoint(tally, progress());

    let cancelled = false;
    const stopNow = async () => {
      if (jc.signal.aborted) return true;
      // a cancel request is seen between chunks, not only at the runner's next lease renewal
      if ((await this.queue.get(job.org, job.id))?.cancel_requested) cancelled = true;
      return cancelled;
    };
    const dedup = new DedupCache(this.graph, job.org, input.actor.space_uid ?? null, !run);
    const pages = meta?.page_offsets ?? [];
    // Extraction runs ahead (STRATA_LLM_CONCURRENCY chunks in flight) into `ready`; one
    // committer takes whatever is ready, up to a unit's size, and commits it as one unit of
    // work: offline, several chunks share one append and one fsync; with a model, chunks
    // commit as their passes return. Units are serialised so deduplication sees the ones before.
    const ready: ExtractedChunk[] = [];
    let next = 0;
    let extracting = 0;
    let wakeCommitter: (() => void) | null = null;
    let wakeWorkers: (() => void) | null = null;
    const poke = (which: 'committer' | 'workers') => {
      const w = which === 'committer' ? wakeCommitter : wakeWorkers;
      if (which === 'committer') wakeCommitter = null;
      else wakeWorkers = null;
      w?.();
    };
    const worker = async () => {
      for (;;) {
        while (ready.length >= UNIT_MAX_CHUNKS && !committerFailed) await new Promise<void>((r) => (wakeWorkers = chain(wakeWorkers, r)));
        if (committerFailed || next >= remaining.length || (await stopNow()) || next >= remaining.length) break;
        const { chunk, draft } = remaining[next++];
        extracting++;
        try {
          ready.push({ ...(await this.chunks.extract(job.org, extractor, chunk, input.layers, context, jc.signal, run)), ...(draft ? { draft } : {}) });
        } catch (err) {
          ready.push({ ...this.passesThrew(chunk, input, err), ...(draft ? { draft } : {}) });
        } finally {
          extracting--;
          poke('committer');
        }
      }
    };
    let workersDone = false;
    const committed = new Set<string>();
    // a committer that fails (the job store gone at shutdown) releases the workers waiting for room
    let committerFailed = false;
    const committer = async () => {
      for (;;) {
        // a turn of the event loop first, so the chunks extracted meanwhile join this unit
        await new Promise<void>((r) => setImmediate(r));
        if (ready.length === 0) {
          if (workersDone && extracting === 0) return;
          await new Promise<void>((r) => (wakeCommitter = r));
          continue;
        }
        const unit = takeUnit(ready);
        poke('workers');
        const outcomes = await this.commitUnit(ctx, unit, pages, dedup);
        unit.forEach((item, i) => {
          this.count(tally, item.chunk, outcomes[i]);
          if (outcomes[i]?.status === 'completed') committed.add(item.chunk.uid);
        });
        processed += unit.length;
        await jc.checkpoint(tally, progress());
      }
    };
    let committerError: unknown = null;
    const committing = committer().catch((err: unknown) => {
      committerError = err;
      committerFailed = true;
      poke('workers');
    });
    try {
      await Promise.all(Array.from({ length: Math.max(1, Math.min(this.extractors.concurrency, remaining.length)) }, worker));
    } finally {
      // what was extracted still commits; the committer ends once nothing is left
      workersDone = true;
      poke('committer');
      await committing;
    }
    const why = jc.signal.aborted && jc.signal.reason instanceof JobStopped ? jc.signal.reason.why : null;
    // a job stopped for another runner or for a later start keeps its payload: the chunks it did not reach stay drafts
    const unwritten = why === 'lease_lost' || why === 'shutdown' ? [] : drafts.filter((d) => !committed.has(d.chunk.uid));
    if (unwritten.length) {
      const writing = this.writePending(ctx, input.document_uid, unwritten);
      if (committerFailed) await writing.catch((err: unknown) => this.log.warn(`chunks of ${input.document_uid} not written: ${err instanceof Error ? err.message : String(err)}`));
      else await writing;
    }
    if (committerFailed) throw committerError;

    if (why === 'lease_lost') return null; // another runner has the job now: it finishes the document
    if (why === 'shutdown') throw new Error('stopped by a shutdown'); // handed back to the queue, resumed later
    if (why === 'cancelled') cancelled = true;

    const final = await documentChunks(this.graph, job.org, input.document_uid);
    const completed = final.filter((c) => chunkStatus(c) === 'completed').length;
    const failed = final.filter((c) => chunkStatus(c) === 'failed').length;
    const statuses = finalStatuses({ total: final.length, completed, failed, cancelled });
    await this.finish(ctx, input.document_uid, statuses.document, final.length);
    const result = {
      document_uid: input.document_uid,
      ...(input.session_uid ? { session_uid: input.session_uid } : {}),
      chunks_completed: completed,
      chunks_failed: failed,
      nodes_created: tally.nodes_created,
      nodes_deduplicated: tally.nodes_deduplicated,
      edges_created: tally.edges_created,
      extracted_node_uids: tally.extracted_node_uids.slice(0, RESULT_UIDS_MAX),
      errors: tally.errors,
      ...(tally.ontology ? { ontology: tally.ontology } : {}),
    };
    if (cancelled) {
      // the cancel was seen here, between chunks: the job ends cancelled, as if the runner had stopped it
      if (!jc.signal.aborted && job.owner) await this.queue.acknowledgeCancel(job.id, job.owner);
      return result;
    }
    if (statuses.job === 'failed') throw new Error(`no chunk succeeded${tally.errors[0] ? `: ${tally.errors[0].error}` : ''}`);
    return result;
  }

  /** One unit of extracted chunks committed; a unit that cannot commit marks its chunks failed, for a resume. */
  private async commitUnit(ctx: CommandContext, unit: ExtractedChunk[], pages: IngestionPages, dedup: DedupCache): Promise<ChunkOutcome[]> {
    try {
      return await this.chunks.commit(ctx, unit, { pages, dedup });
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      this.log.warn(`chunk ${unit[0].chunk.uid} failed to commit: ${reason}`);
      await this.chunks.markFailed(ctx, unit[0]).catch(() => undefined);
      return [{ status: 'failed', errors: [{ layer: unit[0].outcomes[0]?.layer ?? 'reality', error: reason }], nodes_created: 0, nodes_deduplicated: 0, edges_created: 0, extracted_node_uids: [] }];
    }
  }

  /** Passes that threw (an abort, a bug) count as every pass failing: the chunk is marked failed, nothing else written. */
  private passesThrew(chunk: NodeRecord, input: IngestionJobInput, err: unknown): ExtractedChunk {
    const reason = err instanceof Error ? err.message : String(err);
    this.log.warn(`chunk ${chunk.uid} of ${input.document_uid} failed: ${reason}`);
    return { chunk, method: 'llm', outcomes: input.layers.map((layer) => ({ layer, error: reason })) };
  }

  /** The ontology pass's run: the job's schema (or, for a job queued without one, the default active schema). */
  private async ontologyRun(job: QueuedJob, input: IngestionJobInput): Promise<OntologyRun | undefined> {
    const schemaId = input.ontology_schema_id ?? this.ontology.defaultSchemaId(job.org);
    // without a schema every chunk's ontology pass fails, named in its errors
    if (!schemaId) return undefined;
    return this.ontology.start(job.org, schemaId, job.id, input.actor.agent_id, `job:${job.id}`);
  }

  private count(t: Tally, chunk: NodeRecord, o: ChunkOutcome): void {
    if (t.ontology && o.ontology) {
      t.ontology.proposals_created += o.ontology.proposals_created;
      t.ontology.auto_applied += o.ontology.auto_applied;
      t.ontology.objects_linked += o.ontology.objects_linked;
    }
    t.nodes_created += o.nodes_created;
    t.nodes_deduplicated += o.nodes_deduplicated;
    t.edges_created += o.edges_created;
    if (t.extracted_node_uids.length < RESULT_UIDS_MAX) {
      const have = new Set(t.extracted_node_uids);
      for (const uid of o.extracted_node_uids) if (t.extracted_node_uids.length < RESULT_UIDS_MAX && !have.has(uid)) t.extracted_node_uids.push(uid), have.add(uid);
    }
    const index = Number(chunk.props.chunk_index);
    if (o.status === 'failed') t.errors.push({ chunk_index: index, error: o.errors.map((e) => `${e.layer}: ${e.error}`).join('; ') || 'extraction failed' });
    else for (const e of o.errors) t.errors.push({ chunk_index: index, error: `${e.layer}: ${e.error}` });
  }

  /** The chunks of the content the document does not hold yet (a job resumed after a crash finds some), as drafts. */
  private drafts(doc: NodeRecord, input: IngestionJobInput, content: string, stored: readonly NodeRecord[], salt: string): ChunkInJob[] {
    const have = new Set(stored.map((c) => Number(c.props.chunk_index)));
    const write = { now: doc.updated_at, agent_id: input.actor.agent_id, principal_id: input.actor.principal.id };
    return chunkText(content, input.chunking!)
      .filter((p) => !have.has(p.index))
      .map((p) => {
        const draft: ChunkDraft = {
          document_uid: doc.uid,
          label: documentChunkLabel(input.title, p.index),
          props: {
            content: p.content,
            chunk_type: input.chunk_type ?? 'document',
            chunk_index: p.index,
            char_offset_start: p.start,
            char_offset_end: p.end,
            token_count_estimate: p.token_estimate,
            processing_status: 'pending',
          },
        };
        // as it will be created (its uid, text and offsets are what extraction reads)
        return { chunk: decideCreateNode({ node_type: 'Chunk', label: draft.label, props: draft.props }, draftedChunkUid(salt, doc.uid, p.index), write), draft };
      });
  }

  /** Writes the drafted chunks the graph does not hold yet `pending` (a job that ends before reaching them), for a resume. */
  private async writePending(ctx: CommandContext, documentUid: string, drafts: readonly ChunkInJob[]): Promise<void> {
    for (let i = 0; i < drafts.length; i += CHUNKS_PER_UNIT) {
      const slice = drafts.slice(i, i + CHUNKS_PER_UNIT);
      await this.uow.run(ctx, async (tx) => {
        const document = await tx.node(documentUid);
        if (!document || document.tombstone_at !== null || document.node_type !== 'Document') return;
        for (const d of slice) if (!(await tx.node(d.chunk.uid))) createChunk(tx, d.chunk.uid, d.draft!, {}, document);
      });
    }
  }

  private async setStatus(ctx: CommandContext, documentUid: string, status: string, chunkCount?: number): Promise<void> {
    await this.uow.run(ctx, async (tx) => {
      const doc = await tx.node(documentUid);
      if (!doc || doc.tombstone_at !== null) return;
      const props = { processing_status: status, ...(chunkCount !== undefined ? { chunk_count: chunkCount } : {}) };
      if (Object.entries(props).every(([k, v]) => doc.props[k] === v)) return;
      tx.emit(GraphChanges.nodeChanged(tx.org, 'NodeUpdated', decideUpdateNode(doc, { props }, tx.write), null));
    });
  }

  private async finish(ctx: CommandContext, documentUid: string, status: string, chunkCount: number): Promise<void> {
    await this.uow.run(ctx, async (tx) => {
      const doc = await tx.node(documentUid);
      if (!doc || doc.tombstone_at !== null) return;
      tx.emit(GraphChanges.nodeChanged(tx.org, 'NodeUpdated', decideUpdateNode(doc, { props: { processing_status: status, processed_at: tx.now, chunk_count: chunkCount } }, tx.write), null));
    });
  }

  /**
   * A job cancelled before it started: the chunks of its content are written `pending`, as
   * for a job cancelled midway, so that a resume extracts them (the content is gone with the
   * job, and sending it again is answered by this Document); the Document ends `failed`.
   */
  async cancelledBeforeStart(job: QueuedJob, payload: string | null): Promise<void> {
    const input = job.input as IngestionJobInput;
    const ctx = jobCommandContext(job.org, job.id, input.actor);
    const doc = payload !== null && input.chunking ? await this.graph.getNode(job.org, input.document_uid) : null;
    if (doc && doc.tombstone_at === null) {
      const stored = await documentChunks(this.graph, job.org, input.document_uid);
      await this.writePending(ctx, input.document_uid, this.drafts(doc, input, payload!, stored, randomBytes(16).toString('hex')));
    }
    const chunks = await documentChunks(this.graph, job.org, input.document_uid);
    const completed = chunks.filter((c) => chunkStatus(c) === 'completed').length;
    const failed = chunks.filter((c) => chunkStatus(c) === 'failed').length;
    const statuses = finalStatuses({ total: chunks.length, completed, failed, cancelled: true });
    await this.finish(ctx, input.document_uid, chunks.length === 0 ? 'failed' : statuses.document, chunks.length);
  }
}

type IngestionPages = { page: number; char_start: number }[];

/** The oldest ready chunks, up to a unit's size (at least one). */
function takeUnit(ready: ExtractedChunk[]): ExtractedChunk[] {
  let n = 0;
  let nodes = 0;
  while (n < ready.length && n < UNIT_MAX_CHUNKS) {
    nodes += ready[n].outcomes.reduce((sum, o) => sum + ('nodes' in o ? o.nodes.length : 0), 0);
    if (n > 0 && nodes > UNIT_MAX_NODES) break;
    n++;
  }
  return ready.splice(0, n);
}

/** Both callbacks run (two workers may wait for room at once). */
function chain(first: (() => void) | null, second: () => void): () => void {
  return first ? () => (first(), second()) : second;
}
