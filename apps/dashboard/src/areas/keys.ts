import type { Area, Ctx } from '../context.js';
import { ADMIN_ROLES } from '../context.js';
import { busy, errorBox, field, h, input, replace, table, when } from '../dom.js';
import type { Page } from '../types.js';

/** API keys: create (scopes, Spaces, Projects, expiry, agent binding), rotate, revoke, activity. */
interface Key {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  space_uids: string[] | null;
  project_uids: string[] | null;
  agent_id: string | null;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  status: string;
  replaced_by: string | null;
  overlap_until: string | null;
}
interface Activity {
  key_id: string;
  items: { type: string; at: string; method?: string; route?: string; status?: number; actor?: { kind: string; id: string } }[];
}

const list = (text: string) => text.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean);

/** The secret, shown once with a copy button. */
function secretPanel(title: string, secret: string): HTMLElement {
  const value = h('input', { type: 'text', readonly: true, value: secret, id: 'new-key-secret', class: 'secret', 'aria-label': 'The new key' });
  const copy = h('button', { type: 'button' }, 'Copy');
  copy.addEventListener('click', () => {
    value.select();
    void navigator.clipboard?.writeText(secret).then(() => (copy.textContent = 'Copied'), () => undefined);
  });
  return h('div', { class: 'notice', role: 'status' }, h('strong', {}, title), h('p', {}, 'Copy it now: it is shown only once and cannot be read again.'), h('div', { class: 'row' }, value, copy));
}

async function showActivity(ctx: Ctx, key: Key, target: HTMLElement): Promise<void> {
  const a = await ctx.api.get<Activity>('/v1/api-keys/{id}/activity', { path: { id: key.id } });
  replace(
    target,
    h('h3', {}, `Activity of “${key.name}” (latest ${a.items.length})`),
    table('Key activity', [
      ['When', (i) => when(i.at)],
      ['Event', (i) => i.type],
      ['Detail', (i) => (i.type === 'request' ? `${i.method} ${i.route} → ${i.status}` : i.actor ? `${i.actor.kind} ${i.actor.id}` : '')],
    ], a.items, 'No activity yet.'),
  );
  target.hidden = false;
  target.focus();
}

async function render(ctx: Ctx, main: HTMLElement, fresh?: HTMLElement): Promise<void> {
  const keys = await ctx.api.get<Page<Key>>('/v1/api-keys', { query: { limit: 1000 } });
  const errors = errorBox();
  const activity = h('section', { class: 'card', id: 'key-activity', tabindex: '-1', hidden: true, 'aria-live': 'polite' });

  const name = input({ name: 'name', required: true, maxlength: 200 });
  const read = input({ type: 'checkbox', name: 'scope-read', checked: true });
  const write = input({ type: 'checkbox', name: 'scope-write' });
  const expires = input({ type: 'datetime-local', name: 'expires_at' });
  const spaces = input({ name: 'space_uids', placeholder: 'all Spaces' });
  const projects = input({ name: 'project_uids', placeholder: 'all Projects' });
  const agent = input({ name: 'agent_id', placeholder: 'none' });
  const create = h('button', { type: 'submit' }, 'Create key');
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'new-key-h' },
    h('h2', { id: 'new-key-h' }, 'New key'),
    field('Name', name),
    h('fieldset', {}, h('legend', {}, 'Scopes'), h('label', {}, read, ' read'), h('label', {}, write, ' write')),
    field('Expires (your local time; optional)', expires),
    field('Spaces (uids, optional)', spaces, 'Comma-separated; the key reaches only these Spaces.'),
    field('Projects (uids, optional)', projects, 'Comma-separated; the key reaches only these Projects.'),
    field('Bind to agent (id, optional)', agent, 'A bound key inherits the agent’s constraints.'),
    errors,
    create,
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void busy(create, errors, async () => {
      const scopes = [...(read.checked ? ['read'] : []), ...(write.checked ? ['write'] : [])] as ('read' | 'write')[];
      const body = {
        name: name.value,
        scopes,
        ...(expires.value ? { expires_at: new Date(expires.value).toISOString() } : {}),
        ...(spaces.value.trim() ? { space_uids: list(spaces.value) } : {}),
        ...(projects.value.trim() ? { project_uids: list(projects.value) } : {}),
        ...(agent.value.trim() ? { agent_id: agent.value.trim() } : {}),
      };
      const created = await ctx.api.post<Key & { key: string }, '/v1/api-keys'>('/v1/api-keys', body);
      await render(ctx, main, secretPanel(`Key “${created.name}” created`, created.key));
    });
  });

  const actions = (k: Key) => {
    if (k.status === 'revoked' || k.status === 'expired') return h('span', { class: 'muted' }, '—');
    const rotate = h('button', { type: 'button', class: 'small', 'aria-label': `Rotate ${k.name}` }, 'Rotate');
    rotate.addEventListener('click', () => void busy(rotate, errors, async () => {
      const r = await ctx.api.post<Key & { key: string; previous_key: { overlap_until: string } }, '/v1/api-keys/{id}/rotate'>('/v1/api-keys/{id}/rotate', {}, { path: { id: k.id } });
      await render(ctx, main, secretPanel(`Key “${r.name}” rotated: the old one works until ${when(r.previous_key.overlap_until)}`, r.key));
    }));
    const revoke = h('button', { type: 'button', class: 'small danger', 'aria-label': `Revoke ${k.name}` }, 'Revoke');
    revoke.addEventListener('click', () => {
      if (!confirm(`Revoke “${k.name}”? Requests with it are refused at once.`)) return;
      void busy(revoke, errors, async () => {
        await ctx.api.delete('/v1/api-keys/{id}', { path: { id: k.id } });
        await render(ctx, main);
      });
    });
    return h('span', { class: 'row' }, rotate, revoke);
  };
  const activityButton = (k: Key) => {
    const b = h('button', { type: 'button', class: 'small link-button', 'aria-label': `Activity of ${k.name}` }, 'Activity');
    b.addEventListener('click', () => void busy(b, errors, () => showActivity(ctx, k, activity)));
    return b;
  };

  replace(
    main,
    h('h1', {}, 'API keys'),
    fresh ?? null,
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'keys-h' },
      h('h2', { id: 'keys-h' }, 'Keys'),
      table<Key>('API keys', [
        ['Name', (k) => h('span', { class: 'key-name' }, k.name)],
        ['Prefix', (k) => h('code', {}, k.prefix)],
        ['Scopes', (k) => k.scopes.join(', ')],
        ['Fenced to', (k) => [k.space_uids ? `Spaces ${k.space_uids.join(', ')}` : '', k.project_uids ? `Projects ${k.project_uids.join(', ')}` : '', k.agent_id ? `agent ${k.agent_id}` : ''].filter(Boolean).join('; ') || '—'],
        ['Status', (k) => h('span', { class: `status status-${k.status}` }, k.status + (k.overlap_until && k.status !== 'revoked' ? ` until ${when(k.overlap_until)}` : ''))],
        ['Last used', (k) => when(k.last_used_at)],
        ['Expires', (k) => when(k.expires_at)],
        ['', activityButton],
        ['Actions', actions],
      ], keys.items, 'No keys yet: create one below.'),
    ),
    activity,
    form,
  );
}

export const keys: Area = {
  id: 'keys',
  routes: ['/keys'],
  roles: ADMIN_ROLES,
  nav: { label: 'API keys', path: '/keys', group: 'Organization' },
  title: () => 'API keys',
  render: (ctx, _p, main) => render(ctx, main),
};
