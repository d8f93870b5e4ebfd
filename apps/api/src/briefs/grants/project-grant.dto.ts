import { PROJECT_ROLES, ProjectRole } from '@strata/domain/briefs';
import { Field } from '../../platform/http/dto/field.decorator';
import { OneOf, Text } from '../../platform/http/dto/field-rules';

/** POST /v1/projects/{project_uid}/grants */
export class SetProjectGrantDto {
  @Field(Text({ required: true, max: 200, example: 'user:3f2a…', description: '`user:<id>` (an org member) or `agent:<id>` (a known agent)' })) principal_uid!: string;
  @Field(OneOf(PROJECT_ROLES, { required: true, description: 'users take viewer or editor, agents viewer or agent' })) role!: ProjectRole;
}
