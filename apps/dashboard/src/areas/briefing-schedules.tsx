import { useState } from 'react';
import type { Area, PageProps } from '../context.js';
import { isAdmin } from '../context.js';
import { when } from '../format.js';
import { BASE, href } from '../router.js';
import type { NodeRecord, Page } from '../types.js';
import { BusyButton, CheckField, ErrorBox, Field, Select, Table, useAction, useLoad } from '../ui.js';

/**
 * Briefing schedules (REFERENCE §12.7): a Project's brief sent to one recipient on a cadence.
 * Everyone who can read the Project sees its schedules and their runs; owners and admins
 * create, change, pause, send now and delete. A webhook's signing secret is shown once.
 */
interface Schedule {
  id: string;
  project_uid: string;
  channel: 'in_app' | 'webhook' | 'email';
  recipient: string;
  cron: string | null;
  interval_secs: number | null;
  timezone: string;
  mode: 'auto' | 'structural' | 'llm';
  only_on_change: boolean;
  status: 'active' | 'paused';
  paused_reason: string | null;
  next_run_at: string | null;
  consecutive_failures: number;
  secret_hint: string | null;
  created_at: string;
  runs?: Run[];
  signing_secret?: string;
}
interface Run {
  id: string;
  trigger: string;
  status: string;
  scheduled_for: string;
  completed_at: string | null;
  brief_version: number | null;
  material_change_count: number;
  skip_reason: string | null;
  attempts: number;
  error: { code: string; message: string } | null;
  http_status: number | null;
}

const cadence = (s: Schedule) => (s.cron ? `cron ${s.cron} (${s.timezone})` : `every ${(s.interval_secs ?? 0) / 3600} h`);

/** The secret a webhook schedule signs with: shown once, never again. */
function SecretNotice({ secret }: { secret: string }) {
  return (
    <div className="notice" role="status">
      <strong>The webhook’s signing secret</strong>
      <p>Copy it now: it is shown only once.</p>
      <input type="text" readOnly value={secret} className="secret" id="signing-secret" aria-label="Signing secret" />
    </div>
  );
}

/** Cron or interval, as the form reads them: exactly one is sent. */
function useCadence(s?: Schedule) {
  const [kind, setKind] = useState(s?.interval_secs ? 'interval' : 'cron');
  const [cron, setCron] = useState(s?.cron ?? '0 7 * * MON-FRI');
  const [hours, setHours] = useState(s?.interval_secs ? String(s.interval_secs / 3600) : '24');
  const [timezone, setTimezone] = useState(s?.timezone ?? 'UTC');
  const fields = (
    <>
      <Field label="Cadence">
        <Select name="cadence" value={kind} onChange={(e) => setKind(e.currentTarget.value)} options={[['cron', 'cron'], ['interval', 'interval (hours)']]} />
      </Field>
      <Field label="Cron (minute hour day month weekday)" hidden={kind !== 'cron'}>
        <input type="text" name="cron" className="mono" value={cron} onChange={(e) => setCron(e.currentTarget.value)} />
      </Field>
      <Field label="Every (hours)" hidden={kind === 'cron'}>
        <input type="number" name="interval_hours" min={1} max={720} value={hours} onChange={(e) => setHours(e.currentTarget.value)} />
      </Field>
      <Field label="Time zone (IANA)">
        <input type="text" name="timezone" value={timezone} onChange={(e) => setTimezone(e.currentTarget.value)} />
      </Field>
    </>
  );
  return {
    fields,
    value: () => ({ ...(kind === 'cron' ? { cron: cron.trim() } : { interval_secs: Math.round(Number(hours) * 3600) }), timezone: timezone.trim() || 'UTC' }),
  };
}

const PLACEHOLDER: Record<Schedule['channel'], string> = { email: 'name@example.com', webhook: 'https://example.com/hooks/brief', in_app: 'user:<user id>' };

function NewSchedule({ ctx, projects, project, created }: { ctx: PageProps['ctx']; projects: NodeRecord[]; project: string; created(s: Schedule): Promise<void> }) {
  const me = `user:${ctx.account!.user.id}`;
  const [projectUid, setProjectUid] = useState(project || projects[0]?.uid || '');
  const [channel, setChannel] = useState<Schedule['channel']>('in_app');
  const [recipient, setRecipient] = useState(me);
  const times = useCadence();
  const [mode, setMode] = useState<Schedule['mode']>('auto');
  const [onlyOnChange, setOnlyOnChange] = useState(true);
  const [paused, setPaused] = useState(false);
  const action = useAction();
  return (
    <form
      className="card"
      aria-labelledby="new-bs-h"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run(async () => {
          const s = await ctx.api.post<Schedule, '/v1/briefings/schedules'>('/v1/briefings/schedules', {
            project_uid: projectUid,
            channel,
            recipient: recipient.trim(),
            ...times.value(),
            mode,
            only_on_change: onlyOnChange,
            paused,
          });
          await created(s);
        });
      }}
    >
      <h2 id="new-bs-h">New schedule</h2>
      <Field label="Project">
        <Select name="project_uid" value={projectUid} onChange={(e) => setProjectUid(e.currentTarget.value)} options={projects.map((p) => [p.uid, p.label] as const)} />
      </Field>
      <Field label="Channel">
        <Select
          name="channel"
          value={channel}
          onChange={(e) => {
            const c = e.currentTarget.value as Schedule['channel'];
            setChannel(c);
            setRecipient(c === 'in_app' ? me : '');
          }}
          options={[['in_app', 'in the app'], ['email', 'e-mail'], ['webhook', 'webhook']]}
        />
      </Field>
      <Field label="Recipient" hint="In the app: user:<user id> of a member. E-mail: an address. Webhook: an https URL.">
        <input type="text" name="recipient" required placeholder={PLACEHOLDER[channel]} value={recipient} onChange={(e) => setRecipient(e.currentTarget.value)} />
      </Field>
      {times.fields}
      <Field label="Generation">
        <Select name="mode" value={mode} onChange={(e) => setMode(e.currentTarget.value as Schedule['mode'])} options={['auto', 'structural', 'llm']} />
      </Field>
      <CheckField label="Only when something material changed" name="only_on_change" checked={onlyOnChange} onChange={setOnlyOnChange} />
      <CheckField label="Create paused" name="paused" checked={paused} onChange={setPaused} />
      <ErrorBox error={action.error} />
      <button type="submit" disabled={action.busy} aria-busy={action.busy || undefined}>
        Save schedule
      </button>
    </form>
  );
}

function BriefingSchedules({ ctx, query: q }: PageProps) {
  const project = q.get('project_uid') ?? '';
  const { data, error, reload } = useLoad(
    () =>
      Promise.all([
        ctx.api.get<Page<Schedule>>('/v1/briefings/schedules', { query: { project_uid: project || undefined, limit: 1000 } }),
        ctx.api.get<Page<NodeRecord>>('/nodes', { query: { type: 'Project', limit: 1000 } }),
      ]),
    [],
  );
  const [secret, setSecret] = useState<string | null>(null);
  const [made, setMade] = useState(0);
  if (!data) return <ErrorBox error={error} />;
  const [list, projects] = data;
  const names = new Map(projects.items.map((p) => [p.uid, p.label]));
  return (
    <>
      <h1>Briefing schedules</h1>
      <div className="row toolbar">
        <label htmlFor="schedule-project">Project</label>
        <Select
          id="schedule-project"
          name="project_uid"
          value={project}
          onChange={(e) => ctx.navigate(`${BASE}/briefings/schedules${e.currentTarget.value ? `?project_uid=${encodeURIComponent(e.currentTarget.value)}` : ''}`)}
          options={[['', 'every Project'], ...projects.items.map((p) => [p.uid, p.label] as const)]}
        />
      </div>
      <div id="schedule-created">{secret ? <SecretNotice secret={secret} /> : null}</div>
      <section className="card" aria-labelledby="bs-h">
        <h2 id="bs-h">{`Schedules (${list.items.length})`}</h2>
        <Table<Schedule>
          caption="Briefing schedules"
          rowKey={(s) => s.id}
          columns={[
            ['Schedule', (s) => <a href={href('briefings', 'schedules', s.id)}>{`${names.get(s.project_uid) ?? s.project_uid} → ${s.recipient}`}</a>],
            ['Channel', (s) => s.channel],
            ['Cadence', (s) => cadence(s)],
            [
              'Status',
              (s) => (
                <>
                  <span className={`status status-${s.status}`}>{s.status}</span>
                  {s.paused_reason ? ` (${s.paused_reason})` : ''}
                </>
              ),
            ],
            ['Next run', (s) => when(s.next_run_at)],
          ]}
          items={list.items}
          empty="No schedules yet."
        />
      </section>
      {isAdmin(ctx.role) ? (
        <NewSchedule
          key={made}
          ctx={ctx}
          projects={projects.items}
          project={project}
          created={async (s) => {
            await reload();
            setSecret(s.signing_secret ?? null);
            setMade((n) => n + 1);
          }}
        />
      ) : (
        <p className="muted">Owners and admins create and change schedules.</p>
      )}
    </>
  );
}

export const briefingSchedules: Area = {
  id: 'briefing-schedules',
  routes: ['/briefings/schedules'],
  nav: { label: 'Briefing schedules', path: '/briefings/schedules', group: 'Projects' },
  title: () => 'Briefing schedules',
  Page: BriefingSchedules,
};

function ChangeSchedule({ ctx, s, saved, onError }: { ctx: PageProps['ctx']; s: Schedule; saved(r: Schedule): Promise<void>; onError(err: unknown): void }) {
  const times = useCadence(s);
  const [mode, setMode] = useState(s.mode);
  const [onlyOnChange, setOnlyOnChange] = useState(s.only_on_change);
  const [rotate, setRotate] = useState(false);
  const action = useAction();
  return (
    <form
      className="edit"
      aria-labelledby="edit-bs-h"
      onSubmit={(e) => {
        e.preventDefault();
        onError(null);
        void action.run(async () => {
          try {
            const r = await ctx.api.patch<Schedule, '/v1/briefings/schedules/{id}'>(
              '/v1/briefings/schedules/{id}',
              { ...times.value(), mode, only_on_change: onlyOnChange, ...(rotate ? { rotate_secret: true } : {}) },
              { path: { id: s.id } },
            );
            await saved(r);
          } catch (err) {
            onError(err);
          }
        });
      }}
    >
      <h3 id="edit-bs-h">Change</h3>
      {times.fields}
      <Field label="Generation">
        <Select name="mode" value={mode} onChange={(e) => setMode(e.currentTarget.value as Schedule['mode'])} options={['auto', 'structural', 'llm']} />
      </Field>
      <CheckField label="Only when something material changed" name="only_on_change" checked={onlyOnChange} onChange={setOnlyOnChange} />
      {s.channel === 'webhook' ? <CheckField label="Rotate the signing secret (the old one signs for 24 h more)" name="rotate_secret" checked={rotate} onChange={setRotate} /> : null}
      <button type="submit" disabled={action.busy} aria-busy={action.busy || undefined}>
        Save changes
      </button>
    </form>
  );
}

function BriefingSchedule({ ctx, params: { id } }: PageProps) {
  const { data: s, error: loadError, reload } = useLoad(() => ctx.api.get<Schedule>('/v1/briefings/schedules/{id}', { path: { id } }), []);
  const [error, setError] = useState<unknown>(null);
  const [outcome, setOutcome] = useState<{ text: string } | { secret: string } | null>(null);
  const [version, setVersion] = useState(0);
  if (!s) return <ErrorBox error={loadError} />;
  return (
    <>
      <p className="crumbs">
        <a href={`${BASE}/briefings/schedules`}>Briefing schedules</a>
        {' / '}
        <a href={href('projects', s.project_uid)}>Project</a>
      </p>
      <h1>
        {`${s.channel} → ${s.recipient}`}
        <span className={`pill status-${s.status}`} id="schedule-status">
          {s.status}
        </span>
      </h1>
      <section className="card">
        <dl className="fields">
          {[
            ['cadence', cadence(s)],
            ['generation', s.mode],
            ['only on change', s.only_on_change ? 'yes' : 'no'],
            ['next run', when(s.next_run_at)],
            ['paused because', s.paused_reason ?? '—'],
            ['failures in a row', String(s.consecutive_failures)],
            ['secret', s.secret_hint ? `…${s.secret_hint}` : '—'],
            ['created', when(s.created_at)],
          ].map(([k, v]) => [<dt key={`t-${k}`}>{k}</dt>, <dd key={`d-${k}`}>{v}</dd>])}
        </dl>
      </section>
      {outcome && 'secret' in outcome ? (
        <SecretNotice secret={outcome.secret} />
      ) : (
        <p role="status" className="muted" id="schedule-outcome">
          {outcome?.text ?? ''}
        </p>
      )}
      <ErrorBox error={error} />
      {isAdmin(ctx.role) ? (
        <section className="card">
          <div className="row">
            <BusyButton
              onError={setError}
              action={async () => {
                const r = await ctx.api.post<{ run: Run }, '/v1/briefings/schedules/{id}/send-now'>('/v1/briefings/schedules/{id}/send-now', {}, { path: { id } });
                await reload();
                setOutcome({ text: `Run ${r.run.id} ${r.run.status}.` });
              }}
            >
              Send now
            </BusyButton>
            <BusyButton
              className="secondary"
              onError={setError}
              action={async () => {
                await ctx.api.patch<Schedule, '/v1/briefings/schedules/{id}'>('/v1/briefings/schedules/{id}', { paused: s.status !== 'paused' }, { path: { id } });
                await reload();
              }}
            >
              {s.status === 'paused' ? 'Resume' : 'Pause'}
            </BusyButton>
            <BusyButton
              className="danger"
              onError={setError}
              action={async () => {
                if (!confirm('Delete this schedule? A pending run is cancelled.')) return;
                await ctx.api.delete('/v1/briefings/schedules/{id}', { path: { id } });
                ctx.navigate(`${BASE}/briefings/schedules?project_uid=${encodeURIComponent(s.project_uid)}`);
              }}
            >
              Delete
            </BusyButton>
          </div>
          <ChangeSchedule
            key={version}
            ctx={ctx}
            s={s}
            onError={setError}
            saved={async (r) => {
              await reload();
              setVersion((v) => v + 1);
              setOutcome(r.signing_secret ? { secret: r.signing_secret } : { text: 'Saved.' });
            }}
          />
        </section>
      ) : null}
      <section className="card" aria-labelledby="runs-h">
        <h2 id="runs-h">{`Runs (${s.runs?.length ?? 0})`}</h2>
        <Table<Run>
          caption="Runs"
          rowKey={(r) => r.id}
          columns={[
            ['Scheduled for', (r) => when(r.scheduled_for)],
            ['Trigger', (r) => r.trigger],
            [
              'Status',
              (r) => (
                <span className={`status status-${r.status}`} data-run={r.id}>
                  {r.status}
                </span>
              ),
            ],
            ['Brief', (r) => (r.brief_version === null ? '—' : <a href={`${href('projects', s.project_uid)}?version=${r.brief_version}`}>{`v${r.brief_version}`}</a>)],
            ['Detail', (r) => (r.error ? `${r.error.code}: ${r.error.message}` : (r.skip_reason ?? `${r.material_change_count} material change(s)${r.http_status ? `, HTTP ${r.http_status}` : ''}`))],
          ]}
          items={s.runs ?? []}
          empty="No runs yet."
        />
      </section>
    </>
  );
}

export const briefingSchedulePage: Area = {
  id: 'briefing-schedule',
  routes: ['/briefings/schedules/:id'],
  title: () => 'Briefing schedule',
  Page: BriefingSchedule,
};
