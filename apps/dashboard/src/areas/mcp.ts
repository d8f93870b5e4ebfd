import { ApiError } from '../api.js';
import type { Area } from '../context.js';
import { isAdmin } from '../context.js';
import { busy, errorBox, field, h, input, replace, select, table, when } from '../dom.js';
import { BASE } from '../router.js';
import type { Page } from '../types.js';

/**
 * MCP connections: their states (active, pending_auth, error, disconnected), tools and drift,
 * the last error; owners and admins add a connection (no auth or a bearer token) and sync one.
 */
interface Connection {
  id: string;
  name: string;
  url: string;
  status: 'active' | 'pending_auth' | 'error' | 'disconnected';
  server_info: { name: string; version: string } | null;
  auth: { type: string; hint: string | null };
  authorization: { url: string; expires_at: string } | null;
  approval_mode: string;
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
    const again = () => mcpConnections.render(ctx, {}, main, q);
    const toggle = h('input', { type: 'checkbox', id: 'show-disconnected', checked: withDisconnected });
    toggle.addEventListener('change', () => ctx.navigate(`${BASE}/mcp${toggle.checked ? '?include_disconnected=true' : ''}`));

    let form: HTMLElement | null = null;
    if (admin) {
      const name = input({ name: 'name', required: true, maxlength: 100 });
      const url = input({ type: 'url', name: 'url', required: true, placeholder: 'https://mcp.example.com/mcp' });
      const authType = select('auth_type', [['none', 'none'], ['bearer', 'bearer token']], 'none');
      const token = input({ type: 'password', name: 'token', autocomplete: 'off' });
      const approval = select('approval_mode', ['always', 'never', 'per_tool', 'on_drift'], 'always');
      const createErrors = errorBox();
      const go = h('button', { type: 'submit' }, 'Add connection');
      form = h('form', { class: 'card', 'aria-labelledby': 'new-mcp-h' }, h('h2', { id: 'new-mcp-h' }, 'New connection'),
        field('Name', name), field('Server URL', url), field('Authentication', authType), field('Bearer token (kept encrypted, never shown again)', token),
        field('Approve calls', approval, 'always: every call waits for a person; on_drift: only after a tool changed.'), createErrors, go);
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        void busy(go, createErrors, async () => {
          try {
            await ctx.api.post('/v1/mcp/connections', {
              name: name.value.trim(),
              url: url.value.trim(),
              // the OpenAPI document types `auth` as an empty object (a union the DTO does not spell out)
              auth: (authType.value === 'bearer' ? { type: 'bearer', token: token.value } : { type: 'none' }) as never,
              approval_mode: approval.value as 'always' | 'never' | 'per_tool' | 'on_drift',
            });
          } catch (err) {
            // a failed check names which one: the server's message, then the checks that failed
            const checks = err instanceof ApiError ? (err.body as { checks?: { name: string; status: string; detail: string | null }[] } | null)?.checks : undefined;
            if (checks) throw new ApiError(err instanceof ApiError ? err.status : 0, 'mcp_check_failed', `${(err as Error).message} — ${checks.filter((c) => c.status === 'fail').map((c) => `${c.name}: ${c.detail ?? 'failed'}`).join('; ')}`, null);
            throw err;
          }
          await again();
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
          ['', (c) => (admin && (c.status === 'active' || c.status === 'error') ? syncButton(c) : null)],
        ], page.items, 'No connections.'),
        outcome, errors),
      form ?? h('p', { class: 'muted' }, 'Owners and admins add and sync connections.'),
    );
  },
};
