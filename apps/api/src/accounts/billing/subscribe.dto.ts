import { PLAN_IDS, PlanId } from '@strata/domain/accounts';
import { Field } from '../../platform/http/dto/field.decorator';
import { OneOf } from '../../platform/http/dto/field-rules';

/** POST /v1/billing/subscribe. */
export class SubscribeDto {
  @Field(OneOf(PLAN_IDS, { required: true })) plan!: PlanId;
}
