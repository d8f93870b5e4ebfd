import { ApiProperty } from '@nestjs/swagger';
import type { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { Bool, Int, NullableInt, NullableStr, Num, OneOf, Shared, SharedWith, Str } from './response-fields';

/**
 * Answers several areas share around the graph records (REFERENCE §1.6). The records
 * themselves, NodeRecord and EdgeRecord, are the schemas openapi-graph-shapes registers.
 */

const CHANGE_TYPES = ['create', 'update', 'tombstone', 'restore'] as const;

abstract class VersionFields {
  @Int()
  version!: number;
  @OneOf(CHANGE_TYPES)
  change_type!: (typeof CHANGE_TYPES)[number];
  @Num('Unix seconds')
  changed_at!: number;
  @Str('principal id; "system" for server processes')
  changed_by!: string;
  @NullableStr('attribution of the change')
  agent_id!: string | null;
  @NullableStr('the request reason, or a server text such as "merged into <uid>"')
  change_reason!: string | null;
}

/** One version of a node (history, `/evolve history`) */
export class NodeVersionRecord extends VersionFields {
  @Shared('NodeRecord', 'the node as of this version')
  snapshot!: NodeRecord;
}

/** One version of an edge */
export class EdgeVersionRecord extends VersionFields {
  @Shared('EdgeRecord', 'the edge as of this version')
  snapshot!: EdgeRecord;
}

/** A node named by uid, label and type: the head of the many answers that list nodes briefly */
export class NodeRef {
  @Str()
  uid!: string;
  @Str()
  label!: string;
  @Str()
  node_type!: string;
}

/** An alias pair (REFERENCE §8.4): what `POST /alias` answers and what an export holds */
export class AliasRecord {
  @Str()
  text!: string;
  @Str()
  canonical_uid!: string;
  @Num()
  score!: number;
  @Num('Unix seconds')
  created_at!: number;
}

/** `POST /decay` and `/evolve decay` (REFERENCE §7.2) */
export class DecayResponse {
  @Int('nodes whose salience changed')
  nodes_decayed!: number;
  @Int('live nodes in scope below min_salience (0.1 when absent)')
  below_threshold!: number;
  @NullableInt('null when auto-tombstone did not run')
  auto_tombstoned!: number | null;
  @Bool('counts computed, nothing written')
  dry_run!: boolean;
}

/** A Document a node was extracted from (provenance) */
export class SourceDocumentRef {
  @Str()
  uid!: string;
  @Str()
  title!: string;
  @ApiProperty({ type: String, nullable: true, required: false, description: 'principal that ingested the Document' })
  ingested_by?: string | null;
  @ApiProperty({ type: String, nullable: true, required: false })
  ingested_by_name?: string | null;
  @ApiProperty({ type: String, nullable: true, required: false, description: 'ISO 8601, as given at ingestion' })
  occurred_at?: string | null;
}

/** What `include_sources` adds to a node record */
export class SourcedNodeFields {
  @ApiProperty({ type: () => SourceDocumentRef, isArray: true, required: false, description: 'with include_sources' })
  source_documents?: SourceDocumentRef[];
}

/** A ranked node: `{node, score}` (vector searches, `/retrieve text`, `semantic`, `preferences`) */
export class ScoredNode {
  @SharedWith('NodeRecord', SourcedNodeFields)
  node!: NodeRecord & SourcedNodeFields;
  @Num('higher is better; the scale is the ranking’s own')
  score!: number;
}
