import { DEFAULT_ROTATION_OVERLAP_SECONDS, MAX_ROTATION_OVERLAP_SECONDS } from '@strata/domain/accounts';
import { Field } from '../../platform/http/dto/field.decorator';
import { Integer } from '../../platform/http/dto/field-rules';

/** POST /v1/api-keys/{id}/rotate. */
export class RotateApiKeyDto {
  @Field(Integer({ min: 0, description: `how long the old key keeps working; default ${DEFAULT_ROTATION_OVERLAP_SECONDS}, at most ${MAX_ROTATION_OVERLAP_SECONDS}` }))
  overlap_seconds?: number;
}
