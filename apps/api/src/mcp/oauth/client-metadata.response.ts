import { Str, Strings } from '../../platform/http/responses/response-fields';

/** Strata's OAuth Client ID Metadata Document: its URL is the client_id */
export class ClientMetadataDocument {
  @Str()
  client_id!: string;
  @Str()
  client_name!: string;
  @Str()
  client_uri!: string;
  @Strings()
  redirect_uris!: string[];
  @Strings()
  grant_types!: string[];
  @Strings()
  response_types!: string[];
  @Str()
  token_endpoint_auth_method!: string;
}
