import { Inject, Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { Streams } from '@strata/domain/events';
import {
  ObjectTypeInput,
  OntologyErrors,
  OntologyEventTypes as T,
  RelationTypeInput,
  decideAddObjectType,
  decideAddRelationType,
  decideArchiveObjectType,
  decideArchiveRelationType,
  decideUpdateObjectType,
  decideUpdateRelationType,
} from '@strata/domain/ontology';
import { ID_GENERATOR, IdGenerator } from '@strata/domain/time';
import { commandContext } from '@strata/platform/unit-of-work/command-context.factory';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { OntologyStore } from '@strata/ontology/ontology-store';
import { presentType } from '../ontology-presenters';

/** Object and relation types of a schema: add, update (version bumps), archive. */
@Injectable()
export class TypeHandlers {
  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    private readonly store: OntologyStore,
  ) {}

  private load(auth: AuthContext, schemaId: string) {
    const { schema, revision } = this.store.schema(auth.org_id, schemaId);
    return { schema, revision, types: this.store.read.types(schemaId), stream: Streams.ontologySchema(auth.org_id, schemaId) };
  }

  async addObjectType(auth: AuthContext, rid: string, schemaId: string, input: ObjectTypeInput) {
    return this.uow.run(commandContext(auth, rid), async (tx) => {
      const { schema, revision, types, stream } = this.load(auth, schemaId);
      const d = decideAddObjectType(schema, types, input, this.ids.uuid(), auth.principal.id, tx.now);
      tx.emit(stream, T.OntologyObjectTypeAdded, d, revision);
      return presentType(d.object_type);
    });
  }

  async updateObjectType(auth: AuthContext, rid: string, schemaId: string, typeId: string, input: ObjectTypeInput) {
    return this.uow.run(commandContext(auth, rid), async (tx) => {
      const { schema, revision, types, stream } = this.load(auth, schemaId);
      const current = types.objects.find((t) => t.id === typeId);
      if (!current) throw OntologyErrors.typeNotFound('object', typeId);
      const d = decideUpdateObjectType(schema, types, current, input, auth.principal.id, tx.now);
      tx.emit(stream, T.OntologyObjectTypeUpdated, d, revision);
      return presentType(d.object_type);
    });
  }

  async archiveObjectType(auth: AuthContext, rid: string, schemaId: string, typeId: string) {
    return this.uow.run(commandContext(auth, rid), async (tx) => {
      const { schema, revision, types, stream } = this.load(auth, schemaId);
      const current = types.objects.find((t) => t.id === typeId);
      if (!current) throw OntologyErrors.typeNotFound('object', typeId);
      const d = decideArchiveObjectType(schema, current, auth.principal.id, tx.now);
      if (!d) return presentType(current);
      tx.emit(stream, T.OntologyObjectTypeArchived, d, revision);
      return presentType(d.object_type);
    });
  }

  async addRelationType(auth: AuthContext, rid: string, schemaId: string, input: RelationTypeInput) {
    return this.uow.run(commandContext(auth, rid), async (tx) => {
      const { schema, revision, types, stream } = this.load(auth, schemaId);
      const d = decideAddRelationType(schema, types, input, this.ids.uuid(), auth.principal.id, tx.now);
      tx.emit(stream, T.OntologyRelationTypeAdded, d, revision);
      return presentType(d.relation_type);
    });
  }

  async updateRelationType(auth: AuthContext, rid: string, schemaId: string, typeId: string, input: RelationTypeInput) {
    return this.uow.run(commandContext(auth, rid), async (tx) => {
      const { schema, revision, types, stream } = this.load(auth, schemaId);
      const current = types.relations.find((t) => t.id === typeId);
      if (!current) throw OntologyErrors.typeNotFound('relation', typeId);
      const d = decideUpdateRelationType(schema, types, current, input, auth.principal.id, tx.now);
      tx.emit(stream, T.OntologyRelationTypeUpdated, d, revision);
      return presentType(d.relation_type);
    });
  }

  async archiveRelationType(auth: AuthContext, rid: string, schemaId: string, typeId: string) {
    return this.uow.run(commandContext(auth, rid), async (tx) => {
      const { schema, revision, types, stream } = this.load(auth, schemaId);
      const current = types.relations.find((t) => t.id === typeId);
      if (!current) throw OntologyErrors.typeNotFound('relation', typeId);
      const d = decideArchiveRelationType(schema, current, auth.principal.id, tx.now);
      if (!d) return presentType(current);
      tx.emit(stream, T.OntologyRelationTypeArchived, d, revision);
      return presentType(d.relation_type);
    });
  }
}
