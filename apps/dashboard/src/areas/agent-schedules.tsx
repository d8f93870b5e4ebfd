import { useState } from 'react';
import type { Area, Ctx, PageProps } from '../context.js';
import { isAdmin } from '../context.js';
import { when } from '../format.js';
import { BASE, href } from '../router.js';
import type { Page } from '../types.js';
import { BusyButton, CheckField, ErrorBox, Field, Select, Table, useAction, useLoad } from '../ui.js';

/**
 * Agents' schedules (REFERENCE §16.11): each fires a new session with its rendered message on
 * a cron. Everyone reads them and their latest firings; owners and admins create, change
 * (pause by disabling) and delete them.
 */
interface Schedule {
  id: string;
  agent_id: string;
  name: string;
  cron: string;
  timezone: string;
  message_template: string;
  enabled: boolean;
  overlap_policy: 'forbid' | 'allow' | 'replace';
  next_run_at: string | null;
  last_fired_at: string | null;
  last_outcome: string | null;
  last_session_id: string | null;
  fire_count: number;
  recent: { scheduled_for: string; fired_at: string | null; outcome: string; session_id: string | null; reason: string | null }[];
  created_at: string;
}
interface AgentRef {
  id: string;
  name: string;
  status: string;
}
type Body = { name: string; cron: string; timezone: string; message_template: string; enabled: boolean; overlap_policy: Schedule['overlap_policy'] };

/** The fields of a schedule, blank for a new one; `agents` adds the agent choice (fixed once created). */
function ScheduleForm({ title, submitLabel, s, agents, save }: { title: string; submitLabel: string; s: Schedule | null; agents: AgentRef[] | null; save(body: Body & { agent_id?: string }): Promise<void> }) {
  const [agent, setAgent] = useState(agents?.[0]?.id ?? '');
  const [name, setName] = useState(s?.name ?? '');
  const [cron, setCron] = useState(s?.cron ?? '0 7 * * 1-5');
  const [timezone, setTimezone] = useState(s?.timezone ?? 'UTC');
  const [template, setTemplate] = useState(s?.message_template ?? 'Brief me on what changed before {{date}}.');
  const [enabled, setEnabled] = useState(s ? s.enabled : true);
  const [overlap, setOverlap] = useState<Schedule['overlap_policy']>(s?.overlap_policy ?? 'forbid');
  const action = useAction();
  const id = `sched-${s?.id ?? 'new'}-h`;
  const Heading = s ? 'h3' : 'h2';
  return (
    <form
      className={s ? 'edit' : 'card'}
      aria-labelledby={id}
      onSubmit={(e) => {
        e.preventDefault();
        void action.run(() =>
          save({ ...(agents ? { agent_id: agent } : {}), name: name.trim(), cron: cron.trim(), timezone: timezone.trim() || 'UTC', message_template: template, enabled, overlap_policy: overlap }),
        );
      }}
    >
      <Heading id={id}>{title}</Heading>
      {agents ? (
        <Field label="Agent">
          <Select name="agent_id" value={agent} onChange={(e) => setAgent(e.currentTarget.value)} options={agents.map((a) => [a.id, a.name] as const)} />
        </Field>
      ) : null}
      <Field label="Name">
        <input type="text" name="name" required maxLength={100} value={name} onChange={(e) => setName(e.currentTarget.value)} />
      </Field>
      <Field label="Cron (minute hour day month weekday, or @daily…)">
        <input type="text" name="cron" required className="mono" value={cron} onChange={(e) => setCron(e.currentTarget.value)} />
      </Field>
      <Field label="Time zone (IANA)">
        <input type="text" name="timezone" value={timezone} onChange={(e) => setTimezone(e.currentTarget.value)} />
      </Field>
      <Field label="Message" hint="Sent as the session’s first message; {{date}}, {{time}}, {{datetime}}, {{schedule_name}} and {{agent_name}} are filled in.">
        <textarea name="message_template" rows={3} required maxLength={10000} value={template} onChange={(e) => setTemplate(e.currentTarget.value)} />
      </Field>
      <CheckField label="Enabled" name="enabled" checked={enabled} onChange={setEnabled} />
      <Field label="When the previous firing is still running">
        <Select
          name="overlap_policy"
          value={overlap}
          onChange={(e) => setOverlap(e.currentTarget.value as Schedule['overlap_policy'])}
          options={[['forbid', 'skip while the previous run is going'], ['allow', 'run alongside'], ['replace', 'cancel the previous run']]}
        />
      </Field>
      <ErrorBox error={action.error} />
      <button type="submit" disabled={action.busy} aria-busy={action.busy || undefined}>
        {submitLabel}
      </button>
    </form>
  );
}

function ScheduleItem({ ctx, s, again }: { ctx: Ctx; s: Schedule; again(): Promise<void> }) {
  const [error, setError] = useState<unknown>(null);
  return (
    <li className="card schedule" data-id={s.id}>
      <div className="row">
        <strong>{s.name}</strong>
        <span className={`pill status-${s.enabled ? 'active' : 'paused'}`}>{s.enabled ? 'enabled' : 'disabled'}</span>
        <a href={href('agents', s.agent_id)}>agent</a>
      </div>
      <p className="muted">{`${s.cron} (${s.timezone}) · next ${when(s.next_run_at)} · fired ${s.fire_count} time(s)${s.last_outcome ? `, last ${s.last_outcome}` : ''}`}</p>
      <p className="template">{s.message_template}</p>
      <details>
        <summary>{`Latest firings (${s.recent.length})`}</summary>
        <Table<Schedule['recent'][number]>
          caption={`Latest firings of ${s.name}`}
          columns={[
            ['Scheduled for', (r) => when(r.scheduled_for)],
            ['Outcome', (r) => <span className={`status status-${r.outcome}`}>{r.outcome}</span>],
            ['Session', (r) => (r.session_id ? <a href={href('agents', 'sessions', r.session_id)}>{r.session_id}</a> : '—')],
            ['Why', (r) => r.reason ?? ''],
          ]}
          items={s.recent}
          empty="Not fired yet."
        />
      </details>
      {isAdmin(ctx.role) ? (
        <div>
          <details>
            <summary>{`Change ${s.name}`}</summary>
            <ScheduleForm
              title={`Change ${s.name}`}
              submitLabel="Save changes"
              s={s}
              agents={null}
              save={async (body) => {
                await ctx.api.patch<Schedule, '/v1/agents/schedules/{id}'>('/v1/agents/schedules/{id}', body, { path: { id: s.id } });
                await again();
              }}
            />
          </details>
          <BusyButton
            className="small danger"
            aria-label={`Delete ${s.name}`}
            onError={setError}
            action={async () => {
              if (!confirm(`Delete the schedule “${s.name}”?`)) return;
              await ctx.api.delete('/v1/agents/schedules/{id}', { path: { id: s.id } });
              await again();
            }}
          >
            Delete
          </BusyButton>
        </div>
      ) : null}
      <ErrorBox error={error} />
    </li>
  );
}

function AgentSchedules({ ctx, query: q }: PageProps) {
  const agentId = q.get('agent_id') ?? '';
  const { data, error, reload } = useLoad(
    () =>
      Promise.all([
        ctx.api.get<Page<Schedule>>('/v1/agents/schedules', { query: { agent_id: agentId || undefined, limit: 100 } }),
        ctx.api.get<Page<AgentRef>>('/v1/agents', { query: { limit: 100 } }),
      ]),
    [],
  );
  const [created, setCreated] = useState(0);
  if (!data) return <ErrorBox error={error} />;
  const [list, agents] = data;
  const live = agents.items.filter((a) => a.status !== 'archived');
  return (
    <>
      <h1>Agent schedules</h1>
      <div className="row toolbar">
        <label htmlFor="schedule-agent">Agent</label>
        <Select
          id="schedule-agent"
          name="agent_id"
          value={agentId}
          onChange={(e) => ctx.navigate(`${BASE}/agents/schedules${e.currentTarget.value ? `?agent_id=${encodeURIComponent(e.currentTarget.value)}` : ''}`)}
          options={[['', 'every agent'], ...agents.items.map((a) => [a.id, a.name] as const)]}
        />
      </div>
      <section aria-labelledby="as-h">
        <h2 id="as-h">{`Schedules (${list.items.length})`}</h2>
        {list.items.length ? (
          <ul className="schedules plain">
            {list.items.map((s) => (
              <ScheduleItem key={`${s.id}-${s.enabled}-${s.name}-${s.cron}`} ctx={ctx} s={s} again={reload} />
            ))}
          </ul>
        ) : (
          <p className="empty">No schedules yet.</p>
        )}
      </section>
      {isAdmin(ctx.role) && live.length ? (
        <ScheduleForm
          key={created}
          title="New schedule"
          submitLabel="Create schedule"
          s={null}
          agents={live}
          save={async (body) => {
            await ctx.api.post<Schedule, '/v1/agents/schedules'>('/v1/agents/schedules', { ...body, agent_id: body.agent_id! });
            await reload();
            setCreated((n) => n + 1);
          }}
        />
      ) : (
        <p className="muted">{isAdmin(ctx.role) ? 'Create an agent first.' : 'Owners and admins create and change schedules.'}</p>
      )}
    </>
  );
}

export const agentSchedules: Area = {
  id: 'agent-schedules',
  routes: ['/agents/schedules'],
  nav: { label: 'Agent schedules', path: '/agents/schedules', group: 'Agents' },
  title: () => 'Agent schedules',
  Page: AgentSchedules,
};
