import type { Area } from '../context.js';
import { isAdmin } from '../context.js';
import { busy, errorBox, field, h, input, replace, select, table, when } from '../dom.js';
import type { Page, Role } from '../types.js';

/** Organizations (create one, switch to one) and the current organization's members. */
interface Member {
  user_id: string;
  email: string;
  name: string | null;
  role: Role;
  joined_at: string;
}

export const organization: Area = {
  id: 'organization',
  routes: ['/organization'],
  nav: { label: 'Members and organizations', path: '/organization', group: 'Organization' },
  title: () => 'Members and organizations',
  async render(ctx, _p, main) {
    const account = ctx.account!;
    const orgId = ctx.session.orgId ?? account.current_org_id!;
    const current = account.memberships.find((m) => m.org_id === orgId);
    const members = await ctx.api.get<Page<Member>>('/v1/orgs/{org_id}/members', { path: { org_id: orgId }, query: { limit: 1000 } });
    const admin = isAdmin(ctx.role);

    const memberErrors = errorBox();
    const memberRows = table<Member>(
      'Members',
      [
        ['Name', (m) => m.name ?? '—'],
        ['E-mail', (m) => m.email],
        ['Role', (m) => m.role],
        ['Joined', (m) => when(m.joined_at)],
        ...(admin
          ? ([
              [
                'Actions',
                (m: Member) => {
                  if (m.user_id === account.user.id) return 'you';
                  const b = h('button', { type: 'button', class: 'danger small', 'aria-label': `Remove ${m.email}` }, 'Remove');
                  b.addEventListener('click', () => {
                    if (!confirm(`Remove ${m.email} from ${current?.org_name}?`)) return;
                    void busy(b, memberErrors, async () => {
                      await ctx.api.delete('/v1/orgs/{org_id}/members/{user_id}', { path: { org_id: orgId, user_id: m.user_id } });
                      await organization.render!(ctx, {}, main, new URLSearchParams());
                    });
                  });
                  return b;
                },
              ],
            ] as [string, (m: Member) => HTMLElement | string][])
          : []),
      ],
      members.items,
    );

    let addForm: HTMLElement | null = null;
    if (admin) {
      const email = input({ type: 'email', name: 'email', required: true });
      const role = select('role', ['member', 'viewer', 'admin', ...(ctx.role === 'owner' ? ['owner'] : [])], 'member');
      const add = h('button', { type: 'submit' }, 'Add member');
      addForm = h('form', { class: 'inline-form', 'aria-label': 'Add a member' }, field('E-mail of a signed-up user', email), field('Role', role), add);
      addForm.addEventListener('submit', (e) => {
        e.preventDefault();
        void busy(add, memberErrors, async () => {
          await ctx.api.post('/v1/orgs/{org_id}/members', { email: email.value, role: role.value as Role }, { path: { org_id: orgId } });
          await organization.render!(ctx, {}, main, new URLSearchParams());
        });
      });
    }

    const orgErrors = errorBox();
    const orgName = input({ name: 'name', required: true });
    const create = h('button', { type: 'submit' }, 'Create organization');
    const createForm = h('form', { class: 'inline-form', 'aria-label': 'Create an organization' }, field('New organization name', orgName), create);
    createForm.addEventListener('submit', (e) => {
      e.preventDefault();
      void busy(create, orgErrors, async () => {
        const org = await ctx.api.post<{ id: string }, '/v1/orgs'>('/v1/orgs', { name: orgName.value });
        ctx.session.orgId = org.id;
        await ctx.reloadAccount();
      });
    });

    replace(
      main,
      h('h1', {}, current ? current.org_name : 'Organization'),
      h('section', { class: 'card', 'aria-labelledby': 'members-h' }, h('h2', { id: 'members-h' }, 'Members'), memberRows, addForm, memberErrors),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'orgs-h' },
        h('h2', { id: 'orgs-h' }, 'Your organizations'),
        h('p', { class: 'muted' }, 'Switch with the selector at the top; each organization has its own graph, keys and plan.'),
        table('Your organizations', [
          ['Organization', (m) => (m.org_id === orgId ? h('strong', {}, `${m.org_name} (current)`) : m.org_name)],
          ['Role', (m) => m.role],
          ['Plan', (m) => m.plan],
          ['Joined', (m) => when(m.joined_at)],
        ], account.memberships),
        createForm,
        orgErrors,
      ),
    );
  },
};
