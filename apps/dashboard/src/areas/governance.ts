import type { Area, Ctx } from '../context.js';
import { isAdmin } from '../context.js';
import { busy, errorBox, field, h, input, replace, select, table, when } from '../dom.js';
import { href } from '../router.js';
import type { Page } from '../types.js';

/** Spaces and their grants (owners only), and the governance settings. */
interface Space {
  uid: string;
  label: string;
  name: string;
  description: string | null;
  default_classification: string;
  node_counts: Record<string, number>;
  grant_count: number;
  created_at: string;
}
interface Grant {
  space_uid: string;
  principal_uid: string;
  access: 'read' | 'write';
  classification_ceiling: string | null;
  granted_by: string;
  granted_at: string;
}
interface Settings {
  mode: string;
  agent_scope_without_grants: string;
  approval_deadline_hours: number;
  approval_ttl_hours: number;
  policy_counts: Record<string, number>;
  sync: { status: string; last_synced_at: string | null };
  updated_at: string | null;
}

const LEVELS = ['public', 'internal', 'confidential', 'restricted'] as const;
type Level = (typeof LEVELS)[number];

async function grantsOf(ctx: Ctx, space: Space, target: HTMLElement): Promise<void> {
  const grants = await ctx.api.get<Page<Grant>>('/v1/spaces/{space_uid}/grants', { path: { space_uid: space.uid }, query: { limit: 1000 } });
  const errors = errorBox();
  const principal = input({ name: 'principal_uid', required: true, placeholder: 'user:<id> or agent:<id>' });
  const access = select('access', ['read', 'write'], 'read');
  const ceiling = select('classification_ceiling', [['', 'every level'], ...LEVELS.map((l) => [l, l] as [string, string])], '');
  const grant = h('button', { type: 'submit' }, 'Grant');
  const form = h('form', { class: 'inline-form', 'aria-label': `Grant access to ${space.name}` }, field('Principal', principal, 'A member as user:<id>, or an agent as agent:<id>.'), field('Access', access), field('Classification ceiling', ceiling), grant);
  const reload = () => grantsOf(ctx, space, target);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void busy(grant, errors, async () => {
      await ctx.api.post('/v1/spaces/{space_uid}/grants', { principal_uid: principal.value.trim(), access: access.value as 'read' | 'write', classification_ceiling: (ceiling.value || null) as Level | null }, { path: { space_uid: space.uid } });
      await reload();
    });
  });
  replace(
    target,
    h('h3', {}, `Grants of ${space.name}`),
    table<Grant>(`Grants of ${space.name}`, [
      ['Principal', (g) => g.principal_uid],
      ['Access', (g) => g.access],
      ['Ceiling', (g) => g.classification_ceiling ?? 'every level'],
      ['Granted', (g) => `${when(g.granted_at)} by ${g.granted_by}`],
      ['', (g) => {
        const b = h('button', { type: 'button', class: 'small danger', 'aria-label': `Revoke ${g.principal_uid}` }, 'Revoke');
        b.addEventListener('click', () => void busy(b, errors, async () => {
          await ctx.api.delete('/v1/spaces/{space_uid}/grants/{principal_uid}', { path: { space_uid: space.uid, principal_uid: g.principal_uid } });
          await reload();
        }));
        return b;
      }],
    ], grants.items, 'No grants: only owners, admins and unfenced keys see what is in this Space.'),
    form,
    errors,
  );
  target.hidden = false;
}

export const spaces: Area = {
  id: 'spaces',
  routes: ['/governance/spaces'],
  roles: ['owner'],
  nav: { label: 'Spaces and grants', path: '/governance/spaces', group: 'Governance' },
  title: () => 'Spaces and grants',
  async render(ctx, _p, main) {
    const page = await ctx.api.get<Page<Space>>('/v1/spaces', { query: { limit: 1000 } });
    const grantsBox = h('section', { class: 'card', hidden: true, 'aria-live': 'polite' });
    const errors = errorBox();
    const name = input({ name: 'name', required: true });
    const description = input({ name: 'description' });
    const classification = select('default_classification', LEVELS, 'internal');
    const create = h('button', { type: 'submit' }, 'Create Space');
    const form = h('form', { class: 'card', 'aria-labelledby': 'new-space-h' }, h('h2', { id: 'new-space-h' }, 'New Space'), field('Name', name), field('Description', description), field('Default classification', classification), errors, create);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      void busy(create, errors, async () => {
        await ctx.api.post('/node', { node_type: 'Space', label: name.value, props: { name: name.value, default_classification: classification.value, ...(description.value ? { description: description.value } : {}) } });
        await spaces.render!(ctx, {}, main, new URLSearchParams());
      });
    });
    replace(
      main,
      h('h1', {}, 'Spaces and grants'),
      h('section', { class: 'card', 'aria-labelledby': 'spaces-h' }, h('h2', { id: 'spaces-h' }, 'Spaces'),
        table<Space>('Spaces', [
          ['Space', (s) => h('a', { href: href('nodes', s.uid) }, s.name)],
          ['Default classification', (s) => s.default_classification],
          ['Nodes', (s) => LEVELS.map((l) => `${l} ${s.node_counts[l] ?? 0}`).join(' · ')],
          ['Grants', (s) => {
            const b = h('button', { type: 'button', class: 'small link-button', 'aria-label': `Grants of ${s.name}` }, `${s.grant_count} grant${s.grant_count === 1 ? '' : 's'}`);
            b.addEventListener('click', () => void busy(b, errors, () => grantsOf(ctx, s, grantsBox)));
            return b;
          }],
        ], page.items, 'No Spaces yet.')),
      grantsBox,
      form,
    );
  },
};

export const governanceSettings: Area = {
  id: 'governance-settings',
  routes: ['/governance/settings'],
  nav: { label: 'Governance settings', path: '/governance/settings', group: 'Governance' },
  title: () => 'Governance settings',
  async render(ctx, _p, main) {
    const s = await ctx.api.get<Settings>('/v1/governance/settings');
    const admin = isAdmin(ctx.role);
    const mode = select('mode', ['off', 'shadow', 'enforce'], s.mode);
    const scope = select('agent_scope_without_grants', ['organization', 'none'], s.agent_scope_without_grants);
    const deadline = input({ type: 'number', name: 'approval_deadline_hours', min: 1, max: 720, value: s.approval_deadline_hours });
    const ttl = input({ type: 'number', name: 'approval_ttl_hours', min: 1, max: 168, value: s.approval_ttl_hours });
    for (const c of [mode, scope, deadline, ttl]) c.disabled = !admin;
    const save = h('button', { type: 'submit' }, 'Save');
    const errors = errorBox();
    const saved = h('p', { role: 'status', class: 'muted' });
    const form = h('form', { class: 'card' }, field('Mode', mode, 'off: no policy is evaluated; shadow: evaluated and logged; enforce: published policies are enforced.'), field('Agents without grants reach', scope), field('Approval deadline (hours)', deadline), field('Approval use window (hours)', ttl), errors, admin ? save : h('p', { class: 'muted' }, 'Owners and admins change these.'), saved);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      void busy(save, errors, async () => {
        await ctx.api.patch('/v1/governance/settings', { mode: mode.value as 'off' | 'shadow' | 'enforce', agent_scope_without_grants: scope.value as 'organization' | 'none', approval_deadline_hours: Number(deadline.value), approval_ttl_hours: Number(ttl.value) });
        saved.textContent = 'Saved.';
      });
    });
    replace(main, h('h1', {}, 'Governance settings'), form,
      h('section', { class: 'card' }, h('h2', {}, 'Policies and sync'), h('p', {}, Object.entries(s.policy_counts).map(([k, v]) => `${k} ${v}`).join(' · ')), h('p', {}, `Sync: ${s.sync.status}${s.sync.last_synced_at ? `, last ${when(s.sync.last_synced_at)}` : ''}`)));
  },
};
