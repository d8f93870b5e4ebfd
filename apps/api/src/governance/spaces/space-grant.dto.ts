import { CLASSIFICATIONS, Classification } from '@strata/domain/governance';
import { Errors } from '@strata/domain/errors';
import { Field, FieldRule } from '../../platform/http/dto/field.decorator';
import { OneOf, Text } from '../../platform/http/dto/field-rules';

/** A level or null (every level); null is a value here, not "omitted". */
const Ceiling: FieldRule<Classification | null | undefined> = {
  required: false,
  check: (v, f) => (typeof v === 'string' && (CLASSIFICATIONS as readonly string[]).includes(v) ? null : Errors.invalidField(f, `${f} must be null or one of: ${CLASSIFICATIONS.join(', ')}`)),
  openapi: { enum: [...CLASSIFICATIONS], nullable: true, description: 'highest classification the grant reaches; null = every level' },
};

/** POST /v1/spaces/{space_uid}/grants */
export class SetSpaceGrantDto {
  @Field(Text({ required: true, max: 200, example: 'user:3f2a…', description: '`user:<id>` (an org member) or `agent:<id>` (a known agent)' })) principal_uid!: string;
  @Field(OneOf(['read', 'write'] as const, { required: true })) access!: 'read' | 'write';
  @Field(Ceiling) classification_ceiling?: Classification | null;
}
