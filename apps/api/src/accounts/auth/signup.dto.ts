import { Field } from '../../platform/http/dto/field.decorator';
import { Text } from '../../platform/http/dto/field-rules';
import { Email, NewPassword } from '../account-fields';

/** POST /v1/auth/signup: a user and the organization they own. */
export class SignupDto {
  @Field(Email()) email!: string;
  @Field(NewPassword) password!: string;
  @Field(Text({ max: 200, example: 'Ada Lovelace' })) name?: string;
  @Field(Text({ max: 200, description: "the new organization's name; derived from the e-mail when omitted" })) organization_name?: string;
}
