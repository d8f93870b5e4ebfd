import { ApiProperty } from '@nestjs/swagger';
import { Int, ListOf, Nested, NullableStr, Num, Str } from '../../platform/http/responses/response-fields';
import { NodeRef } from '../../platform/http/responses/graph-records';

// REFERENCE §10's signal items; every signal is left out unless requested (`?signals=`)
const Signal = (of: Function, description: string) => ApiProperty({ type: of, isArray: true, required: false, description });

class DocumentSignal {
  @Str()
  uid!: string;
  @Str()
  label!: string;
}

class EntityBridge extends NodeRef {
  @Int()
  doc_count!: number;
}

class ClaimHub {
  @Str()
  target_uid!: string;
  @Str()
  target_label!: string;
  @Str()
  target_type!: string;
  @Int()
  claim_count!: number;
}

class RankedClaimHub extends ClaimHub {
  @Int()
  distinct_doc_count!: number;
  @Int()
  project_doc_count!: number;
  @Int()
  dialectical_count!: number;
  @Num('0.5·breadth + 0.3·tension + 0.2·density')
  score!: number;
  @Num()
  breadth_score!: number;
  @Num()
  tension_score!: number;
  @Num()
  density_score!: number;
}

class SampleClaim {
  @Str()
  uid!: string;
  @Str()
  label!: string;
  @NullableStr()
  source_doc_label!: string | null;
}

class EpistemicCounts {
  @Int()
  evidence!: number;
  @Int()
  arguments!: number;
  @Int()
  warrants!: number;
  @Int()
  theories_hypotheses!: number;
  @Int()
  contradicts_edges!: number;
}

class ClusteredClaimHub {
  @Str()
  cluster_id!: string;
  @Int()
  size!: number;
  @Int()
  distinct_doc_count!: number;
  @Int()
  project_doc_count!: number;
  @Num()
  cohesion_score!: number;
  @Num()
  epistemic_density!: number;
  @Num()
  score!: number;
  @Num()
  breadth_score!: number;
  @Num()
  size_score!: number;
  @NullableStr()
  dominant_entity_uid!: string | null;
  @NullableStr()
  dominant_entity_label!: string | null;
  @NullableStr()
  dominant_entity_type!: string | null;
  @ListOf(() => SampleClaim)
  sample_claims!: SampleClaim[];
  @Nested(() => EpistemicCounts)
  epistemic_counts!: EpistemicCounts;
}

class TheorySupportGap extends NodeRef {
  @Int()
  support_count!: number;
}

class ConceptCluster {
  @Str()
  uid!: string;
  @Str()
  label!: string;
  @Int()
  doc_count!: number;
}

class AnalogyCandidate {
  @Str()
  uid!: string;
  @Str()
  label!: string;
  @NullableStr()
  summary!: string | null;
}

class DialecticalPair {
  @Str()
  edge_type!: string;
  @Str()
  from_uid!: string;
  @Str()
  from_label!: string;
  @Str()
  to_uid!: string;
  @Str()
  to_label!: string;
}

/** `GET /synthesis/signals/{project_uid}` (REFERENCE §10) */
export class SignalsResponse {
  @Str()
  project_uid!: string;
  @Signal(DocumentSignal, 'live Documents admitted to the Project')
  documents?: DocumentSignal[];
  @Signal(EntityBridge, 'target-type nodes extracted from at least 2 project documents')
  entity_bridges?: EntityBridge[];
  @Signal(ClaimHub, 'target-type nodes linked to at least 2 project Claims')
  claim_hubs?: ClaimHub[];
  @Signal(RankedClaimHub, 'claim hubs with scores')
  ranked_claim_hubs?: RankedClaimHub[];
  @Signal(ClusteredClaimHub, 'project Claims clustered by embedding similarity (or shared target)')
  clustered_claim_hubs?: ClusteredClaimHub[];
  @Signal(TheorySupportGap, 'Theories and Hypotheses with fewer than 2 incoming Supports')
  theory_support_gaps?: TheorySupportGap[];
  @Signal(ConceptCluster, 'Concepts by the number of project documents they appear in')
  concept_clusters?: ConceptCluster[];
  @Signal(AnalogyCandidate, 'project Analogy nodes')
  analogy_candidates?: AnalogyCandidate[];
  @Signal(DialecticalPair, 'live Contradicts, Refutes and Rebuts edges between project nodes')
  dialectical_pairs?: DialecticalPair[];
}
