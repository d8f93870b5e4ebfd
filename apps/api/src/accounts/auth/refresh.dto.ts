import { Field } from '../../platform/http/dto/field.decorator';
import { Text } from '../../platform/http/dto/field-rules';

/** POST /v1/auth/refresh: a refresh token, compared as sent (never trimmed). */
export class RefreshDto {
  @Field(Text({ required: true, max: 512, trim: false })) refresh_token!: string;
}
