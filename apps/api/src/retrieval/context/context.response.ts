import { ApiProperty } from '@nestjs/swagger';
import type { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { SourceDocumentRef } from '../../platform/http/responses/graph-records';
import { Int, ListOf, ListOfShared, ListOfSharedWith, Nested, NullableInt, NullableNum, NullableStr, Num, OneOf, Str, Strings } from '../../platform/http/responses/response-fields';

class ContextArticle {
  @Str()
  uid!: string;
  @Str()
  label!: string;
  @Str()
  content!: string;
  @NullableStr()
  article_type!: string | null;
  @NullableStr('the subject the Article covers')
  covers_uid!: string | null;
  @Strings()
  questions!: string[];
  @Num()
  score!: number;
}

class ContextChunk {
  @Str()
  chunk_uid!: string;
  @Str()
  content!: string;
  @Num()
  score!: number;
  @NullableStr()
  document_uid!: string | null;
  @NullableStr()
  document_title!: string | null;
  @NullableInt()
  chunk_index!: number | null;
}

class TextAnchor {
  @Str()
  exact!: string;
  @NullableStr()
  prefix!: string | null;
  @NullableStr()
  suffix!: string | null;
  @Int()
  start!: number;
  @Int()
  end!: number;
}

class SourceChunk {
  @Str()
  chunk_uid!: string;
  @NullableInt('UTF-8 byte offset into the chunk')
  char_start!: number | null;
  @NullableInt()
  char_end!: number | null;
  @NullableInt('1-based; null without a page map')
  page_start!: number | null;
  @NullableInt()
  page_end!: number | null;
  @NullableStr()
  quote!: string | null;
  @Nested(() => TextAnchor, 'a text selector for the quote', true)
  anchor!: TextAnchor | null;
}

class Belief {
  @Str()
  agent_uid!: string;
  @Str()
  agent_label!: string;
  @Num()
  confidence!: number;
}

class RetrievalTrace {
  @OneOf(['direct', 'expansion'])
  via!: 'direct' | 'expansion';
  @NullableNum('the ranking score of a direct hit; null for a node reached by expansion')
  score!: number | null;
  @Int()
  depth!: number;
  @Num()
  path_cost!: number;
}

/** The annotations `/retrieve/context` adds to a node record, each present when it applies (REFERENCE §9.5) */
export class ContextNodeFields {
  @ApiProperty({ type: () => SourceDocumentRef, isArray: true, required: false })
  source_documents?: SourceDocumentRef[];
  @ApiProperty({ type: () => SourceChunk, isArray: true, required: false })
  source_chunks?: SourceChunk[];
  @ApiProperty({ type: () => Belief, isArray: true, required: false, description: 'Claims only' })
  believed_by?: Belief[];
  @ApiProperty({ type: Boolean, required: false })
  superseded?: boolean;
  @ApiProperty({ type: [String], required: false })
  superseded_by?: string[];
  @ApiProperty({ type: Boolean, required: false, description: 'nodes with valid_from or valid_until, without valid_at' })
  currently_valid?: boolean;
  @ApiProperty({ type: Boolean, required: false, description: 'the same, at the valid_at of the request' })
  valid_at_time?: boolean;
  @Nested(() => RetrievalTrace)
  retrieval!: RetrievalTrace;
}

class ContextGraph {
  @ListOfSharedWith('NodeRecord', ContextNodeFields)
  nodes!: (NodeRecord & ContextNodeFields)[];
  @ListOfShared('EdgeRecord', 'live edges among the returned nodes')
  edges!: EdgeRecord[];
}

/** `POST /retrieve/context` (REFERENCE §9.5) */
export class ContextResponse {
  @Str()
  query!: string;
  @OneOf(['hybrid', 'text'])
  mode!: 'hybrid' | 'text';
  @ListOf(() => ContextArticle)
  articles!: ContextArticle[];
  @ListOf(() => ContextChunk)
  chunks!: ContextChunk[];
  @Nested(() => ContextGraph)
  graph!: ContextGraph;
}
