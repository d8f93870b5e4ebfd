import { Inject, Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { Errors } from '@strata/domain/errors';
import { Streams } from '@strata/domain/events';
import { OntologyErrors, OntologyEventTypes as T, decideApplied, decideNewProposal } from '@strata/domain/ontology';
import { ID_GENERATOR, IdGenerator } from '@strata/domain/time';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { VersionHistoryService } from '@strata/platform/history/version-history.service';
import { commandContext } from '@strata/platform/unit-of-work/command-context.factory';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { OntologyScope } from '../ontology-scope';
import { OntologyStore } from '@strata/ontology/ontology-store';
import { paginated } from '../ontology-presenters';
import { isDomainObject, loadObject, namedObjectType, objectProps } from '@strata/ontology/domain-objects';
import { CreateObjectDto, UpdateObjectDto } from './object.dto';
import { ObjectWriter } from '@strata/ontology/object-writer';

/** Authored domain objects: create (an auto-approved, applied proposal), update, read, list, history. */
@Injectable()
export class ObjectHandlers {
  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    private readonly store: OntologyStore,
    private readonly writer: ObjectWriter,
    private readonly scope: OntologyScope,
    private readonly history: VersionHistoryService,
  ) {}

  async create(auth: AuthContext, rid: string, dto: CreateObjectDto) {
    const scope = await this.scope.of(auth);
    const visible = (uid: string) => !scope || scope.allows(uid);
    return this.uow.run(commandContext(auth, rid, dto as unknown as Record<string, unknown>), async (tx) => {
      const schema = this.store.activeSchema(auth.org_id, dto.schema_id);
      const type = namedObjectType(this.store.types(auth.org_id, schema.id), dto.object_type);
      const proposalId = this.ids.uuid();
      const object = {
        canonical_name: dto.canonical_name,
        fields: dto.fields ?? {},
        aliases: dto.aliases ?? [],
        identity: dto.identity ?? {},
        confidence: dto.confidence ?? 1,
      };
      const node = await this.writer.create(tx, type, { ...object, allow_duplicate: dto.allow_duplicate ?? false, proposal_id: proposalId, source_uids: [] }, visible);
      const props = objectProps(node);
      const proposal = decideApplied(
        decideNewProposal(
          { id: proposalId, org_id: auth.org_id, schema_id: schema.id, proposal_type: 'object_create', object_type: type.name, proposed_by_agent_id: tx.ctx.agent_id, object: { ...object, fields: props.fields, identity: props.identity } },
          tx.now,
        ),
        node.uid,
        tx.now,
        auth.principal.id,
      );
      // authored: approved by its author as it is written
      tx.emit(Streams.ontologyProposal(auth.org_id, proposalId), T.OntologyProposalCreated, { proposal }, 'no_stream');
      return { uid: node.uid, proposal_id: proposalId, object: node };
    });
  }

  async update(auth: AuthContext, rid: string, uid: string, dto: UpdateObjectDto) {
    const scope = await this.scope.of(auth);
    if (scope && !scope.allows(uid)) throw OntologyErrors.objectNotFound(uid);
    const visible = (u: string) => !scope || scope.allows(u);
    return this.uow.run(commandContext(auth, rid), async (tx) => {
      const current = await loadObject(tx, uid);
      if (current.version !== dto.expected_version) throw Errors.versionConflict(current.version, dto.expected_version);
      const type = this.store.read.objectType(auth.org_id, objectProps(current).object_type_id);
      if (!type) throw OntologyErrors.objectNotFound(uid);
      return this.writer.update(tx, current, type, dto, dto.reason, visible);
    });
  }

  async get(auth: AuthContext, uid: string) {
    const n = (await this.scope.allows(auth, uid)) ? await this.graph.getNode(auth.org_id, uid) : null;
    if (!isDomainObject(n)) throw OntologyErrors.objectNotFound(uid);
    return n;
  }

  async historyOf(auth: AuthContext, uid: string) {
    await this.get(auth, uid);
    return this.history.nodeHistory(auth.org_id, uid);
  }

  async list(auth: AuthContext, q: { schema_id: string; object_type?: string; sort: string; limit: number; offset: number }) {
    this.store.schema(auth.org_id, q.schema_id);
    const scope = await this.scope.of(auth);
    const rows = this.store.read.objects(auth.org_id, q.schema_id, q.object_type, q.sort, q.limit + 1, q.offset, scope?.uidList());
    const page = rows.slice(0, q.limit);
    const nodes = await this.graph.getNodes(auth.org_id, page.map((r) => r.uid));
    const items = page.map((r) => nodes.get(r.uid)).filter((n) => n !== undefined);
    return paginated(items, q.limit, q.offset, rows.length > q.limit);
  }
}
