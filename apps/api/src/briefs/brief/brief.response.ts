import { ApiProperty } from '@nestjs/swagger';
import { BRIEF_ITEM_KINDS } from '@strata/domain/briefs';
import { Bool, Int, ListOf, Nested, NullableInt, NullableNum, NullableStr, Num, OffsetPage, OneOf, Str, Strings } from '../../platform/http/responses/response-fields';

const TRIGGERS = ['regenerate', 'schedule', 'pin', 'unpin', 'correct'] as const;
const GENERATORS = ['structural', 'llm'] as const;
const CHANGE_TYPES = ['added', 'removed', 'text_changed', 'citations_changed', 'corrected', 'pinned', 'unpinned'] as const;

/** Where an item's text comes from in an admitted chunk (REFERENCE §12.3): UTF-8 byte offsets, end exclusive */
export class CitationRecord {
  @Str()
  chunk_uid!: string;
  @Str()
  document_uid!: string;
  @Str()
  document_title!: string;
  @Int()
  chunk_index!: number;
  @NullableStr('the basis node the citation comes from')
  node_uid!: string | null;
  @NullableInt('null when unanchored')
  char_start!: number | null;
  @NullableInt()
  char_end!: number | null;
  @NullableStr('exactly the bytes between the offsets')
  quote!: string | null;
  @NullableInt('from the Document’s page map')
  page_start!: number | null;
  @NullableInt()
  page_end!: number | null;
}

class CorrectionRecord {
  @Str()
  text!: string;
  @ListOf(() => CitationRecord)
  citations!: CitationRecord[];
  @Str('principal id')
  by!: string;
  @Num('Unix seconds')
  at!: number;
  @NullableStr()
  reason!: string | null;
}

/** One item of a brief (REFERENCE §12.3) */
export class BriefItemRecord {
  @Str('deterministic: the same kind and subjects give the same id in every version')
  id!: string;
  @OneOf(BRIEF_ITEM_KINDS)
  kind!: string;
  @Int('1-based within its kind')
  rank!: number;
  @Str('the correction’s text when corrected, else generated_text')
  text!: string;
  @Str()
  generated_text!: string;
  @Strings()
  subject_uids!: string[];
  @Strings()
  basis_uids!: string[];
  @ListOf(() => CitationRecord)
  citations!: CitationRecord[];
  @NullableNum()
  confidence!: number | null;
  @OneOf(GENERATORS)
  origin!: string;
  @Bool()
  pinned!: boolean;
  @NullableStr()
  pinned_by!: string | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Unix seconds' })
  pinned_at!: number | null;
  @ApiProperty({ type: () => CorrectionRecord, nullable: true })
  correction!: CorrectionRecord | null;
  @Bool('a pinned or corrected item whose sources are no longer all admitted')
  stale!: boolean;
  @Int('the version the item first appeared in')
  first_version!: number;
}

class ChangeText {
  @Str()
  text!: string;
}

/** A change against the previous version (REFERENCE §12.5) */
export class BriefChangeRecord {
  @OneOf(CHANGE_TYPES)
  type!: string;
  @Str()
  item_id!: string;
  @OneOf(BRIEF_ITEM_KINDS)
  kind!: string;
  @Bool()
  material!: boolean;
  @ApiProperty({ type: () => ChangeText, nullable: true })
  before!: ChangeText | null;
  @ApiProperty({ type: () => ChangeText, nullable: true })
  after!: ChangeText | null;
}

class SourceCounts {
  @Int()
  documents!: number;
  @Int()
  chunks!: number;
  @Int()
  nodes!: number;
  @Int()
  edges!: number;
}

/** An immutable version of a Project's brief (REFERENCE §12.3); times in Unix seconds */
export class BriefVersionRecord {
  @Str()
  project_uid!: string;
  @Int()
  version!: number;
  @Num('Unix seconds')
  created_at!: number;
  @OneOf(TRIGGERS)
  trigger!: string;
  @Str('principal id')
  requested_by!: string;
  @OneOf(GENERATORS)
  generated_by!: string;
  @NullableStr('the model of an llm version')
  model!: string | null;
  @Str('"sha256:" + hex')
  source_fingerprint!: string;
  @Nested(() => SourceCounts)
  source_counts!: SourceCounts;
  @NullableStr('llm versions; null when any admitted source is hidden from the caller')
  summary!: string | null;
  @ListOf(() => BriefItemRecord, 'items the caller may see')
  items!: BriefItemRecord[];
  @ListOf(() => BriefChangeRecord)
  changes!: BriefChangeRecord[];
  @Int()
  material_change_count!: number;
  @NullableInt()
  previous_version!: number | null;
}

class Regeneration {
  @Str()
  job_id!: string;
  @OneOf(['pending', 'processing'])
  status!: string;
  @Num('Unix seconds')
  requested_at!: number;
}

class BriefError {
  @Str()
  code!: string;
  @Str()
  message!: string;
  @Num('Unix seconds')
  at!: number;
}

/** `GET /projects/{project_uid}/brief` (REFERENCE §12.3) */
export class BriefStateResponse {
  @Str()
  project_uid!: string;
  @OneOf(['none', 'current', 'stale'])
  status!: string;
  @NullableInt()
  current_version!: number | null;
  @Str('of the sources now')
  source_fingerprint!: string;
  @ApiProperty({ type: () => Regeneration, nullable: true, description: 'the Project’s pending or processing LLM job' })
  regeneration!: Regeneration | null;
  @ApiProperty({ type: () => BriefError, nullable: true, description: 'the last failed regeneration since the current version' })
  last_error!: BriefError | null;
  @Int('items left out because they touch what the caller cannot see')
  withheld_items!: number;
  @ApiProperty({ type: () => BriefVersionRecord, nullable: true })
  brief!: BriefVersionRecord | null;
}

/** 200 reused, 201 a new structural version */
export class BriefRegeneratedResponse {
  @Bool()
  reused!: boolean;
  @Nested(() => BriefVersionRecord)
  version!: BriefVersionRecord;
}

/** 202: an LLM regeneration queued (job kind brief_regenerate) */
export class BriefRegenerationQueuedResponse {
  @Bool('false')
  reused!: boolean;
  @Str()
  job_id!: string;
  @OneOf(['pending'])
  status!: string;
}

/** `PATCH …/brief/items/{item_id}` */
export class BriefItemPatchResponse {
  @Bool('false: a no-op, nothing appended')
  changed!: boolean;
  @Nested(() => BriefVersionRecord, 'the current version after the PATCH')
  version!: BriefVersionRecord;
  @Nested(() => BriefItemRecord)
  item!: BriefItemRecord;
}

class ItemCounts {
  @Int()
  finding!: number;
  @Int()
  tension!: number;
  @Int()
  open_question!: number;
}

class BriefHistoryEntry {
  @Int()
  version!: number;
  @Num('Unix seconds')
  created_at!: number;
  @OneOf(TRIGGERS)
  trigger!: string;
  @OneOf(GENERATORS)
  generated_by!: string;
  @Str()
  source_fingerprint!: string;
  @Nested(() => ItemCounts)
  item_counts!: ItemCounts;
  @Int()
  material_change_count!: number;
  @ListOf(() => BriefChangeRecord)
  material_changes!: BriefChangeRecord[];
}

export class BriefHistoryPage extends OffsetPage {
  @ListOf(() => BriefHistoryEntry, 'newest first')
  items!: BriefHistoryEntry[];
}
