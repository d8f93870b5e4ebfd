import { Module } from '@nestjs/common';
import { OntologyStore } from './ontology-store';
import { SchemaHandlers } from './schemas/schema.handlers';
import { SchemasController } from './schemas/schemas.controller';
import { TypeHandlers } from './types/type.handlers';
import { TypesController } from './types/types.controller';

/** The operational ontology (REFERENCE §11): schemas, types, proposals and domain objects. */
@Module({
  controllers: [SchemasController, TypesController],
  providers: [OntologyStore, SchemaHandlers, TypeHandlers],
})
export class OntologyModule {}
