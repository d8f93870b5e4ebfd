import { Inject, Injectable } from '@nestjs/common';
import { normaliseText } from '@strata/domain/catalogue';
import { Streams } from '@strata/domain/events';
import {
  EntityMention,
  ExtractionMode,
  KnownObject,
  ObjectTypeRecord,
  OntologyEventTypes as T,
  decideApprove,
  decideNewProposal,
  extractionApplies,
  extractionRisk,
  planExtraction,
} from '@strata/domain/ontology';
import { NodeRecord } from '@strata/domain/records';
import { ID_GENERATOR, IdGenerator } from '@strata/domain/time';
import { createTriggerEdge } from '@strata/platform/unit-of-work/graph-ops';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import { ApprovalNodes } from './approval-nodes';
import { objectProps } from './domain-objects';
import { OntologyStore } from './ontology-store';
import { ProposalApplier } from './proposal-applier';

/** One source text's extraction against a schema, staged on the caller's unit of work. */
export interface SourceExtraction {
  schema_id: string;
  mode: ExtractionMode;
  /** the source the objects are cited from (a Chunk, or a Document without chunks), read in this unit */
  source: NodeRecord;
  text: string;
  entities: readonly EntityMention[];
  method: 'offline' | 'llm';
  confidence: number;
  /** the job the proposals name as `extract_job_id` */
  job_id: string | null;
  agent_id: string | null;
  rationale: string;
  /** the ExtractedFrom location of a mention (the anchored quote), when the caller can anchor it */
  locate?: (names: readonly string[]) => string | undefined;
}

export interface SourceExtractionCounts {
  proposals_created: number;
  auto_applied: number;
  objects_linked: number;
  /** objects applied or linked: what the source's extraction now cites */
  object_uids: string[];
  /** ExtractedFrom edges written */
  edges_created: number;
}

/**
 * What a run of extraction remembers across its sources: the schema's objects (loaded once)
 * and what earlier sources proposed or created, so a name met in ten chunks is proposed once
 * and an object created from one chunk is linked from the next. What a unit stages is only
 * learnt once the unit has committed (`committed()`): a unit that fails or is replayed
 * leaves no trace.
 */
export class ExtractionMemory {
  private known: KnownObject[] | null = null;
  private proposed = new Set<string>();
  private staged: { objects: KnownObject[]; proposed: string[] } = { objects: [], proposed: [] };

  /** a (re)started unit forgets what a failed attempt staged */
  begin(): void {
    this.staged = { objects: [], proposed: [] };
  }

  committed(): void {
    this.known?.push(...this.staged.objects);
    for (const k of this.staged.proposed) this.proposed.add(k);
    this.begin();
  }

  async objects(load: () => Promise<KnownObject[]>): Promise<KnownObject[]> {
    this.known ??= await load();
    return [...this.known, ...this.staged.objects];
  }

  wasProposed(key: string): boolean {
    return this.proposed.has(key) || this.staged.proposed.includes(key);
  }

  stageObject(o: KnownObject): void {
    this.staged.objects.push(o);
  }

  stageProposal(key: string): void {
    this.staged.proposed.push(key);
  }
}

/**
 * The ontology's extraction of one source text (REFERENCE §11), shared by `/ontology/extract`
 * and the `ontology` layer of ingestion (§9.1): existing objects the text names get an
 * ExtractedFrom edge to the source; each named entity whose category an object type's
 * `extraction_hints` ask for becomes an `object_create` proposal (with an Approval node when
 * the type's risk is high), applied at once when the mode and the type's review policy say
 * so. Everything is staged on the caller's unit of work; the entities are found before it.
 */
@Injectable()
export class ExtractionStager {
  constructor(
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    private readonly store: OntologyStore,
    private readonly applier: ProposalApplier,
    private readonly approvals: ApprovalNodes,
  ) {}

  async stage(tx: GraphTx, x: SourceExtraction, memory: ExtractionMemory = new ExtractionMemory()): Promise<SourceExtractionCounts> {
    const out: SourceExtractionCounts = { proposals_created: 0, auto_applied: 0, objects_linked: 0, object_uids: [], edges_created: 0 };
    const types = this.store.read.types(x.schema_id);
    const known = await memory.objects(() => this.knownObjects(tx, x.schema_id));
    const plan = planExtraction(x.text, x.entities as EntityMention[], types.objects, known);
    const names = new Map(known.map((o) => [o.uid, o.names]));
    for (const uid of plan.links) {
      const o = await tx.node(uid);
      if (!o || o.tombstone_at !== null) continue;
      out.object_uids.push(o.uid);
      if (this.link(tx, o, x, names.get(uid) ?? [o.label], await this.linked(tx, o, x.source))) (out.objects_linked++, out.edges_created++);
    }
    for (const p of plan.proposals) {
      const key = `${p.type.id}:${normaliseText(p.canonical_name)}`;
      if (memory.wasProposed(key)) continue;
      memory.stageProposal(key);
      const node = await this.propose(tx, x, p.type, p.canonical_name, out);
      if (!node) continue;
      memory.stageObject({ uid: node.uid, object_type_id: p.type.id, names: [p.canonical_name] });
      out.object_uids.push(node.uid);
      if (this.link(tx, node, x, [p.canonical_name], false)) out.edges_created++;
    }
    return out;
  }

  /** A new proposal; the applied object's node when the mode and the type's policy apply it at once. */
  private async propose(tx: GraphTx, x: SourceExtraction, type: ObjectTypeRecord, name: string, out: SourceExtractionCounts): Promise<NodeRecord | null> {
    const id = this.ids.uuid();
    let proposal = decideNewProposal(
      {
        id,
        org_id: tx.org,
        schema_id: x.schema_id,
        proposal_type: 'object_create',
        object_type: type.name,
        object: { canonical_name: name, fields: {}, aliases: [], identity: {}, confidence: x.confidence },
        extract_job_id: x.job_id,
        proposed_by_agent_id: x.agent_id,
        source_uids: [x.source.uid],
        rationale: x.rationale,
        risk_level: extractionRisk(type),
      },
      tx.now,
    );
    if (proposal.review_status === 'approval_required') proposal = { ...proposal, approval_uid: this.approvals.open(tx, id, name).uid };
    tx.emit(Streams.ontologyProposal(tx.org, id), T.OntologyProposalCreated, { proposal }, 'no_stream');
    out.proposals_created++;
    if (proposal.review_status !== 'pending' || !extractionApplies(x.mode, type.review_policy, x.confidence, type.default_confidence)) return null;
    const applied = await this.applier.applyStaged(tx, decideApprove(proposal, tx.ctx.principal.id, tx.now), () => true, 'no_stream');
    if (applied.review_status !== 'applied') return null;
    out.auto_applied++;
    return tx.node(applied.proposed_node_uid!);
  }

  private async linked(tx: GraphTx, object: NodeRecord, source: NodeRecord): Promise<boolean> {
    return (await tx.edges({ from_uid: object.uid, to_uid: source.uid, edge_types: ['ExtractedFrom'] })).length > 0;
  }

  /** ExtractedFrom object → source {method, confidence, location?}, once. */
  private link(tx: GraphTx, object: NodeRecord | null, x: SourceExtraction, names: readonly string[], already: boolean): boolean {
    if (!object || already) return false;
    const location = x.locate?.(names);
    createTriggerEdge(tx, object, x.source, 'ExtractedFrom', { method: x.method, confidence: x.confidence, ...(location ? { location } : {}) });
    return true;
  }

  private async knownObjects(tx: GraphTx, schemaId: string): Promise<KnownObject[]> {
    const uids = this.store.read.objectUids(tx.org, schemaId, undefined);
    const nodes = await tx.reader.getNodes(tx.org, uids);
    return uids.flatMap((uid) => {
      const n = nodes.get(uid);
      if (!n || n.tombstone_at !== null) return [];
      const p = objectProps(n);
      return [{ uid, object_type_id: p.object_type_id as string, names: [p.canonical_name as string, ...((p.aliases as string[]) ?? [])] }];
    });
  }
}
