import { useEffect, useRef, useState } from 'react';
import { ApiError, type BodyOf } from '../api.js';
import type { Area, Ctx, PageProps } from '../context.js';
import { isAdmin } from '../context.js';
import { when } from '../format.js';
import { BASE } from '../router.js';
import type { Page } from '../types.js';
import { BusyButton, CheckField, ErrorBox, Field, Select, Table, useAction, useLoad } from '../ui.js';

/**
 * MCP connections: their states (active, pending_auth, error, disconnected), tools and drift,
 * the last error. Owners and admins add a connection (no auth, a bearer token, or OAuth),
 * sync, reauthorize, change and disconnect one. OAuth goes through the authorization server
 * in this tab: the link the service returns, and its callback brings the person back here
 * (`return_url`) with `?mcp_connection=<id>&status=<status>`, which the page reports.
 */
interface Connection {
  id: string;
  name: string;
  url: string;
  status: 'active' | 'pending_auth' | 'error' | 'disconnected';
  server_info: { name: string; version: string } | null;
  auth: { type: string; hint: string | null; oauth: { authorization_server: string; scopes: string[] } | null };
  authorization: { url: string; expires_at: string } | null;
  approval_mode: 'always' | 'never' | 'per_tool' | 'on_drift';
  approval_timeout_s: number;
  call_timeout_s: number;
  tools_count: number;
  unacknowledged_drift_count: number;
  last_sync_at: string | null;
  last_error: { code: string; message: string; at: string } | null;
  created_at: string;
}
interface SyncResult {
  connection: Connection;
  sync: { tools_count: number; added: string[]; changed: string[]; removed: string[]; drift_events: unknown[] };
}

/** where the OAuth callback brings the person back to */
const RETURN_URL = `${BASE}/mcp`;

/** A refused check names which one: the server's message, then the checks that failed. */
function withChecks(err: unknown): unknown {
  const checks = err instanceof ApiError ? (err.body as { checks?: { name: string; status: string; detail: string | null }[] } | null)?.checks : undefined;
  if (!checks) return err;
  return new ApiError((err as ApiError).status, 'mcp_check_failed', `${(err as Error).message} — ${checks.filter((c) => c.status === 'fail').map((c) => `${c.name}: ${c.detail ?? 'failed'}`).join('; ')}`, null);
}

/** What the last action came to: a sentence, or the way to the authorization server. */
type Outcome = { text: string } | { authorize: Connection } | null;

/** The way to the authorization server: the service's link, opened in this tab. */
function AuthorizeLink({ c }: { c: Connection }) {
  const ref = useRef<HTMLAnchorElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <>
      <a href={c.authorization!.url} id="authorize-link" ref={ref}>{`Authorize ${c.name} at ${new URL(c.authorization!.url).host}`}</a>
      {` (before ${when(c.authorization!.expires_at)})`}
    </>
  );
}

function NewConnection({ ctx, created }: { ctx: Ctx; created(c: Connection): Promise<void> }) {
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [authType, setAuthType] = useState('none');
  const [token, setToken] = useState('');
  const [clientId, setClientId] = useState('');
  const [clientSecret, setClientSecret] = useState('');
  const [scopes, setScopes] = useState('');
  const [approval, setApproval] = useState<Connection['approval_mode']>('always');
  const action = useAction();
  return (
    <form
      className="card"
      aria-labelledby="new-mcp-h"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run(async () => {
          const auth =
            authType === 'bearer'
              ? { type: 'bearer', token }
              : authType === 'oauth'
                ? { type: 'oauth', ...(clientId.trim() ? { client_id: clientId.trim() } : {}), ...(clientSecret ? { client_secret: clientSecret } : {}), ...(scopes.trim() ? { scopes: scopes.trim().split(/\s+/) } : {}) }
                : { type: 'none' };
          let c: Connection;
          try {
            c = await ctx.api.post<Connection, '/v1/mcp/connections'>('/v1/mcp/connections', {
              name: name.trim(),
              url: url.trim(),
              // the OpenAPI document types `auth` as an empty object (a union the DTO does not spell out)
              auth: auth as never,
              approval_mode: approval,
              ...(authType === 'oauth' ? { return_url: RETURN_URL } : {}),
            });
          } catch (err) {
            throw withChecks(err);
          }
          await created(c);
        });
      }}
    >
      <h2 id="new-mcp-h">New connection</h2>
      <Field label="Name">
        <input type="text" name="name" required maxLength={100} value={name} onChange={(e) => setName(e.currentTarget.value)} />
      </Field>
      <Field label="Server URL">
        <input type="url" name="url" required placeholder="https://mcp.example.com/mcp" value={url} onChange={(e) => setUrl(e.currentTarget.value)} />
      </Field>
      <Field label="Authentication">
        <Select name="auth_type" value={authType} onChange={(e) => setAuthType(e.currentTarget.value)} options={[['none', 'none'], ['bearer', 'bearer token'], ['oauth', 'OAuth (sign in at the server)']]} />
      </Field>
      <Field label="Bearer token (kept encrypted, never shown again)" hidden={authType !== 'bearer'}>
        <input type="password" name="token" autoComplete="off" value={token} onChange={(e) => setToken(e.currentTarget.value)} />
      </Field>
      <div hidden={authType !== 'oauth'}>
        <Field label="OAuth client id (optional: registered automatically otherwise)">
          <input type="text" name="client_id" autoComplete="off" value={clientId} onChange={(e) => setClientId(e.currentTarget.value)} />
        </Field>
        <Field label="OAuth client secret (optional)">
          <input type="password" name="client_secret" autoComplete="off" value={clientSecret} onChange={(e) => setClientSecret(e.currentTarget.value)} />
        </Field>
        <Field label="Scopes (optional, space separated)">
          <input type="text" name="scopes" placeholder="tools read" value={scopes} onChange={(e) => setScopes(e.currentTarget.value)} />
        </Field>
      </div>
      <Field label="Approve calls" hint="always: every call waits for a person; on_drift: only after a tool changed.">
        <Select name="approval_mode" value={approval} onChange={(e) => setApproval(e.currentTarget.value as Connection['approval_mode'])} options={['always', 'never', 'per_tool', 'on_drift']} />
      </Field>
      <ErrorBox error={action.error} />
      <button type="submit" disabled={action.busy} aria-busy={action.busy || undefined}>
        Add connection
      </button>
    </form>
  );
}

function ReplaceToken({ ctx, c, done, onError }: { ctx: Ctx; c: Connection; done(): Promise<void>; onError(e: unknown): void }) {
  const [token, setToken] = useState('');
  const action = useAction();
  return (
    <details>
      <summary>{`Reauthorize ${c.name}`}</summary>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          onError(null);
          void action.run(async () => {
            try {
              // the token is checked against the server first; a refusal keeps the old one
              await ctx.api.post<Connection, '/v1/mcp/connections/{id}/reauthorize'>('/v1/mcp/connections/{id}/reauthorize', { auth: { type: 'bearer', token } as never }, { path: { id: c.id } });
            } catch (err) {
              onError(withChecks(err));
              return;
            }
            await done();
          });
        }}
      >
        <Field label={`New bearer token for ${c.name}`}>
          <input type="password" name="token" autoComplete="off" required value={token} onChange={(e) => setToken(e.currentTarget.value)} />
        </Field>
        <button type="submit" className="small" disabled={action.busy} aria-busy={action.busy || undefined}>
          Replace token
        </button>
      </form>
    </details>
  );
}

function ChangeConnection({ ctx, c, done, onError }: { ctx: Ctx; c: Connection; done(name: string): Promise<void>; onError(e: unknown): void }) {
  const [name, setName] = useState(c.name);
  const [approval, setApproval] = useState(c.approval_mode);
  const [approvalTimeout, setApprovalTimeout] = useState(String(c.approval_timeout_s));
  const [callTimeout, setCallTimeout] = useState(String(c.call_timeout_s));
  const [drift, setDrift] = useState(false);
  const action = useAction();
  return (
    <details>
      <summary>{`Change ${c.name}`}</summary>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          onError(null);
          void action.run(async () => {
            const body: BodyOf<'patch', '/v1/mcp/connections/{id}'> = {};
            if (name.trim() !== c.name) body.name = name.trim();
            if (approval !== c.approval_mode) body.approval_mode = approval;
            if (Number(approvalTimeout) !== c.approval_timeout_s) body.approval_timeout_s = Number(approvalTimeout);
            if (Number(callTimeout) !== c.call_timeout_s) body.call_timeout_s = Number(callTimeout);
            if (drift) body.acknowledge_drift = 'all';
            try {
              await ctx.api.patch<Connection, '/v1/mcp/connections/{id}'>('/v1/mcp/connections/{id}', body, { path: { id: c.id } });
            } catch (err) {
              onError(err);
              return;
            }
            await done(name.trim());
          });
        }}
      >
        <Field label="Name">
          <input type="text" name="name" required maxLength={100} value={name} onChange={(e) => setName(e.currentTarget.value)} />
        </Field>
        <Field label="Approve calls">
          <Select name="approval_mode" value={approval} onChange={(e) => setApproval(e.currentTarget.value as Connection['approval_mode'])} options={['always', 'never', 'per_tool', 'on_drift']} />
        </Field>
        <Field label="Approval waits (seconds)">
          <input type="number" name="approval_timeout_s" min={60} max={604800} value={approvalTimeout} onChange={(e) => setApprovalTimeout(e.currentTarget.value)} />
        </Field>
        <Field label="Call timeout (seconds)">
          <input type="number" name="call_timeout_s" min={1} max={300} value={callTimeout} onChange={(e) => setCallTimeout(e.currentTarget.value)} />
        </Field>
        {c.unacknowledged_drift_count ? (
          <CheckField label={`Accept the ${c.unacknowledged_drift_count} changed tool(s) as they are now`} name="acknowledge_drift" checked={drift} onChange={setDrift} />
        ) : null}
        <button type="submit" className="small" disabled={action.busy} aria-busy={action.busy || undefined}>
          Save
        </button>
      </form>
    </details>
  );
}

function returnedOutcome(q: URLSearchParams, items: Connection[]): Outcome {
  const returned = q.get('mcp_connection');
  if (!returned) return null;
  const c = items.find((x) => x.id === returned);
  return {
    text: c
      ? c.status === 'active'
        ? `${c.name} is connected: ${c.tools_count} tools.`
        : `${c.name} is ${c.status}${c.last_error ? `: ${c.last_error.message}` : ''}.`
      : `The authorization ended with status ${q.get('status') ?? 'unknown'}.`,
  };
}

function McpConnections({ ctx, query: q }: PageProps) {
  const admin = isAdmin(ctx.role);
  const withDisconnected = q.get('include_disconnected') === 'true';
  const { data: page, error: loadError, reload } = useLoad(
    () => ctx.api.get<Page<Connection>>('/v1/mcp/connections', { query: { limit: 1000, include_disconnected: withDisconnected || undefined } }),
    [],
  );
  const [outcome, setOutcome] = useState<Outcome | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [made, setMade] = useState(0);
  if (!page) return <ErrorBox error={loadError} />;
  const shown = outcome === undefined ? returnedOutcome(q, page.items) : outcome;

  const actions = (c: Connection) => {
    if (!admin || c.status === 'disconnected') return null;
    return (
      <div className="row-actions">
        {c.status === 'active' || c.status === 'error' ? (
          <BusyButton
            className="small"
            aria-label={`Sync ${c.name}`}
            onError={setError}
            action={async () => {
              setOutcome({ text: `Syncing ${c.name}…` });
              try {
                const r = await ctx.api.post<SyncResult, '/v1/mcp/connections/{id}/sync'>('/v1/mcp/connections/{id}/sync', {}, { path: { id: c.id } });
                await reload();
                const s = r.sync;
                setOutcome({
                  text: `Synced ${c.name}: ${s.tools_count} tools${s.added.length ? `; added ${s.added.join(', ')}` : ''}${s.changed.length ? `; changed ${s.changed.join(', ')}` : ''}${s.removed.length ? `; removed ${s.removed.join(', ')}` : ''}${s.drift_events.length ? `; ${s.drift_events.length} drift event(s)` : ''}.`,
                });
              } catch (err) {
                setOutcome({ text: '' });
                // a failed sync changed the connection's state: show it, then the server's message
                if (err instanceof ApiError && err.status === 502) await reload();
                throw err;
              }
            }}
          >
            Sync
          </BusyButton>
        ) : null}
        {c.auth.type === 'oauth' ? (
          <BusyButton
            className="small secondary"
            aria-label={`Reauthorize ${c.name}`}
            onError={setError}
            action={async () => {
              const r = await ctx.api.post<Connection, '/v1/mcp/connections/{id}/reauthorize'>('/v1/mcp/connections/{id}/reauthorize', { return_url: RETURN_URL }, { path: { id: c.id } });
              await reload();
              setOutcome(r.authorization ? { authorize: r } : { text: `${r.name} is ${r.status}.` });
            }}
          >
            Reauthorize
          </BusyButton>
        ) : c.auth.type === 'bearer' ? (
          <ReplaceToken
            ctx={ctx}
            c={c}
            onError={setError}
            done={async () => {
              await reload();
              setOutcome({ text: `${c.name}: token replaced.` });
            }}
          />
        ) : null}
        <ChangeConnection
          ctx={ctx}
          c={c}
          onError={setError}
          done={async (name) => {
            await reload();
            setOutcome({ text: `${name}: saved.` });
          }}
        />
        <BusyButton
          className="small danger"
          aria-label={`Disconnect ${c.name}`}
          onError={setError}
          action={async () => {
            if (!confirm(`Disconnect ${c.name}? Its credentials are destroyed and its pending approvals cancelled.`)) return;
            await ctx.api.delete('/v1/mcp/connections/{id}', { path: { id: c.id } });
            await reload();
            setOutcome({ text: `${c.name} is disconnected.` });
          }}
        >
          Disconnect
        </BusyButton>
      </div>
    );
  };

  return (
    <>
      <h1>MCP connections</h1>
      <section className="card" aria-labelledby="mcp-h">
        <h2 id="mcp-h">{`Connections (${page.items.length})`}</h2>
        <label className="check" htmlFor="show-disconnected">
          <input type="checkbox" id="show-disconnected" checked={withDisconnected} onChange={(e) => ctx.navigate(`${BASE}/mcp${e.currentTarget.checked ? '?include_disconnected=true' : ''}`)} /> Show disconnected
        </label>
        <Table<Connection>
          caption="MCP connections"
          rowKey={(c) => `${c.id}-${c.status}-${c.name}-${c.approval_mode}-${c.unacknowledged_drift_count}`}
          columns={[
            [
              'Connection',
              (c) => (
                <>
                  <strong>{c.name}</strong>
                  <div className="muted">{c.url}</div>
                  {c.server_info ? <div className="muted">{`${c.server_info.name} ${c.server_info.version}`}</div> : null}
                </>
              ),
            ],
            [
              'Status',
              (c) => (
                <>
                  <span className={`status status-${c.status}`} data-connection={c.id}>
                    {c.status}
                  </span>
                  {c.authorization ? (
                    <div>
                      <a href={c.authorization.url} rel="noopener">
                        Authorize
                      </a>
                      {` by ${when(c.authorization.expires_at)}`}
                    </div>
                  ) : null}
                </>
              ),
            ],
            ['Auth', (c) => `${c.auth.type}${c.auth.hint ? ` ${c.auth.hint}` : ''}`],
            [
              'Tools',
              (c) => (
                <>
                  {String(c.tools_count)}
                  {c.unacknowledged_drift_count ? <span className="pill danger">{`${c.unacknowledged_drift_count} drift`}</span> : null}
                </>
              ),
            ],
            ['Approvals', (c) => c.approval_mode],
            [
              'Last sync',
              (c) => (
                <>
                  {when(c.last_sync_at)}
                  {c.last_error ? <div className="error-text">{`${c.last_error.code}: ${c.last_error.message}`}</div> : null}
                </>
              ),
            ],
            ['', actions],
          ]}
          items={page.items}
          empty="No connections."
        />
        <p role="status" className="muted" id="mcp-outcome">
          {shown && 'authorize' in shown ? <AuthorizeLink c={shown.authorize} /> : (shown?.text ?? '')}
        </p>
        <ErrorBox error={error} />
      </section>
      {admin ? (
        <NewConnection
          key={made}
          ctx={ctx}
          created={async (c) => {
            await reload();
            setMade((n) => n + 1);
            if (c.authorization) setOutcome({ authorize: c });
          }}
        />
      ) : (
        <p className="muted">Owners and admins add and sync connections.</p>
      )}
    </>
  );
}

export const mcpConnections: Area = {
  id: 'mcp',
  routes: ['/mcp'],
  nav: { label: 'MCP connections', path: '/mcp', group: 'Agents' },
  title: () => 'MCP connections',
  Page: McpConnections,
};
