import { ApiProperty } from '@nestjs/swagger';
import type { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { Int, ListOf, ListOfShared, Nested, NullableStr, Num, Shared, Str, schemaRef } from '../../platform/http/responses/response-fields';

/** `POST /ontology/objects/search`: one hit */
export class ScoredObject {
  @Shared('NodeRecord', 'the domain object')
  object!: NodeRecord;
  @Num('RRF score; higher is better')
  score!: number;
}

export class ObjectSearchResponse {
  @ListOf(() => ScoredObject, 'best first')
  items!: ScoredObject[];
}

/** The cognitive nodes linked to an object, by kind */
export class CognitiveContextResponse {
  @ListOfShared('NodeRecord')
  claims!: NodeRecord[];
  @ListOfShared('NodeRecord')
  risks!: NodeRecord[];
  @ListOfShared('NodeRecord')
  decisions!: NodeRecord[];
  @ListOfShared('NodeRecord')
  tasks!: NodeRecord[];
  @ListOfShared('NodeRecord')
  goals!: NodeRecord[];
  @ListOfShared('NodeRecord', 'other non-ontology nodes within depth')
  other!: NodeRecord[];
}

export class ObjectSourceRef {
  @Str()
  uid!: string;
  @Str('the Document title, or the Chunk label')
  title!: string;
  @Str('Document or Chunk')
  node_type!: string;
}

/** `GET /ontology/object/{uid}/context` */
export class ObjectContextResponse {
  @Shared('NodeRecord')
  object!: NodeRecord;
  @Int('1–3')
  depth!: number;
  @ListOfShared('EdgeRecord', 'ontology relations within depth')
  relations!: EdgeRecord[];
  @ListOfShared('NodeRecord', 'domain objects at the other ends')
  related_objects!: NodeRecord[];
  @Nested(() => CognitiveContextResponse)
  cognitive_context!: CognitiveContextResponse;
  @ListOf(() => ObjectSourceRef, 'Chunks and Documents the object was extracted from')
  sources!: ObjectSourceRef[];
}

export class QueryGraph {
  @ListOfShared('NodeRecord')
  nodes!: NodeRecord[];
  @ListOfShared('EdgeRecord')
  edges!: EdgeRecord[];
}

export class ProvenanceLink {
  @Str('the object')
  node_uid!: string;
  @Str('the Chunk or Document it came from')
  source_uid!: string;
  @NullableStr('the quoted span when known')
  text_span!: string | null;
}

export class QueryConfidence {
  @Num('0–1')
  overall!: number;
}

/** Present flags say which lists were cut at their limit */
export class QueryTruncation {
  @ApiProperty({ type: Boolean, required: false })
  objects?: boolean;
  @ApiProperty({ type: Boolean, required: false })
  relations?: boolean;
  @ApiProperty({ type: Boolean, required: false })
  graph?: boolean;
}

/** `POST /ontology/query` */
export class OntologyQueryResponse {
  @ListOfShared('NodeRecord', 'matching domain objects')
  objects!: NodeRecord[];
  @ListOfShared('EdgeRecord')
  relations!: EdgeRecord[];
  @ApiProperty({ type: 'object', additionalProperties: { type: 'array', items: schemaRef('NodeRecord') }, description: 'linked cognitive nodes by node_type; empty without include_cognitive_context' } as never)
  cognitive_context!: Record<string, NodeRecord[]>;
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true }, description: 'rows of external (SQL-backed) sources; empty until backings are synced' } as never)
  external_refs!: unknown[];
  @Nested(() => QueryGraph)
  graph!: QueryGraph;
  @ListOf(() => ProvenanceLink, 'empty without include_sources')
  provenance!: ProvenanceLink[];
  @Nested(() => QueryConfidence)
  confidence!: QueryConfidence;
  @Nested(() => QueryTruncation)
  truncated!: QueryTruncation;
}

export class SchemaTestResult {
  @Str()
  query!: string;
  @ListOfShared('NodeRecord')
  objects!: NodeRecord[];
  @ListOfShared('EdgeRecord')
  relations!: EdgeRecord[];
  @Str()
  note!: string;
}

/** `POST /v1/ontology/schemas/{id}/test`: an experimental dry run */
export class SchemaTestResponse {
  @Str()
  schema_id!: string;
  @ApiProperty({ type: Boolean, enum: [true] })
  experimental!: boolean;
  @ListOf(() => SchemaTestResult, 'one per example query, in order')
  results!: SchemaTestResult[];
}

