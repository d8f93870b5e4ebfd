import type { Area } from '../context.js';
import { isAdmin } from '../context.js';
import { busy, checkField, errorBox, field, h, input, replace, select, table, when } from '../dom.js';
import { BASE, href } from '../router.js';
import type { NodeRecord, Page } from '../types.js';

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
function secretNotice(secret: string): HTMLElement {
  const value = h('input', { type: 'text', readonly: true, value: secret, class: 'secret', id: 'signing-secret', 'aria-label': 'Signing secret' });
  return h('div', { class: 'notice', role: 'status' }, h('strong', {}, 'The webhook’s signing secret'), h('p', {}, 'Copy it now: it is shown only once.'), value);
}

/** Cron or interval, as the form reads them: exactly one is sent. */
function cadenceFields(s?: Schedule) {
  const kind = select('cadence', [['cron', 'cron'], ['interval', 'interval (hours)']], s?.interval_secs ? 'interval' : 'cron');
  const cron = input({ name: 'cron', value: s?.cron ?? '0 7 * * MON-FRI', class: 'mono' });
  const hours = input({ type: 'number', name: 'interval_hours', min: 1, max: 720, value: s?.interval_secs ? String(s.interval_secs / 3600) : '24' });
  const timezone = input({ name: 'timezone', value: s?.timezone ?? 'UTC' });
  const cronField = field('Cron (minute hour day month weekday)', cron);
  const hoursField = field('Every (hours)', hours);
  const sync = () => {
    cronField.hidden = kind.value !== 'cron';
    hoursField.hidden = kind.value === 'cron';
  };
  kind.addEventListener('change', sync);
  sync();
  return {
    els: [field('Cadence', kind), cronField, hoursField, field('Time zone (IANA)', timezone)],
    value: () => (kind.value === 'cron' ? { cron: cron.value.trim() } : { interval_secs: Math.round(Number(hours.value) * 3600) }),
    timezone,
  };
}

export const briefingSchedules: Area = {
  id: 'briefing-schedules',
  routes: ['/briefings/schedules'],
  nav: { label: 'Briefing schedules', path: '/briefings/schedules', group: 'Projects' },
  title: () => 'Briefing schedules',
  async render(ctx, _p, main, q) {
    const project = q.get('project_uid') ?? '';
    const [list, projects] = await Promise.all([
      ctx.api.get<Page<Schedule>>('/v1/briefings/schedules', { query: { project_uid: project || undefined, limit: 1000 } }),
      ctx.api.get<Page<NodeRecord>>('/nodes', { query: { type: 'Project', limit: 1000 } }),
    ]);
    const names = new Map(projects.items.map((p) => [p.uid, p.label]));
    const filter = select('project_uid', [['', 'every Project'], ...projects.items.map((p) => [p.uid, p.label] as [string, string])], project);
    filter.id = 'schedule-project';
    filter.addEventListener('change', () => ctx.navigate(`${BASE}/briefings/schedules${filter.value ? `?project_uid=${encodeURIComponent(filter.value)}` : ''}`));

    let form: HTMLElement | null = null;
    const created = h('div');
    if (isAdmin(ctx.role)) {
      const projectSel = select('project_uid', projects.items.map((p) => [p.uid, p.label] as [string, string]), project || undefined);
      const channel = select('channel', [['in_app', 'in the app'], ['email', 'e-mail'], ['webhook', 'webhook']], 'in_app');
      const recipient = input({ name: 'recipient', required: true, value: `user:${ctx.account!.user.id}` });
      channel.addEventListener('change', () => {
        recipient.value = channel.value === 'in_app' ? `user:${ctx.account!.user.id}` : '';
        recipient.placeholder = channel.value === 'email' ? 'name@example.com' : channel.value === 'webhook' ? 'https://example.com/hooks/brief' : 'user:<user id>';
      });
      const times = cadenceFields();
      const mode = select('mode', ['auto', 'structural', 'llm'], 'auto');
      const onlyOnChange = h('input', { type: 'checkbox', name: 'only_on_change', checked: true });
      const paused = h('input', { type: 'checkbox', name: 'paused' });
      const errors = errorBox();
      const go = h('button', { type: 'submit' }, 'Save schedule');
      form = h('form', { class: 'card', 'aria-labelledby': 'new-bs-h' }, h('h2', { id: 'new-bs-h' }, 'New schedule'),
        field('Project', projectSel), field('Channel', channel), field('Recipient', recipient, 'In the app: user:<user id> of a member. E-mail: an address. Webhook: an https URL.'),
        times.els, field('Generation', mode), checkField('Only when something material changed', onlyOnChange), checkField('Create paused', paused), errors, go);
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        void busy(go, errors, async () => {
          const s = await ctx.api.post<Schedule, '/v1/briefings/schedules'>('/v1/briefings/schedules', {
            project_uid: projectSel.value,
            channel: channel.value as Schedule['channel'],
            recipient: recipient.value.trim(),
            ...times.value(),
            timezone: times.timezone.value.trim() || 'UTC',
            mode: mode.value as Schedule['mode'],
            only_on_change: onlyOnChange.checked,
            paused: paused.checked,
          });
          await briefingSchedules.render!(ctx, {}, main, q);
          if (s.signing_secret) main.querySelector('#schedule-created')?.replaceChildren(secretNotice(s.signing_secret));
        });
      });
    }
    created.id = 'schedule-created';
    replace(
      main,
      h('h1', {}, 'Briefing schedules'),
      h('div', { class: 'row toolbar' }, h('label', { for: 'schedule-project' }, 'Project'), filter),
      created,
      h('section', { class: 'card', 'aria-labelledby': 'bs-h' }, h('h2', { id: 'bs-h' }, `Schedules (${list.items.length})`),
        table<Schedule>('Briefing schedules', [
          ['Schedule', (s) => h('a', { href: href('briefings', 'schedules', s.id) }, `${names.get(s.project_uid) ?? s.project_uid} → ${s.recipient}`)],
          ['Channel', (s) => s.channel],
          ['Cadence', (s) => cadence(s)],
          ['Status', (s) => [h('span', { class: `status status-${s.status}` }, s.status), s.paused_reason ? ` (${s.paused_reason})` : '']],
          ['Next run', (s) => when(s.next_run_at)],
        ], list.items, 'No schedules yet.')),
      form ?? h('p', { class: 'muted' }, 'Owners and admins create and change schedules.'),
    );
  },
};

export const briefingSchedulePage: Area = {
  id: 'briefing-schedule',
  routes: ['/briefings/schedules/:id'],
  title: () => 'Briefing schedule',
  async render(ctx, { id }, main) {
    const s = await ctx.api.get<Schedule>('/v1/briefings/schedules/{id}', { path: { id } });
    const again = () => briefingSchedulePage.render!(ctx, { id }, main, new URLSearchParams());
    const errors = errorBox();
    const outcome = h('p', { role: 'status', class: 'muted', id: 'schedule-outcome' });
    let controls: HTMLElement | null = null;
    if (isAdmin(ctx.role)) {
      const sendNow = h('button', { type: 'button' }, 'Send now');
      sendNow.addEventListener('click', () => void busy(sendNow, errors, async () => {
        const r = await ctx.api.post<{ run: Run }, '/v1/briefings/schedules/{id}/send-now'>('/v1/briefings/schedules/{id}/send-now', {}, { path: { id } });
        await again();
        main.querySelector('#schedule-outcome')!.textContent = `Run ${r.run.id} ${r.run.status}.`;
      }));
      const pause = h('button', { type: 'button', class: 'secondary' }, s.status === 'paused' ? 'Resume' : 'Pause');
      pause.addEventListener('click', () => void busy(pause, errors, async () => {
        await ctx.api.patch<Schedule, '/v1/briefings/schedules/{id}'>('/v1/briefings/schedules/{id}', { paused: s.status !== 'paused' }, { path: { id } });
        await again();
      }));
      const remove = h('button', { type: 'button', class: 'danger' }, 'Delete');
      remove.addEventListener('click', () => void busy(remove, errors, async () => {
        if (!confirm('Delete this schedule? A pending run is cancelled.')) return;
        await ctx.api.delete('/v1/briefings/schedules/{id}', { path: { id } });
        ctx.navigate(`${BASE}/briefings/schedules?project_uid=${encodeURIComponent(s.project_uid)}`);
      }));
      const times = cadenceFields(s);
      const mode = select('mode', ['auto', 'structural', 'llm'], s.mode);
      const onlyOnChange = h('input', { type: 'checkbox', name: 'only_on_change', checked: s.only_on_change });
      const rotate = s.channel === 'webhook' ? h('input', { type: 'checkbox', name: 'rotate_secret' }) : null;
      const save = h('button', { type: 'submit' }, 'Save changes');
      const edit = h('form', { class: 'edit', 'aria-labelledby': 'edit-bs-h' }, h('h3', { id: 'edit-bs-h' }, 'Change'), times.els, field('Generation', mode), checkField('Only when something material changed', onlyOnChange),
        rotate ? checkField('Rotate the signing secret (the old one signs for 24 h more)', rotate) : null, save);
      edit.addEventListener('submit', (e) => {
        e.preventDefault();
        void busy(save, errors, async () => {
          const r = await ctx.api.patch<Schedule, '/v1/briefings/schedules/{id}'>('/v1/briefings/schedules/{id}', { ...times.value(), timezone: times.timezone.value.trim() || 'UTC', mode: mode.value as Schedule['mode'], only_on_change: onlyOnChange.checked, ...(rotate?.checked ? { rotate_secret: true } : {}) }, { path: { id } });
          await again();
          if (r.signing_secret) main.querySelector('#schedule-outcome')!.replaceWith(secretNotice(r.signing_secret));
          else main.querySelector('#schedule-outcome')!.textContent = 'Saved.';
        });
      });
      controls = h('section', { class: 'card' }, h('div', { class: 'row' }, sendNow, pause, remove), edit);
    }
    replace(
      main,
      h('p', { class: 'crumbs' }, h('a', { href: `${BASE}/briefings/schedules` }, 'Briefing schedules'), ' / ', h('a', { href: href('projects', s.project_uid) }, 'Project')),
      h('h1', {}, `${s.channel} → ${s.recipient}`, h('span', { class: `pill status-${s.status}`, id: 'schedule-status' }, s.status)),
      h('section', { class: 'card' }, h('dl', { class: 'fields' }, [
        ['cadence', cadence(s)], ['generation', s.mode], ['only on change', s.only_on_change ? 'yes' : 'no'], ['next run', when(s.next_run_at)],
        ['paused because', s.paused_reason ?? '—'], ['failures in a row', String(s.consecutive_failures)], ['secret', s.secret_hint ? `…${s.secret_hint}` : '—'], ['created', when(s.created_at)],
      ].map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]))),
      outcome,
      errors,
      controls,
      h('section', { class: 'card', 'aria-labelledby': 'runs-h' }, h('h2', { id: 'runs-h' }, `Runs (${s.runs?.length ?? 0})`),
        table<Run>('Runs', [
          ['Scheduled for', (r) => when(r.scheduled_for)],
          ['Trigger', (r) => r.trigger],
          ['Status', (r) => h('span', { class: `status status-${r.status}`, 'data-run': r.id }, r.status)],
          ['Brief', (r) => (r.brief_version === null ? '—' : h('a', { href: `${href('projects', s.project_uid)}?version=${r.brief_version}` }, `v${r.brief_version}`))],
          ['Detail', (r) => r.error ? `${r.error.code}: ${r.error.message}` : r.skip_reason ?? `${r.material_change_count} material change(s)${r.http_status ? `, HTTP ${r.http_status}` : ''}`],
        ], s.runs ?? [], 'No runs yet.')),
    );
  },
};
