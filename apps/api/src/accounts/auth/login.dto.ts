import { Field } from '../../platform/http/dto/field.decorator';
import { Text } from '../../platform/http/dto/field-rules';
import { LoginPassword } from '../account-fields';

/** POST /v1/auth/login. The e-mail is only looked up, so any text of an e-mail's length is accepted. */
export class LoginDto {
  @Field(Text({ required: true, max: 254, format: 'email', example: 'ada@example.com' })) email!: string;
  @Field(LoginPassword) password!: string;
}
