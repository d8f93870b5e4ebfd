import { Field } from '../../platform/http/dto/field.decorator';
import { StringList, Text } from '../../platform/http/dto/field-rules';
import { JsonObject } from '../ontology-fields';

/** PATCH /v1/ontology/proposals/{id}: edits saved while the proposal stays pending. */
export class EditProposalDto {
  @Field(JsonObject({ required: true, description: '{canonical_name?, fields?, aliases?}' })) edits!: Record<string, unknown>;
}

export class ApproveProposalDto {
  @Field(Text({ max: 10_000 })) feedback?: string;
  @Field(JsonObject({ description: '{canonical_name?, fields?, aliases?} applied before approving' })) edits?: Record<string, unknown>;
}

export class RejectProposalDto {
  @Field(Text({ max: 10_000 })) reason?: string;
}

export class BatchApproveDto {
  @Field(StringList({ required: true, max: 100 })) ids!: string[];
  @Field(Text({ max: 10_000 })) feedback?: string;
}

export class BatchRejectDto {
  @Field(StringList({ required: true, max: 100 })) ids!: string[];
  @Field(Text({ max: 10_000 })) reason?: string;
}
