import { Injectable } from '@nestjs/common';
import { DomainError } from '@strata/domain/errors';
import { OntologyErrors } from '@strata/domain/ontology';
import { EntityMention } from '@strata/domain/ontology';
import { NodeRecord } from '@strata/domain/records';
import { EntityFinder, EntityFinding } from '@strata/ontology/entity-finder';
import { ExtractionMemory, ExtractionStager } from '@strata/ontology/extraction-stager';
import { OntologyStore } from '@strata/ontology/ontology-store';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';

/** One ingestion's ontology pass: the schema, how entities are found, and what earlier chunks proposed. */
export interface OntologyRun {
  schema_id: string;
  finding: EntityFinding;
  memory: ExtractionMemory;
  /** the ingestion job the proposals name as `extract_job_id` (null for `/ingest/chunk`) */
  job_id: string | null;
  agent_id: string | null;
}

/** What the pass found in one chunk, before any write. */
export type OntologyOutcome = { entities: EntityMention[] } | { error: string };

export interface OntologyPassCounts {
  nodes_created: number;
  edges_created: number;
  node_uids: string[];
  proposals_created: number;
  auto_applied: number;
  objects_linked: number;
}

/**
 * The `ontology` layer of ingestion (REFERENCE §9.1, §11): against the request's schema or the
 * workspace's default active schema, each chunk's named entities become `object_create`
 * proposals (and objects, as each type's review policy says: ingestion has no `mode`, so
 * `respect_policies`), and existing objects the chunk names are cited. The entities are found
 * outside the unit of work (the model is never called inside one); the proposals, objects and
 * their ExtractedFrom edges commit with the chunk.
 */
@Injectable()
export class OntologyPass {
  constructor(
    private readonly store: OntologyStore,
    private readonly entities: EntityFinder,
    private readonly stager: ExtractionStager,
  ) {}

  /** The workspace's default schema: the most recently activated active one, or null. */
  defaultSchemaId(org: string): string | null {
    return this.store.read.activeSchemas(org)[0]?.id ?? null;
  }

  /** The schema a request names: 404 when unknown, 409 `schema_not_active` unless active. */
  assertActive(org: string, schemaId: string): void {
    this.store.activeSchema(org, schemaId);
  }

  /**
   * The schema a resumed document's ontology pass uses: the one it was ingested with while it is
   * still active, else the workspace's default; 409 when none is active.
   */
  resumeSchemaId(org: string, recorded: string | null | undefined): string {
    const row = recorded ? this.store.read.schema(org, recorded) : null;
    if (row && row.schema.status === 'active') return row.schema.id;
    const fallback = this.defaultSchemaId(org);
    if (!fallback) throw new DomainError(409, 'schema_not_active', 'the ontology pass needs an active ontology schema: none is active');
    return fallback;
  }

  /** A run for a job (servers mode: this replica's read model first shows what the request saw). */
  async start(org: string, schemaId: string, jobId: string | null, agentId: string | null, requestId: string): Promise<OntologyRun> {
    await this.store.catchUp();
    return { schema_id: schemaId, finding: this.entities.forRequest(org, requestId), memory: new ExtractionMemory(), job_id: jobId, agent_id: agentId };
  }

  /** The chunk's named entities; a failure (the model, an inactive schema) is this pass's error only. */
  async find(run: OntologyRun, org: string, text: string, signal?: AbortSignal): Promise<OntologyOutcome> {
    try {
      const row = this.store.read.schema(org, run.schema_id);
      if (!row) throw OntologyErrors.schemaNotFound(run.schema_id);
      if (row.schema.status !== 'active') throw OntologyErrors.schemaNotActive(run.schema_id, row.schema.status);
      return { entities: await run.finding.find(text, signal) };
    } catch (err) {
      return { error: err instanceof DomainError ? err.message : 'the entity finder failed' };
    }
  }

  /** Stages the chunk's proposals, objects and citations on the chunk's unit of work. */
  async stage(tx: GraphTx, run: OntologyRun, chunk: NodeRecord, text: string, entities: readonly EntityMention[], locate: (names: readonly string[]) => string | undefined): Promise<OntologyPassCounts> {
    const c = await this.stager.stage(
      tx,
      {
        schema_id: run.schema_id,
        mode: 'respect_policies',
        source: chunk,
        text,
        entities,
        method: run.finding.method,
        confidence: run.finding.confidence,
        job_id: run.job_id,
        agent_id: run.agent_id,
        rationale: `named entity in ${chunk.label}`,
        locate,
      },
      run.memory,
    );
    return {
      nodes_created: c.auto_applied,
      edges_created: c.edges_created,
      node_uids: c.object_uids,
      proposals_created: c.proposals_created,
      auto_applied: c.auto_applied,
      objects_linked: c.objects_linked,
    };
  }
}
