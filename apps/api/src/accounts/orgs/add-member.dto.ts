import { ROLES, Role } from '@strata/domain/accounts';
import { Field } from '../../platform/http/dto/field.decorator';
import { OneOf } from '../../platform/http/dto/field-rules';
import { Email } from '../account-fields';

/** POST /v1/orgs/{org_id}/members: a signed-up user, by e-mail, with a role (default member). */
export class AddMemberDto {
  @Field(Email()) email!: string;
  @Field(OneOf(ROLES, { description: 'default `member`' })) role?: Role;
}
