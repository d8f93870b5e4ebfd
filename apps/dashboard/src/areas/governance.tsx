import { useState } from 'react';
import type { Area, Ctx, PageProps } from '../context.js';
import { isAdmin } from '../context.js';
import { when } from '../format.js';
import { href } from '../router.js';
import type { Page } from '../types.js';
import { BusyButton, ErrorBox, Field, Select, Table, useAction, useLoad } from '../ui.js';

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

function Grants({ ctx, space, initial }: { ctx: Ctx; space: Space; initial: Grant[] }) {
  const [grants, setGrants] = useState(initial);
  const [principal, setPrincipal] = useState('');
  const [access, setAccess] = useState<'read' | 'write'>('read');
  const [ceiling, setCeiling] = useState('');
  const [error, setError] = useState<unknown>(null);
  const action = useAction();
  const reload = async () =>
    setGrants((await ctx.api.get<Page<Grant>>('/v1/spaces/{space_uid}/grants', { path: { space_uid: space.uid }, query: { limit: 1000 } })).items);
  return (
    <>
      <h3>{`Grants of ${space.name}`}</h3>
      <Table<Grant>
        caption={`Grants of ${space.name}`}
        rowKey={(g) => g.principal_uid}
        columns={[
          ['Principal', (g) => g.principal_uid],
          ['Access', (g) => g.access],
          ['Ceiling', (g) => g.classification_ceiling ?? 'every level'],
          ['Granted', (g) => `${when(g.granted_at)} by ${g.granted_by}`],
          [
            '',
            (g) => (
              <BusyButton
                className="small danger"
                aria-label={`Revoke ${g.principal_uid}`}
                onError={setError}
                action={async () => {
                  await ctx.api.delete('/v1/spaces/{space_uid}/grants/{principal_uid}', { path: { space_uid: space.uid, principal_uid: g.principal_uid } });
                  await reload();
                }}
              >
                Revoke
              </BusyButton>
            ),
          ],
        ]}
        items={grants}
        empty="No grants: only owners, admins and unfenced keys see what is in this Space."
      />
      <form
        className="inline-form"
        aria-label={`Grant access to ${space.name}`}
        onSubmit={(e) => {
          e.preventDefault();
          setError(null);
          void action.run(async () => {
            try {
              await ctx.api.post(
                '/v1/spaces/{space_uid}/grants',
                { principal_uid: principal.trim(), access, classification_ceiling: (ceiling || null) as Level | null },
                { path: { space_uid: space.uid } },
              );
              await reload();
            } catch (err) {
              setError(err);
            }
          });
        }}
      >
        <Field label="Principal" hint="A member as user:<id>, or an agent as agent:<id>.">
          <input type="text" name="principal_uid" required placeholder="user:<id> or agent:<id>" value={principal} onChange={(e) => setPrincipal(e.currentTarget.value)} />
        </Field>
        <Field label="Access">
          <Select name="access" value={access} onChange={(e) => setAccess(e.currentTarget.value as 'read' | 'write')} options={['read', 'write']} />
        </Field>
        <Field label="Classification ceiling">
          <Select name="classification_ceiling" value={ceiling} onChange={(e) => setCeiling(e.currentTarget.value)} options={[['', 'every level'], ...LEVELS.map((l) => [l, l] as const)]} />
        </Field>
        <button type="submit" disabled={action.busy} aria-busy={action.busy || undefined}>
          Grant
        </button>
      </form>
      <ErrorBox error={error} />
    </>
  );
}

function NewSpace({ ctx, created }: { ctx: Ctx; created(): Promise<void> }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [classification, setClassification] = useState<string>('internal');
  const action = useAction();
  return (
    <form
      className="card"
      aria-labelledby="new-space-h"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run(async () => {
          await ctx.api.post('/node', { node_type: 'Space', label: name, props: { name, default_classification: classification, ...(description ? { description } : {}) } });
          setName('');
          setDescription('');
          await created();
        });
      }}
    >
      <h2 id="new-space-h">New Space</h2>
      <Field label="Name">
        <input type="text" name="name" required value={name} onChange={(e) => setName(e.currentTarget.value)} />
      </Field>
      <Field label="Description">
        <input type="text" name="description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} />
      </Field>
      <Field label="Default classification">
        <Select name="default_classification" value={classification} onChange={(e) => setClassification(e.currentTarget.value)} options={LEVELS} />
      </Field>
      <ErrorBox error={action.error} />
      <button type="submit" disabled={action.busy} aria-busy={action.busy || undefined}>
        Create Space
      </button>
    </form>
  );
}

function Spaces({ ctx }: PageProps) {
  const { data: page, error: loadError, reload } = useLoad(() => ctx.api.get<Page<Space>>('/v1/spaces', { query: { limit: 1000 } }), []);
  const [open, setOpen] = useState<{ space: Space; grants: Grant[]; n: number } | null>(null);
  const [error, setError] = useState<unknown>(null);
  if (!page) return <ErrorBox error={loadError} />;
  return (
    <>
      <h1>Spaces and grants</h1>
      <section className="card" aria-labelledby="spaces-h">
        <h2 id="spaces-h">Spaces</h2>
        <Table<Space>
          caption="Spaces"
          rowKey={(s) => s.uid}
          columns={[
            ['Space', (s) => <a href={href('nodes', s.uid)}>{s.name}</a>],
            ['Default classification', (s) => s.default_classification],
            ['Nodes', (s) => LEVELS.map((l) => `${l} ${s.node_counts[l] ?? 0}`).join(' · ')],
            [
              'Grants',
              (s) => (
                <BusyButton
                  className="small link-button"
                  aria-label={`Grants of ${s.name}`}
                  onError={setError}
                  action={async () => {
                    const grants = await ctx.api.get<Page<Grant>>('/v1/spaces/{space_uid}/grants', { path: { space_uid: s.uid }, query: { limit: 1000 } });
                    setOpen((o) => ({ space: s, grants: grants.items, n: (o?.n ?? 0) + 1 }));
                  }}
                >
                  {`${s.grant_count} grant${s.grant_count === 1 ? '' : 's'}`}
                </BusyButton>
              ),
            ],
          ]}
          items={page.items}
          empty="No Spaces yet."
        />
        <ErrorBox error={error} />
      </section>
      <section className="card" hidden={!open} aria-live="polite">
        {open ? <Grants key={`${open.space.uid}-${open.n}`} ctx={ctx} space={open.space} initial={open.grants} /> : null}
      </section>
      <NewSpace ctx={ctx} created={reload} />
    </>
  );
}

export const spaces: Area = {
  id: 'spaces',
  routes: ['/governance/spaces'],
  roles: ['owner'],
  nav: { label: 'Spaces and grants', path: '/governance/spaces', group: 'Governance' },
  title: () => 'Spaces and grants',
  Page: Spaces,
};

function SettingsForm({ ctx, s }: { ctx: Ctx; s: Settings }) {
  const admin = isAdmin(ctx.role);
  const [mode, setMode] = useState(s.mode);
  const [scope, setScope] = useState(s.agent_scope_without_grants);
  const [deadline, setDeadline] = useState(String(s.approval_deadline_hours));
  const [ttl, setTtl] = useState(String(s.approval_ttl_hours));
  const [saved, setSaved] = useState(false);
  const action = useAction();
  return (
    <form
      className="card"
      onSubmit={(e) => {
        e.preventDefault();
        setSaved(false);
        void action.run(async () => {
          await ctx.api.patch('/v1/governance/settings', {
            mode: mode as 'off' | 'shadow' | 'enforce',
            agent_scope_without_grants: scope as 'organization' | 'none',
            approval_deadline_hours: Number(deadline),
            approval_ttl_hours: Number(ttl),
          });
          setSaved(true);
        });
      }}
    >
      <Field label="Mode" hint="off: no policy is evaluated; shadow: evaluated and logged; enforce: published policies are enforced.">
        <Select name="mode" disabled={!admin} value={mode} onChange={(e) => setMode(e.currentTarget.value)} options={['off', 'shadow', 'enforce']} />
      </Field>
      <Field label="Agents without grants reach">
        <Select name="agent_scope_without_grants" disabled={!admin} value={scope} onChange={(e) => setScope(e.currentTarget.value)} options={['organization', 'none']} />
      </Field>
      <Field label="Approval deadline (hours)">
        <input type="number" name="approval_deadline_hours" min={1} max={720} disabled={!admin} value={deadline} onChange={(e) => setDeadline(e.currentTarget.value)} />
      </Field>
      <Field label="Approval use window (hours)">
        <input type="number" name="approval_ttl_hours" min={1} max={168} disabled={!admin} value={ttl} onChange={(e) => setTtl(e.currentTarget.value)} />
      </Field>
      <ErrorBox error={action.error} />
      {admin ? (
        <button type="submit" disabled={action.busy} aria-busy={action.busy || undefined}>
          Save
        </button>
      ) : (
        <p className="muted">Owners and admins change these.</p>
      )}
      <p role="status" className="muted">
        {saved ? 'Saved.' : ''}
      </p>
    </form>
  );
}

function GovernanceSettings({ ctx }: PageProps) {
  const { data: s, error } = useLoad(() => ctx.api.get<Settings>('/v1/governance/settings'), []);
  if (!s) return <ErrorBox error={error} />;
  return (
    <>
      <h1>Governance settings</h1>
      <SettingsForm ctx={ctx} s={s} />
      <section className="card">
        <h2>Policies and sync</h2>
        <p>{Object.entries(s.policy_counts).map(([k, v]) => `${k} ${v}`).join(' · ')}</p>
        <p>{`Sync: ${s.sync.status}${s.sync.last_synced_at ? `, last ${when(s.sync.last_synced_at)}` : ''}`}</p>
      </section>
    </>
  );
}

export const governanceSettings: Area = {
  id: 'governance-settings',
  routes: ['/governance/settings'],
  nav: { label: 'Governance settings', path: '/governance/settings', group: 'Governance' },
  title: () => 'Governance settings',
  Page: GovernanceSettings,
};
