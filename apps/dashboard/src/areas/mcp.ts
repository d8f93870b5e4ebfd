import { ApiError, type BodyOf } from '../api.js';
import type { Area } from '../context.js';
import { isAdmin } from '../context.js';
import { busy, checkField, errorBox, field, h, input, replace, select, table, when } from '../dom.js';
import { BASE } from '../router.js';
import type { Page } from '../types.js';

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

/** The way to the authorization server: the service's link, opened in this tab. */
function authorizeNotice(main: HTMLElement, c: Connection): void {
  const link = h('a', { href: c.authorization!.url, id: 'authorize-link' }, `Authorize ${c.name} at ${new URL(c.authorization!.url).host}`);
  main.querySelector('#mcp-outcome')!.replaceChildren(link, ` (before ${when(c.authorization!.expires_at)})`);
  link.focus();
}

export const mcpConnections: Area = {
  id: 'mcp',
  routes: ['/mcp'],
  nav: { label: 'MCP connections', path: '/mcp', group: 'Agents' },
  title: () => 'MCP connections',
  async render(ctx, _p, main, q) {
    const admin = isAdmin(ctx.role);
    const withDisconnected = q.get('include_disconnected') === 'true';
    const page = await ctx.api.get<Page<Connection>>('/v1/mcp/connections', { query: { limit: 1000, include_disconnected: withDisconnected || undefined } });
    const errors = errorBox();
    const outcome = h('p', { role: 'status', class: 'muted', id: 'mcp-outcome' });
    const again = () => mcpConnections.render!(ctx, {}, main, q);
    const toggle = h('input', { type: 'checkbox', id: 'show-disconnected', checked: withDisconnected });
    toggle.addEventListener('change', () => ctx.navigate(`${BASE}/mcp${toggle.checked ? '?include_disconnected=true' : ''}`));

    let form: HTMLElement | null = null;
    if (admin) {
      const name = input({ name: 'name', required: true, maxlength: 100 });
      const url = input({ type: 'url', name: 'url', required: true, placeholder: 'https://mcp.example.com/mcp' });
      const authType = select('auth_type', [['none', 'none'], ['bearer', 'bearer token'], ['oauth', 'OAuth (sign in at the server)']], 'none');
      const token = input({ type: 'password', name: 'token', autocomplete: 'off' });
      const clientId = input({ name: 'client_id', autocomplete: 'off' });
      const clientSecret = input({ type: 'password', name: 'client_secret', autocomplete: 'off' });
      const scopes = input({ name: 'scopes', placeholder: 'tools read' });
      const tokenField = field('Bearer token (kept encrypted, never shown again)', token);
      const oauthFields = h('div', {}, field('OAuth client id (optional: registered automatically otherwise)', clientId), field('OAuth client secret (optional)', clientSecret), field('Scopes (optional, space separated)', scopes));
      const showAuth = () => {
        tokenField.hidden = authType.value !== 'bearer';
        oauthFields.hidden = authType.value !== 'oauth';
      };
      authType.addEventListener('change', showAuth);
      showAuth();
      const approval = select('approval_mode', ['always', 'never', 'per_tool', 'on_drift'], 'always');
      const createErrors = errorBox();
      const go = h('button', { type: 'submit' }, 'Add connection');
      form = h('form', { class: 'card', 'aria-labelledby': 'new-mcp-h' }, h('h2', { id: 'new-mcp-h' }, 'New connection'),
        field('Name', name), field('Server URL', url), field('Authentication', authType), tokenField, oauthFields,
        field('Approve calls', approval, 'always: every call waits for a person; on_drift: only after a tool changed.'), createErrors, go);
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        void busy(go, createErrors, async () => {
          const auth = authType.value === 'bearer' ? { type: 'bearer', token: token.value }
            : authType.value === 'oauth' ? { type: 'oauth', ...(clientId.value.trim() ? { client_id: clientId.value.trim() } : {}), ...(clientSecret.value ? { client_secret: clientSecret.value } : {}), ...(scopes.value.trim() ? { scopes: scopes.value.trim().split(/\s+/) } : {}) }
            : { type: 'none' };
          let created: Connection;
          try {
            created = await ctx.api.post<Connection, '/v1/mcp/connections'>('/v1/mcp/connections', {
              name: name.value.trim(),
              url: url.value.trim(),
              // the OpenAPI document types `auth` as an empty object (a union the DTO does not spell out)
              auth: auth as never,
              approval_mode: approval.value as Connection['approval_mode'],
              ...(authType.value === 'oauth' ? { return_url: RETURN_URL } : {}),
            });
          } catch (err) {
            throw withChecks(err);
          }
          await again();
          if (created.authorization) authorizeNotice(main, created);
        });
      });
    }

    const syncButton = (c: Connection) => {
      const b = h('button', { type: 'button', class: 'small', 'aria-label': `Sync ${c.name}` }, 'Sync');
      b.addEventListener('click', () => void busy(b, errors, async () => {
        outcome.textContent = `Syncing ${c.name}…`;
        try {
          const r = await ctx.api.post<SyncResult, '/v1/mcp/connections/{id}/sync'>('/v1/mcp/connections/{id}/sync', {}, { path: { id: c.id } });
          await again();
          const s = r.sync;
          main.querySelector('#mcp-outcome')!.textContent = `Synced ${c.name}: ${s.tools_count} tools${s.added.length ? `; added ${s.added.join(', ')}` : ''}${s.changed.length ? `; changed ${s.changed.join(', ')}` : ''}${s.removed.length ? `; removed ${s.removed.join(', ')}` : ''}${s.drift_events.length ? `; ${s.drift_events.length} drift event(s)` : ''}.`;
        } catch (err) {
          outcome.textContent = '';
          // a failed sync changed the connection's state: show it, then the server's message
          if (err instanceof ApiError && err.status === 502) {
            await again();
            (main.querySelector('.error[role=alert]') as (HTMLElement & { show(e: unknown): void }) | null)?.show(err);
            return;
          }
          throw err;
        }
      }));
      return b;
    };

    const reauthorize = (c: Connection) => {
      if (c.auth.type === 'oauth') {
        const b = h('button', { type: 'button', class: 'small secondary', 'aria-label': `Reauthorize ${c.name}` }, 'Reauthorize');
        b.addEventListener('click', () => void busy(b, errors, async () => {
          const r = await ctx.api.post<Connection, '/v1/mcp/connections/{id}/reauthorize'>('/v1/mcp/connections/{id}/reauthorize', { return_url: RETURN_URL }, { path: { id: c.id } });
          await again();
          if (r.authorization) authorizeNotice(main, r);
          else main.querySelector('#mcp-outcome')!.textContent = `${r.name} is ${r.status}.`;
        }));
        return b;
      }
      if (c.auth.type !== 'bearer') return null;
      const token = input({ type: 'password', name: 'token', autocomplete: 'off', required: true });
      const save = h('button', { type: 'submit', class: 'small' }, 'Replace token');
      const f = h('form', {}, field(`New bearer token for ${c.name}`, token), save);
      f.addEventListener('submit', (e) => {
        e.preventDefault();
        void busy(save, errors, async () => {
          try {
            // the token is checked against the server first; a refusal keeps the old one
            await ctx.api.post<Connection, '/v1/mcp/connections/{id}/reauthorize'>('/v1/mcp/connections/{id}/reauthorize', { auth: { type: 'bearer', token: token.value } as never }, { path: { id: c.id } });
          } catch (err) {
            throw withChecks(err);
          }
          await again();
          main.querySelector('#mcp-outcome')!.textContent = `${c.name}: token replaced.`;
        });
      });
      return h('details', {}, h('summary', {}, `Reauthorize ${c.name}`), f);
    };

    const changeForm = (c: Connection) => {
      const name = input({ name: 'name', required: true, maxlength: 100, value: c.name });
      const approval = select('approval_mode', ['always', 'never', 'per_tool', 'on_drift'], c.approval_mode);
      const approvalTimeout = input({ type: 'number', name: 'approval_timeout_s', min: 60, max: 604800, value: String(c.approval_timeout_s) });
      const callTimeout = input({ type: 'number', name: 'call_timeout_s', min: 1, max: 300, value: String(c.call_timeout_s) });
      const drift = c.unacknowledged_drift_count ? h('input', { type: 'checkbox', name: 'acknowledge_drift' }) : null;
      const save = h('button', { type: 'submit', class: 'small' }, 'Save');
      const f = h('form', {}, field('Name', name), field('Approve calls', approval), field('Approval waits (seconds)', approvalTimeout), field('Call timeout (seconds)', callTimeout),
        drift ? checkField(`Accept the ${c.unacknowledged_drift_count} changed tool(s) as they are now`, drift) : null, save);
      f.addEventListener('submit', (e) => {
        e.preventDefault();
        void busy(save, errors, async () => {
          const body: BodyOf<'patch', '/v1/mcp/connections/{id}'> = {};
          if (name.value.trim() !== c.name) body.name = name.value.trim();
          if (approval.value !== c.approval_mode) body.approval_mode = approval.value as Connection['approval_mode'];
          if (Number(approvalTimeout.value) !== c.approval_timeout_s) body.approval_timeout_s = Number(approvalTimeout.value);
          if (Number(callTimeout.value) !== c.call_timeout_s) body.call_timeout_s = Number(callTimeout.value);
          if (drift?.checked) body.acknowledge_drift = 'all';
          await ctx.api.patch<Connection, '/v1/mcp/connections/{id}'>('/v1/mcp/connections/{id}', body, { path: { id: c.id } });
          await again();
          main.querySelector('#mcp-outcome')!.textContent = `${name.value.trim()}: saved.`;
        });
      });
      return h('details', {}, h('summary', {}, `Change ${c.name}`), f);
    };

    const disconnectButton = (c: Connection) => {
      const b = h('button', { type: 'button', class: 'small danger', 'aria-label': `Disconnect ${c.name}` }, 'Disconnect');
      b.addEventListener('click', () => void busy(b, errors, async () => {
        if (!confirm(`Disconnect ${c.name}? Its credentials are destroyed and its pending approvals cancelled.`)) return;
        await ctx.api.delete('/v1/mcp/connections/{id}', { path: { id: c.id } });
        await again();
        main.querySelector('#mcp-outcome')!.textContent = `${c.name} is disconnected.`;
      }));
      return b;
    };

    const returned = q.get('mcp_connection');
    if (returned) {
      const c = page.items.find((x) => x.id === returned);
      outcome.textContent = c
        ? c.status === 'active' ? `${c.name} is connected: ${c.tools_count} tools.` : `${c.name} is ${c.status}${c.last_error ? `: ${c.last_error.message}` : ''}.`
        : `The authorization ended with status ${q.get('status') ?? 'unknown'}.`;
    }
    replace(
      main,
      h('h1', {}, 'MCP connections'),
      h('section', { class: 'card', 'aria-labelledby': 'mcp-h' }, h('h2', { id: 'mcp-h' }, `Connections (${page.items.length})`),
        h('label', { class: 'check', for: 'show-disconnected' }, toggle, ' Show disconnected'),
        table<Connection>('MCP connections', [
          ['Connection', (c) => [h('strong', {}, c.name), h('div', { class: 'muted' }, c.url), c.server_info ? h('div', { class: 'muted' }, `${c.server_info.name} ${c.server_info.version}`) : null]],
          ['Status', (c) => [h('span', { class: `status status-${c.status}`, 'data-connection': c.id }, c.status), c.authorization ? h('div', {}, h('a', { href: c.authorization.url, rel: 'noopener' }, 'Authorize'), ` by ${when(c.authorization.expires_at)}`) : null]],
          ['Auth', (c) => `${c.auth.type}${c.auth.hint ? ` ${c.auth.hint}` : ''}`],
          ['Tools', (c) => [String(c.tools_count), c.unacknowledged_drift_count ? h('span', { class: 'pill danger' }, `${c.unacknowledged_drift_count} drift`) : null]],
          ['Approvals', (c) => c.approval_mode],
          ['Last sync', (c) => [when(c.last_sync_at), c.last_error ? h('div', { class: 'error-text' }, `${c.last_error.code}: ${c.last_error.message}`) : null]],
          ['', (c) => (admin && c.status !== 'disconnected' ? h('div', { class: 'row-actions' }, c.status === 'active' || c.status === 'error' ? syncButton(c) : null, reauthorize(c), changeForm(c), disconnectButton(c)) : null)],
        ], page.items, 'No connections.'),
        outcome, errors),
      form ?? h('p', { class: 'muted' }, 'Owners and admins add and sync connections.'),
    );
  },
};
