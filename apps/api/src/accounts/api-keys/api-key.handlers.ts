import { Inject, Injectable } from '@nestjs/common';
import {
  AccountEventTypes as T,
  ApiKeyCreatedData,
  ApiKeyRevokedData,
  ApiKeyRotatedData,
  decideAgentBinding,
  decideKeyExpiry,
  decideRevoke,
  decideRotate,
  keyNotFound,
  replacementExpiry,
} from '@strata/domain/accounts';
import { Streams } from '@strata/domain/events';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator } from '@strata/domain/time';
import { EVENT_STORE, EventStore } from '@strata/event-store/event-store.port';
import { AuthContext } from '@strata/auth/auth-context';
import { apiKeyDisplayPrefix, generateApiKeySecret, sha256Hex } from '@strata/auth/tokens/secrets';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import { UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { ACCOUNTS_UNIT_OF_WORK } from '@strata/accounts/accounts-unit-of-work';
import { ACTIVITY_LIMIT, RequestActivity } from '../activity/request-activity';
import { accountContext } from '../context';
import { ApiKeyInput } from './create-api-key.dto';
import { iso, paginated, presentKey } from '../presenters';
import { AccountsReadModel, KeyRow } from '@strata/projections/accounts/accounts-read-model';
import { KnownAgents } from '@strata/platform/scope/known-agents';
import { assertScopeTargets } from '@strata/platform/scope/scope-targets';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';

const LIFECYCLE: Record<string, string> = { ApiKeyCreated: 'created', ApiKeyRotated: 'rotated', ApiKeyRevoked: 'revoked' };

/** Organization API keys: create (secret shown once), list, rotate with overlap, revoke, activity. */
@Injectable()
export class ApiKeyHandlers {
  constructor(
    @Inject(ACCOUNTS_UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    private readonly accounts: AccountsReadModel,
    private readonly activity: RequestActivity,
    private readonly agents: KnownAgents,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
  ) {}

  /** Stages a new key; returns the event data and the secret (never stored). */
  private stageKey(tx: GraphTx, auth: AuthContext, input: ApiKeyInput, rotatedFrom: string | null): { data: ApiKeyCreatedData; secret: string } {
    const secret = generateApiKeySecret();
    const data: ApiKeyCreatedData = {
      key_id: this.ids.uuid(),
      org_id: auth.org_id,
      name: input.name,
      prefix: apiKeyDisplayPrefix(secret),
      secret_sha256: sha256Hex(secret),
      scopes: input.scopes,
      expires_at: input.expires_at,
      space_uids: input.space_uids,
      project_uids: input.project_uids,
      agent_id: input.agent_id,
      created_by: auth.user_id!,
      created_at: tx.now,
      rotated_from: rotatedFrom,
    };
    tx.emit(Streams.apiKey(data.key_id), T.ApiKeyCreated, data, 'no_stream');
    return { data, secret };
  }

  private created(data: ApiKeyCreatedData, secret: string, now: number) {
    const row: KeyRow = { ...data, replaced_by: null, overlap_until: null, revoked_at: null, revoked_by: null, revision: 0 };
    const { id, name, ...rest } = presentKey(row, now, null);
    return { id, name, key: secret, ...rest };
  }

  async create(auth: AuthContext, input: ApiKeyInput, requestId: string) {
    decideKeyExpiry(input.expires_at, this.clock.now());
    // only this organization's principals could be mistaken for the key's (REFERENCE §1.4: each
    // organization sees only its own); refusing another's ids would confirm they exist
    if (input.agent_id !== null)
      decideAgentBinding(
        input.agent_id,
        (id) => this.accounts.membership(auth.org_id, id) !== null || this.accounts.key(id)?.org_id === auth.org_id,
        (id) => this.agents.isArchivedManaged(auth.org_id, id),
      );
    // a Space the key names must exist in this organization, as an agent's scope must (REFERENCE §13.2, §16.3)
    await assertScopeTargets((uid) => this.graph.getNode(auth.org_id, uid), { space_uids: input.space_uids });
    return this.uow.run(accountContext(auth, requestId), async (tx) => {
      const { data, secret } = this.stageKey(tx, auth, input, null);
      return this.created(data, secret, tx.now);
    });
  }

  async list(auth: AuthContext, limit: number, offset: number) {
    const now = this.clock.now();
    const rows = this.accounts.keys(auth.org_id, limit + 1, offset);
    const page = rows.slice(0, limit);
    const lastUsed = await this.activity.lastUsedAt(page.map((k) => k.key_id));
    const items = page.map((k) => presentKey(k, now, lastUsed.get(k.key_id) ?? null));
    return paginated(items, limit, offset, rows.length > limit);
  }

  private ownKey(auth: AuthContext, keyId: string): KeyRow {
    const k = this.accounts.key(keyId);
    if (!k || k.org_id !== auth.org_id) throw keyNotFound(keyId);
    return k;
  }

  /** A replacement with the same policy; the old key works for `overlapSeconds` more (≤ 7 days). */
  async rotate(auth: AuthContext, keyId: string, overlapSeconds: number, requestId: string) {
    return this.uow.run(accountContext(auth, requestId), async (tx) => {
      const old = this.ownKey(auth, keyId);
      const { overlap_until } = decideRotate(old, overlapSeconds, tx.now);
      const input: ApiKeyInput = {
        name: old.name,
        scopes: old.scopes,
        expires_at: replacementExpiry(old),
        space_uids: old.space_uids,
        project_uids: old.project_uids,
        agent_id: old.agent_id,
      };
      const { data, secret } = this.stageKey(tx, auth, input, old.key_id);
      const rotated: ApiKeyRotatedData = {
        key_id: old.key_id,
        org_id: old.org_id,
        replaced_by: data.key_id,
        overlap_until,
        rotated_by: auth.user_id!,
        at: tx.now,
      };
      tx.emit(Streams.apiKey(old.key_id), T.ApiKeyRotated, rotated, old.revision);
      return { ...this.created(data, secret, tx.now), previous_key: { id: old.key_id, overlap_until: iso(overlap_until) } };
    });
  }

  /** Revokes at once (idempotent); the next request with the key is refused. */
  async revoke(auth: AuthContext, keyId: string, requestId: string) {
    return this.uow.run(accountContext(auth, requestId), async (tx) => {
      const k = this.ownKey(auth, keyId);
      if (!decideRevoke(k)) return { id: k.key_id, revoked: true, revoked_at: iso(k.revoked_at) };
      const d: ApiKeyRevokedData = { key_id: k.key_id, org_id: k.org_id, revoked_by: auth.user_id!, at: tx.now };
      tx.emit(Streams.apiKey(k.key_id), T.ApiKeyRevoked, d, k.revision);
      return { id: k.key_id, revoked: true, revoked_at: iso(tx.now) };
    });
  }

  /** The 50 most recent lifecycle events (from the key's stream) and requests, newest first. */
  async activityOf(auth: AuthContext, keyId: string) {
    const k = this.ownKey(auth, keyId);
    const lifecycle = (await this.events.readStream(Streams.apiKey(k.key_id)))
      .filter((e) => LIFECYCLE[e.type])
      .map((e) => {
        const extra: Record<string, unknown> = {};
        if (e.type === 'ApiKeyRotated') {
          extra.replaced_by = e.data.replaced_by;
          extra.overlap_until = iso(e.data.overlap_until);
        }
        if (e.type === 'ApiKeyCreated' && e.data.rotated_from) extra.rotated_from = e.data.rotated_from;
        return { at: e.metadata.occurred_at, item: { type: LIFECYCLE[e.type], at: iso(e.metadata.occurred_at), actor: e.metadata.principal, ...extra } };
      });
    const requests = (await this.activity.recentRequests(k.key_id)).map((r) => ({
      at: r.at,
      item: { type: 'request', at: iso(r.at), method: r.method, route: r.route, status: r.status },
    }));
    const items = [...lifecycle, ...requests]
      .sort((a, b) => b.at - a.at)
      .slice(0, ACTIVITY_LIMIT)
      .map((x) => x.item);
    return { key_id: k.key_id, items };
  }
}
