import { Str } from '../../platform/http/responses/response-fields';

/** `POST /v1/ontology/propose-schema` (202): the draft schema and the job that fills it */
export class ProposeSchemaStartedResponse {
  @Str('the draft schema; its propose_status follows the job')
  schema_id!: string;
  @Str('job of kind ontology_propose')
  job_id!: string;
}
