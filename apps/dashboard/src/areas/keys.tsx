import { useEffect, useRef, useState } from 'react';
import type { Area, Ctx, PageProps } from '../context.js';
import { ADMIN_ROLES } from '../context.js';
import { when } from '../format.js';
import type { Page } from '../types.js';
import { BusyButton, ErrorBox, Field, Table, useAction, useLoad } from '../ui.js';

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
function SecretPanel({ title, secret }: { title: string; secret: string }) {
  const value = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState(false);
  return (
    <div className="notice" role="status">
      <strong>{title}</strong>
      <p>Copy it now: it is shown only once and cannot be read again.</p>
      <div className="row">
        <input type="text" readOnly value={secret} id="new-key-secret" className="secret" aria-label="The new key" ref={value} />
        <button
          type="button"
          onClick={() => {
            value.current?.select();
            void navigator.clipboard?.writeText(secret).then(() => setCopied(true), () => undefined);
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
    </div>
  );
}

function NewKey({ ctx, created }: { ctx: Ctx; created(k: Key & { key: string }): Promise<void> }) {
  const [name, setName] = useState('');
  const [read, setRead] = useState(true);
  const [write, setWrite] = useState(false);
  const [expires, setExpires] = useState('');
  const [spaces, setSpaces] = useState('');
  const [projects, setProjects] = useState('');
  const [agent, setAgent] = useState('');
  const action = useAction();
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const scopes = [...(read ? ['read'] : []), ...(write ? ['write'] : [])] as ('read' | 'write')[];
      const body = {
        name,
        scopes,
        ...(expires ? { expires_at: new Date(expires).toISOString() } : {}),
        ...(spaces.trim() ? { space_uids: list(spaces) } : {}),
        ...(projects.trim() ? { project_uids: list(projects) } : {}),
        ...(agent.trim() ? { agent_id: agent.trim() } : {}),
      };
      const key = await ctx.api.post<Key & { key: string }, '/v1/api-keys'>('/v1/api-keys', body);
      for (const reset of [setName, setExpires, setSpaces, setProjects, setAgent]) reset('');
      setRead(true);
      setWrite(false);
      await created(key);
    });
  };
  return (
    <form className="card" aria-labelledby="new-key-h" onSubmit={submit}>
      <h2 id="new-key-h">New key</h2>
      <Field label="Name">
        <input type="text" name="name" required maxLength={200} value={name} onChange={(e) => setName(e.currentTarget.value)} />
      </Field>
      <fieldset>
        <legend>Scopes</legend>
        <label>
          <input type="checkbox" name="scope-read" checked={read} onChange={(e) => setRead(e.currentTarget.checked)} /> read
        </label>
        <label>
          <input type="checkbox" name="scope-write" checked={write} onChange={(e) => setWrite(e.currentTarget.checked)} /> write
        </label>
      </fieldset>
      <Field label="Expires (your local time; optional)">
        <input type="datetime-local" name="expires_at" value={expires} onChange={(e) => setExpires(e.currentTarget.value)} />
      </Field>
      <Field label="Spaces (uids, optional)" hint="Comma-separated; the key reaches only these Spaces.">
        <input type="text" name="space_uids" placeholder="all Spaces" value={spaces} onChange={(e) => setSpaces(e.currentTarget.value)} />
      </Field>
      <Field label="Projects (uids, optional)" hint="Comma-separated; the key reaches only these Projects.">
        <input type="text" name="project_uids" placeholder="all Projects" value={projects} onChange={(e) => setProjects(e.currentTarget.value)} />
      </Field>
      <Field label="Bind to agent (id, optional)" hint="A bound key inherits the agent’s constraints.">
        <input type="text" name="agent_id" placeholder="none" value={agent} onChange={(e) => setAgent(e.currentTarget.value)} />
      </Field>
      <ErrorBox error={action.error} />
      <button type="submit" disabled={action.busy} aria-busy={action.busy || undefined}>
        Create key
      </button>
    </form>
  );
}

function KeyActivity({ shown }: { shown: { key: Key; activity: Activity } | null }) {
  const ref = useRef<HTMLElement>(null);
  // the activity just asked for is where the person's attention goes
  useEffect(() => {
    if (shown) ref.current?.focus();
  }, [shown]);
  return (
    <section
      className="card"
      id="key-activity"
      tabIndex={-1}
      hidden={!shown}
      aria-live="polite"
      ref={ref}
    >
      {shown ? (
        <>
          <h3>{`Activity of “${shown.key.name}” (latest ${shown.activity.items.length})`}</h3>
          <Table
            caption="Key activity"
            columns={[
              ['When', (i) => when(i.at)],
              ['Event', (i) => i.type],
              ['Detail', (i) => (i.type === 'request' ? `${i.method} ${i.route} → ${i.status}` : i.actor ? `${i.actor.kind} ${i.actor.id}` : '')],
            ]}
            items={shown.activity.items}
            empty="No activity yet."
          />
        </>
      ) : null}
    </section>
  );
}

function Keys({ ctx }: PageProps) {
  const { data: keys, error: loadError, reload } = useLoad(() => ctx.api.get<Page<Key>>('/v1/api-keys', { query: { limit: 1000 } }), []);
  const [fresh, setFresh] = useState<{ title: string; secret: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [activity, setActivity] = useState<{ key: Key; activity: Activity } | null>(null);
  if (!keys) return <ErrorBox error={loadError} />;

  const actions = (k: Key) => {
    if (k.status === 'revoked' || k.status === 'expired') return <span className="muted">—</span>;
    return (
      <span className="row">
        <BusyButton
          className="small"
          aria-label={`Rotate ${k.name}`}
          onError={setError}
          action={async () => {
            const r = await ctx.api.post<Key & { key: string; previous_key: { overlap_until: string } }, '/v1/api-keys/{id}/rotate'>('/v1/api-keys/{id}/rotate', {}, { path: { id: k.id } });
            await reload();
            setFresh({ title: `Key “${r.name}” rotated: the old one works until ${when(r.previous_key.overlap_until)}`, secret: r.key });
          }}
        >
          Rotate
        </BusyButton>
        <BusyButton
          className="small danger"
          aria-label={`Revoke ${k.name}`}
          onError={setError}
          action={async () => {
            if (!confirm(`Revoke “${k.name}”? Requests with it are refused at once.`)) return;
            await ctx.api.delete('/v1/api-keys/{id}', { path: { id: k.id } });
            setFresh(null);
            await reload();
          }}
        >
          Revoke
        </BusyButton>
      </span>
    );
  };

  return (
    <>
      <h1>API keys</h1>
      {fresh ? <SecretPanel key={fresh.secret} title={fresh.title} secret={fresh.secret} /> : null}
      <section className="card" aria-labelledby="keys-h">
        <h2 id="keys-h">Keys</h2>
        <Table<Key>
          caption="API keys"
          rowKey={(k) => k.id}
          columns={[
            ['Name', (k) => <span className="key-name">{k.name}</span>],
            ['Prefix', (k) => <code>{k.prefix}</code>],
            ['Scopes', (k) => k.scopes.join(', ')],
            ['Fenced to', (k) => [k.space_uids ? `Spaces ${k.space_uids.join(', ')}` : '', k.project_uids ? `Projects ${k.project_uids.join(', ')}` : '', k.agent_id ? `agent ${k.agent_id}` : ''].filter(Boolean).join('; ') || '—'],
            ['Status', (k) => <span className={`status status-${k.status}`}>{k.status + (k.overlap_until && k.status !== 'revoked' ? ` until ${when(k.overlap_until)}` : '')}</span>],
            ['Last used', (k) => when(k.last_used_at)],
            ['Expires', (k) => when(k.expires_at)],
            [
              '',
              (k) => (
                <BusyButton
                  className="small link-button"
                  aria-label={`Activity of ${k.name}`}
                  onError={setError}
                  action={async () => setActivity({ key: k, activity: await ctx.api.get<Activity>('/v1/api-keys/{id}/activity', { path: { id: k.id } }) })}
                >
                  Activity
                </BusyButton>
              ),
            ],
            ['Actions', actions],
          ]}
          items={keys.items}
          empty="No keys yet: create one below."
        />
        <ErrorBox error={error} />
      </section>
      <KeyActivity shown={activity} />
      <NewKey
        ctx={ctx}
        created={async (k) => {
          await reload();
          setFresh({ title: `Key “${k.name}” created`, secret: k.key });
        }}
      />
    </>
  );
}

export const keys: Area = {
  id: 'keys',
  routes: ['/keys'],
  roles: ADMIN_ROLES,
  nav: { label: 'API keys', path: '/keys', group: 'Organization' },
  title: () => 'API keys',
  Page: Keys,
};
