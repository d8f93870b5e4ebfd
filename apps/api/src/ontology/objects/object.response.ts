import type { NodeRecord } from '@strata/domain/records';
import { ListOfShared, OffsetPage, Shared, Str } from '../../platform/http/responses/response-fields';

/** `POST /v1/ontology/objects` (201): auto-approved and applied */
export class CreateObjectResponse {
  @Str()
  uid!: string;
  @Str('the applied proposal recording the creation')
  proposal_id!: string;
  @Shared('NodeRecord', 'the domain object: layer "ontology", props {_type, schema_id, object_type_id, canonical_name, fields, aliases, identity, review_status, proposal_id, source_uids}')
  object!: NodeRecord;
}

/** `GET /ontology/objects` */
export class ObjectPage extends OffsetPage {
  @ListOfShared('NodeRecord', 'domain objects')
  items!: NodeRecord[];
}
