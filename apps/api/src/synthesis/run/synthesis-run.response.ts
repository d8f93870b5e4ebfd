import { Str } from '../../platform/http/responses/response-fields';

/** `POST /synthesis/run/{project_uid}` (REFERENCE §10): 202 */
export class SynthesisQueuedResponse {
  @Str('a job of kind synthesis: poll GET /jobs/{id}')
  job_id!: string;
}
