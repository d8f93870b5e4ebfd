import { ApiProperty } from '@nestjs/swagger';
import type { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { SourcedNodeFields } from '../../platform/http/responses/graph-records';
import { Bool, Int, ListOf, ListOfShared, ListOfSharedWith, NullableInt, NullableNum, NullableStr, Num, OneOf, Str, Strings } from '../../platform/http/responses/response-fields';

class StepSource {
  @Str()
  uid!: string;
  @Str()
  title!: string;
}

/** A reached node and the edge of its selected path (REFERENCE §6.1) */
export class PathStepResponse {
  @Str()
  node_uid!: string;
  @Str()
  label!: string;
  @Str()
  node_type!: string;
  @Str()
  layer!: string;
  @NullableStr('null for the start node')
  edge_type!: string | null;
  @NullableStr()
  edge_uid!: string | null;
  @OneOf(['outgoing', 'incoming'], 'relative to the traversal; null for the start node', true)
  direction!: 'outgoing' | 'incoming' | null;
  @Int('hops of the selected path')
  depth!: number;
  @NullableStr()
  parent_uid!: string | null;
  @Num('Σ −ln(weight) over the path')
  path_cost!: number;
  @Num('Π confidence over the path')
  path_confidence!: number;
  @ApiProperty({ type: () => StepSource, isArray: true, required: false, description: 'with include_provenance' })
  source_documents?: StepSource[];
}

abstract class StepsAnswer {
  @Str()
  start_uid!: string;
  @Int()
  max_depth!: number;
  @ListOf(() => PathStepResponse)
  steps!: PathStepResponse[];
  @Bool('max_nodes was reached')
  truncated!: boolean;
}

export class ChainResponse extends StepsAnswer {
  @OneOf(['chain'])
  mode!: 'chain';
}

export class NeighborhoodResponse extends StepsAnswer {
  @OneOf(['neighborhood'])
  mode!: 'neighborhood';
}

export class PathResponse {
  @OneOf(['path'])
  mode!: 'path';
  @Str()
  start_uid!: string;
  @Str()
  end_uid!: string;
  @Bool()
  found!: boolean;
  @NullableInt('null when no path was found')
  hops!: number | null;
  @NullableNum()
  path_cost!: number | null;
  @NullableNum()
  path_confidence!: number | null;
  @ListOf(() => PathStepResponse, 'start to end; empty when no path was found')
  steps!: PathStepResponse[];
  // beyond REFERENCE's fields for path: every traversal answer says whether max_nodes cut it short
  @Bool('max_nodes was reached')
  truncated!: boolean;
}

export class SubgraphResponse {
  @OneOf(['subgraph'])
  mode!: 'subgraph';
  @Str()
  start_uid!: string;
  @ListOfSharedWith('NodeRecord', SourcedNodeFields, 'the reached nodes and the start')
  nodes!: NodeRecord[];
  @ListOfShared('EdgeRecord', 'live edges among them that pass the filters')
  edges!: EdgeRecord[];
  @Bool()
  truncated!: boolean;
}

class WeightedPath {
  @Strings()
  node_uids!: string[];
  @Strings()
  labels!: string[];
  @Strings()
  edge_uids!: string[];
  @Strings()
  edge_types!: string[];
  @Int()
  hops!: number;
  @Num()
  cost!: number;
  @Num()
  confidence!: number;
}

export class TopKPathsResponse {
  @OneOf(['top_k_paths'])
  mode!: 'top_k_paths';
  @Str()
  start_uid!: string;
  @Str()
  end_uid!: string;
  @ListOf(() => WeightedPath, 'cheapest first')
  paths!: WeightedPath[];
  @Bool()
  truncated!: boolean;
}

/** `POST /subgraph` (REFERENCE §6.2) */
export class MultiSubgraphResponse {
  @Strings()
  start_uids!: string[];
  @ListOfSharedWith('NodeRecord', SourcedNodeFields, 'the reached nodes and the starts')
  nodes!: NodeRecord[];
  @ListOfShared('EdgeRecord')
  edges!: EdgeRecord[];
  @Bool()
  truncated!: boolean;
}
