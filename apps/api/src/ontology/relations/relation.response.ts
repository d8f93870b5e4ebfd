import type { EdgeRecord } from '@strata/domain/records';
import { Bool, Shared } from '../../platform/http/responses/response-fields';

/** `POST /ontology/relation`: 201 created, 200 when the same live relation exists */
export class RelationResponse {
  @Shared('EdgeRecord', 'layer "ontology"; props {_type, schema_id, relation_type_id, fields}')
  edge!: EdgeRecord;
  @Bool('false when a live edge with the same (from, to, relation) already existed')
  created!: boolean;
}
