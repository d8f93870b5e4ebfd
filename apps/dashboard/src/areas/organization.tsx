import { useState } from 'react';
import type { Area, Ctx, PageProps } from '../context.js';
import { isAdmin } from '../context.js';
import { when } from '../format.js';
import type { Page, Role } from '../types.js';
import { BusyButton, ErrorBox, Field, Select, Table, useAction, useLoad } from '../ui.js';

/** Organizations (create one, switch to one) and the current organization's members. */
interface Member {
  user_id: string;
  email: string;
  name: string | null;
  role: Role;
  joined_at: string;
}

function AddMember({ ctx, orgId, added, onError }: { ctx: Ctx; orgId: string; added(): Promise<void>; onError(e: unknown): void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const action = useAction();
  return (
    <form
      className="inline-form"
      aria-label="Add a member"
      onSubmit={(e) => {
        e.preventDefault();
        onError(null);
        void action.run(async () => {
          try {
            await ctx.api.post('/v1/orgs/{org_id}/members', { email, role }, { path: { org_id: orgId } });
          } catch (err) {
            onError(err);
            return;
          }
          setEmail('');
          await added();
        });
      }}
    >
      <Field label="E-mail of a signed-up user">
        <input type="email" name="email" required value={email} onChange={(e) => setEmail(e.currentTarget.value)} />
      </Field>
      <Field label="Role">
        <Select name="role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)} options={['member', 'viewer', 'admin', ...(ctx.role === 'owner' ? ['owner'] : [])]} />
      </Field>
      <button type="submit" disabled={action.busy} aria-busy={action.busy || undefined}>
        Add member
      </button>
    </form>
  );
}

function CreateOrganization({ ctx }: { ctx: Ctx }) {
  const [name, setName] = useState('');
  const action = useAction();
  return (
    <>
      <form
        className="inline-form"
        aria-label="Create an organization"
        onSubmit={(e) => {
          e.preventDefault();
          void action.run(async () => {
            const org = await ctx.api.post<{ id: string }, '/v1/orgs'>('/v1/orgs', { name });
            ctx.session.orgId = org.id;
            await ctx.reloadAccount();
          });
        }}
      >
        <Field label="New organization name">
          <input type="text" name="name" required value={name} onChange={(e) => setName(e.currentTarget.value)} />
        </Field>
        <button type="submit" disabled={action.busy} aria-busy={action.busy || undefined}>
          Create organization
        </button>
      </form>
      <ErrorBox error={action.error} />
    </>
  );
}

function Organization({ ctx }: PageProps) {
  const account = ctx.account!;
  const orgId = ctx.session.orgId ?? account.current_org_id!;
  const current = account.memberships.find((m) => m.org_id === orgId);
  const admin = isAdmin(ctx.role);
  const { data: members, error: loadError, reload } = useLoad(
    () => ctx.api.get<Page<Member>>('/v1/orgs/{org_id}/members', { path: { org_id: orgId }, query: { limit: 1000 } }),
    [orgId],
  );
  const [memberError, setMemberError] = useState<unknown>(null);
  if (!members) return <ErrorBox error={loadError} />;
  const columns: [string, (m: Member) => React.ReactNode][] = [
    ['Name', (m) => m.name ?? '—'],
    ['E-mail', (m) => m.email],
    ['Role', (m) => m.role],
    ['Joined', (m) => when(m.joined_at)],
  ];
  if (admin)
    columns.push([
      'Actions',
      (m) =>
        m.user_id === account.user.id ? (
          'you'
        ) : (
          <BusyButton
            className="danger small"
            aria-label={`Remove ${m.email}`}
            onError={setMemberError}
            action={async () => {
              if (!confirm(`Remove ${m.email} from ${current?.org_name}?`)) return;
              await ctx.api.delete('/v1/orgs/{org_id}/members/{user_id}', { path: { org_id: orgId, user_id: m.user_id } });
              await reload();
            }}
          >
            Remove
          </BusyButton>
        ),
    ]);
  return (
    <>
      <h1>{current ? current.org_name : 'Organization'}</h1>
      <section className="card" aria-labelledby="members-h">
        <h2 id="members-h">Members</h2>
        <Table<Member> caption="Members" rowKey={(m) => m.user_id} columns={columns} items={members.items} />
        {admin ? <AddMember ctx={ctx} orgId={orgId} added={reload} onError={setMemberError} /> : null}
        <ErrorBox error={memberError} />
      </section>
      <section className="card" aria-labelledby="orgs-h">
        <h2 id="orgs-h">Your organizations</h2>
        <p className="muted">Switch with the selector at the top; each organization has its own graph, keys and plan.</p>
        <Table
          caption="Your organizations"
          rowKey={(m) => m.org_id}
          columns={[
            ['Organization', (m) => (m.org_id === orgId ? <strong>{`${m.org_name} (current)`}</strong> : m.org_name)],
            ['Role', (m) => m.role],
            ['Plan', (m) => m.plan],
            ['Joined', (m) => when(m.joined_at)],
          ]}
          items={account.memberships}
        />
        <CreateOrganization ctx={ctx} />
      </section>
    </>
  );
}

export const organization: Area = {
  id: 'organization',
  routes: ['/organization'],
  nav: { label: 'Members and organizations', path: '/organization', group: 'Organization' },
  title: () => 'Members and organizations',
  Page: Organization,
};
