import { Str } from '../../platform/http/responses/response-fields';

/** `POST /ontology/extract` (202) */
export class ExtractStartedResponse {
  @Str('job of kind ontology_extract; its result is {proposals_created, auto_applied}')
  job_id!: string;
}
