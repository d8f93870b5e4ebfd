import { KeyScope } from '@strata/domain/accounts';
import { Field } from '../../platform/http/dto/field.decorator';
import { IsoDateTime, Text, UidList } from '../../platform/http/dto/field-rules';
import { AgentId, Scopes } from '../account-fields';

/** POST /v1/api-keys: a named, scoped key, optionally expiring, fenced to Spaces or Projects, or bound to an agent. */
export class CreateApiKeyDto {
  @Field(Text({ required: true, max: 200, example: 'ingest bot' })) name!: string;
  @Field(Scopes) scopes!: KeyScope[];
  /** Unix seconds once parsed; must lie in the future (checked against the clock by the handler) */
  @Field(IsoDateTime({ description: 'ISO 8601 date-time in the future' })) expires_at?: number;
  @Field(UidList({ max: 1000, description: 'the Spaces the key may reach; all when omitted' })) space_uids?: string[];
  @Field(UidList({ max: 1000, description: 'the Projects the key may reach; all when omitted' })) project_uids?: string[];
  @Field(AgentId) agent_id?: string;
}

/** What a new key is made of; a rotation copies it from the old key. */
export interface ApiKeyInput {
  name: string;
  scopes: KeyScope[];
  expires_at: number | null;
  space_uids: string[] | null;
  project_uids: string[] | null;
  agent_id: string | null;
}

export function apiKeyInput(dto: CreateApiKeyDto): ApiKeyInput {
  return {
    name: dto.name,
    scopes: dto.scopes,
    expires_at: dto.expires_at ?? null,
    space_uids: dto.space_uids ?? null,
    project_uids: dto.project_uids ?? null,
    agent_id: dto.agent_id ?? null,
  };
}
