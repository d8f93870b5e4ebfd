import { Bool, Iso, ListOf, OffsetPage, OneOf, Str } from '../../platform/http/responses/response-fields';

/** A role grant on a Project (REFERENCE §12.8) */
export class ProjectGrantResponse {
  @Str()
  project_uid!: string;
  @Str('user:<id> or agent:<id>')
  principal_uid!: string;
  @OneOf(['viewer', 'agent', 'editor'], 'users: viewer or editor; agents: viewer or agent')
  role!: string;
  @Str('principal id, as <kind>:<id>')
  granted_by!: string;
  @Iso()
  granted_at!: string;
  @Iso()
  updated_at!: string;
}

export class ProjectGrantPage extends OffsetPage {
  @ListOf(() => ProjectGrantResponse)
  items!: ProjectGrantResponse[];
}

export class ProjectGrantRevokedResponse {
  @Str()
  project_uid!: string;
  @Str()
  principal_uid!: string;
  @Bool('always true')
  revoked!: boolean;
}
