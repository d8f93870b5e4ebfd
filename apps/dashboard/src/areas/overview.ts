import type { BodyOf } from '../api.js';
import type { Area } from '../context.js';
import { isAdmin } from '../context.js';
import { busy, errorBox, h, replace, select, table, when } from '../dom.js';

/** The landing page: the organization's plan, this period's usage, the plans on offer. */
interface Usage {
  plan: string;
  period: { start: string; end: string };
  nodes: { used: number; limit: number | null };
  edges: { used: number };
  requests: { this_period: number; per_minute_limit: number | null };
  credits: { used: number; limit: number | null; left: number | null };
  llm?: { calls?: number; input_tokens?: number; output_tokens?: number } | null;
}
interface Plan {
  id: string;
  name: string;
  price_usd_per_month: number;
  limits: Record<string, number | null>;
}
interface Subscription {
  plan: string;
  plan_name: string;
  current_period_start: string;
  current_period_end: string;
}

function meter(label: string, used: number, limit: number | null): HTMLElement {
  const m = h('div', { class: 'meter' }, h('div', { class: 'meter-label' }, h('span', {}, label), h('span', {}, limit === null ? `${used} (no limit)` : `${used} of ${limit}`)));
  if (limit !== null && limit > 0) {
    const bar = h('progress', { max: String(limit), value: String(Math.min(used, limit)), 'aria-label': `${label}: ${used} of ${limit}` });
    m.appendChild(bar);
  }
  return m;
}

export const overview: Area = {
  id: 'overview',
  routes: ['/'],
  nav: { label: 'Plan and usage', path: '/', group: 'Organization' },
  title: () => 'Plan and usage',
  async render(ctx, _p, main) {
    const [usage, sub, plans] = await Promise.all([
      ctx.api.get<Usage>('/v1/usage'),
      ctx.api.get<Subscription>('/v1/billing/subscription'),
      ctx.api.get<Plan[] | { items: Plan[] }>('/v1/billing/plans', { anonymous: true }),
    ]);
    const planList = Array.isArray(plans) ? plans : plans.items;
    const errors = errorBox();
    let change: HTMLElement | null = null;
    if (isAdmin(ctx.role)) {
      const choice = select('plan', planList.map((p) => [p.id, `${p.name} ($${p.price_usd_per_month}/month)`] as [string, string]), sub.plan);
      choice.id = 'plan-choice';
      const go = h('button', { type: 'button' }, 'Change plan');
      go.addEventListener('click', () => void busy(go, errors, async () => {
        await ctx.api.post('/v1/billing/subscribe', { plan: choice.value as BodyOf<'post', '/v1/billing/subscribe'>['plan'] });
        await ctx.reloadAccount();
      }));
      change = h('div', { class: 'row' }, h('label', { for: 'plan-choice' }, 'Plan'), choice, go);
    }
    replace(
      main,
      h('h1', {}, 'Plan and usage'),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'usage-h' },
        h('h2', { id: 'usage-h' }, `${sub.plan_name} plan`),
        h('p', { class: 'muted' }, `Period ${when(usage.period.start)} – ${when(usage.period.end)}`),
        meter('Nodes', usage.nodes.used, usage.nodes.limit),
        meter('Ingestion credits', usage.credits.used, usage.credits.limit),
        h('p', {}, `Edges: ${usage.edges.used} · Requests this period: ${usage.requests.this_period}` + (usage.requests.per_minute_limit ? ` · limit ${usage.requests.per_minute_limit}/minute` : '')),
        usage.llm ? h('p', {}, `Language-model calls: ${usage.llm.calls ?? 0} (${usage.llm.input_tokens ?? 0} tokens in, ${usage.llm.output_tokens ?? 0} out)`) : null,
        change,
        errors,
      ),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'plans-h' },
        h('h2', { id: 'plans-h' }, 'Plans'),
        table<Plan>('Plans', [
          ['Plan', (p) => (p.id === sub.plan ? h('strong', {}, `${p.name} (current)`) : p.name)],
          ['Price', (p) => `$${p.price_usd_per_month}/month`],
          ['Limits', (p) => Object.entries(p.limits).map(([k, v]) => `${k.replace(/_/g, ' ')}: ${v ?? 'unlimited'}`).join(' · ')],
        ], planList),
      ),
    );
  },
};
