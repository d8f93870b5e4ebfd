import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import type { NamedEntity } from '@strata/ai/offline/named-entities';
import { Errors } from '@strata/domain/errors';
import type { JobKind } from '@strata/domain/jobs';
import { Principal, Streams } from '@strata/domain/events';
import {
  CATEGORY_TYPES,
  ObjectTypeInput,
  OntologyEventTypes as T,
  OntologySchemaRecord,
  RelationTypeInput,
  SCHEMA_TEMPLATES,
  TemplateHint,
  decideAddObjectType,
  decideAddRelationType,
  decideCreateSchema,
  hintCategories,
} from '@strata/domain/ontology';
import { ID_GENERATOR, IdGenerator } from '@strata/domain/time';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { QueuedJob } from '@strata/jobs/queue/job-queue.port';
import { commandContext } from '@strata/platform/unit-of-work/command-context.factory';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { OntologyStore } from '@strata/ontology/ontology-store';
import { OntologyScope } from '../ontology-scope';
import { presentSchema } from '../ontology-presenters';
import { EntityFinder } from '@strata/ontology/entity-finder';
import { OntologyJobs } from '../ontology-jobs';
import { sourceTexts } from '../extraction/source-texts';
import { ProposeSchemaDto } from './propose-schema.dto';

export const PROPOSE_KIND = 'ontology_propose' satisfies JobKind;

interface ProposeInput {
  title: string;
  schema_id: string;
  template_hint: TemplateHint | null;
  texts: string[];
  source_uids: string[];
  principal: Principal;
  credential_id: string | null;
}

/**
 * `POST /v1/ontology/propose-schema` (kind `ontology_propose`): a draft schema at once, its
 * `propose_status` pending → running → ready (or failed), and the proposed types written into
 * it by a job on the durable runner. Under `offline` the types come from the `template_hint`
 * template and from the named entities of the sample documents (found by the model under a
 * vendor provider) (a Contact, Company or Site
 * type for each category no template type covers, with the names found as examples).
 */
@Injectable()
export class SchemaProposals implements OnModuleInit {
  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    private readonly jobs: OntologyJobs,
    private readonly entities: EntityFinder,
    private readonly store: OntologyStore,
    private readonly scope: OntologyScope,
  ) {}

  onModuleInit(): void {
    this.jobs.register<ProposeInput>(PROPOSE_KIND, (job, input, ctx) => this.run(job, input, ctx.signal));
  }

  async start(auth: AuthContext, rid: string, dto: ProposeSchemaDto): Promise<{ schema_id: string; job_id: string }> {
    const docs = (dto.source_documents ?? []).map((d, i) => {
      const o = d as Record<string, unknown> | null;
      if (!o || typeof o !== 'object' || typeof o.content !== 'string') throw Errors.invalidField(`source_documents[${i}].content`, `source_documents[${i}].content must be a string`);
      return o.content;
    });
    if (!dto.description && !docs.length && !dto.source_uids?.length) throw Errors.missingField('description', 'description or source material (source_uids, source_documents) is required');
    this.entities.assertAvailable();
    this.store.assertAvailable();
    if (dto.parent_schema_id) this.store.schema(auth.org_id, dto.parent_schema_id);
    const scope = await this.scope.of(auth);
    const texts = [...docs];
    for (const [i, uid] of (dto.source_uids ?? []).entries()) {
      const n = !scope || scope.allows(uid) ? await this.graph.getNode(auth.org_id, uid) : null;
      if (!n || n.tombstone_at !== null) throw Errors.refNotFound(`source_uids[${i}]`, uid);
      if (n.node_type !== 'Document' && n.node_type !== 'Chunk') throw Errors.wrongNodeType(`source_uids[${i}]`, uid, n.node_type, ['Document', 'Chunk']);
      for (const p of await sourceTexts(this.graph, auth.org_id, n)) texts.push(p.text);
    }
    const hint = dto.template_hint && dto.template_hint !== 'custom' ? dto.template_hint : null;
    const name = hint ? SCHEMA_TEMPLATES[hint].name : (dto.target_use_case ?? 'Proposed schema').slice(0, 200);
    const jobId = this.jobs.newJobId();
    const schema = await this.uow.run(commandContext(auth, rid), async (tx) => {
      const s: OntologySchemaRecord = {
        ...decideCreateSchema({ name, description: dto.description ?? null }, this.ids.uuid(), auth.org_id, auth.principal.id, tx.now),
        propose_status: 'pending',
        propose_job_id: jobId,
      };
      tx.emit(Streams.ontologySchema(auth.org_id, s.id), T.OntologySchemaCreated, { schema: s }, 'no_stream');
      return s;
    });
    const input: ProposeInput = { title: `schema proposal: ${name}`, schema_id: schema.id, template_hint: hint, texts, source_uids: dto.source_uids ?? [], principal: auth.principal, credential_id: auth.api_key_id };
    await this.jobs.enqueue(jobId, PROPOSE_KIND, auth.org_id, input);
    return { schema_id: schema.id, job_id: jobId };
  }

  private async run(job: QueuedJob, input: ProposeInput, signal: AbortSignal): Promise<unknown> {
    const ctx = { org: job.org, principal: input.principal, credential_id: input.credential_id, agent_id: null, request_id: `job:${job.id}` };
    await this.setStatus(ctx, input.schema_id, 'running', null);
    try {
      // the model (or the offline library) names the entities before the unit of work
      const finding = this.entities.forJob(job.org, job.id);
      const found: NamedEntity[] = [];
      for (const text of input.texts) found.push(...(await finding.find(text, signal)));
      const plan = this.plan(input, found);
      const written = await this.uow.run(ctx, async (tx) => this.writeTypes(tx, input.schema_id, plan.objects, plan.relations));
      return { schema_id: input.schema_id, ...written };
    } catch (err) {
      await this.setStatus(ctx, input.schema_id, 'failed', (err as Error).message);
      throw err;
    }
  }

  /** The template's types, then one per entity category the documents hold and no type covers. */
  private plan(input: ProposeInput, entities: readonly NamedEntity[]): { objects: ObjectTypeInput[]; relations: RelationTypeInput[] } {
    const template = input.template_hint ? SCHEMA_TEMPLATES[input.template_hint as keyof typeof SCHEMA_TEMPLATES] : null;
    const objects = template ? template.objects.map((o) => ({ ...o })) : [];
    const relations = template ? [...template.relations] : [];
    const found = new Map<string, string[]>();
    for (const e of entities) found.set(e.category, [...(found.get(e.category) ?? []), e.text]);
    for (const [category, names] of [...found.entries()].sort()) {
      const examples = [...new Set(names)].slice(0, 5).map((n) => ({ canonical_name: n }));
      const covering = objects.find((o) => hintCategories(o.extraction_hints).includes(category));
      if (covering) covering.examples = [...(covering.examples ?? []), ...examples];
      else objects.push({ ...CATEGORY_TYPES[category], examples });
    }
    if (!objects.length) objects.push({ name: 'Record', fields: [{ name: 'notes', type: 'string' }], description: 'a starting type: rename and extend it' });
    return { objects, relations };
  }

  private async writeTypes(tx: GraphTx, schemaId: string, objects: ObjectTypeInput[], relations: RelationTypeInput[]) {
    const row = this.store.schema(tx.org, schemaId);
    let schema = row.schema;
    const types = { objects: [...this.store.read.types(schemaId).objects], relations: [...this.store.read.types(schemaId).relations] };
    const stream = Streams.ontologySchema(tx.org, schemaId);
    for (const o of objects) {
      const d = decideAddObjectType(schema, types, o, this.ids.uuid(), 'system', tx.now);
      tx.emit(stream, T.OntologyObjectTypeAdded, d, row.revision);
      types.objects.push(d.object_type);
      schema = d.schema;
    }
    for (const r of relations) {
      const d = decideAddRelationType(schema, types, r, this.ids.uuid(), 'system', tx.now);
      tx.emit(stream, T.OntologyRelationTypeAdded, d, row.revision);
      types.relations.push(d.relation_type);
      schema = d.schema;
    }
    tx.emit(stream, T.OntologySchemaUpdated, { schema: { ...schema, propose_status: 'ready', propose_error: null, updated_at: tx.now } }, row.revision);
    return { object_types: types.objects.map((t) => t.name), relation_types: types.relations.map((t) => t.name) };
  }

  private async setStatus(ctx: Parameters<UnitOfWork['run']>[0], schemaId: string, status: 'running' | 'failed', error: string | null): Promise<void> {
    await this.uow.run(ctx, async (tx) => {
      const { schema, revision } = this.store.schema(tx.org, schemaId);
      const next = { ...schema, propose_status: status, propose_error: error, updated_at: tx.now };
      tx.emit(Streams.ontologySchema(tx.org, schemaId), T.OntologySchemaUpdated, { schema: next }, revision);
      return presentSchema(next);
    });
  }
}
