import { useState } from 'react';
import type { BodyOf } from '../api.js';
import type { Area, PageProps } from '../context.js';
import { isAdmin } from '../context.js';
import { when } from '../format.js';
import { ErrorBox, Select, Table, useAction, useLoad } from '../ui.js';

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

function Meter({ label, used, limit }: { label: string; used: number; limit: number | null }) {
  return (
    <div className="meter">
      <div className="meter-label">
        <span>{label}</span>
        <span>{limit === null ? `${used} (no limit)` : `${used} of ${limit}`}</span>
      </div>
      {limit !== null && limit > 0 ? <progress max={limit} value={Math.min(used, limit)} aria-label={`${label}: ${used} of ${limit}`} /> : null}
    </div>
  );
}

function ChangePlan({ ctx, plans, current }: { ctx: PageProps['ctx']; plans: Plan[]; current: string }) {
  const [choice, setChoice] = useState(current);
  const action = useAction();
  return (
    <>
      <div className="row">
        <label htmlFor="plan-choice">Plan</label>
        <Select id="plan-choice" name="plan" value={choice} onChange={(e) => setChoice(e.currentTarget.value)} options={plans.map((p) => [p.id, `${p.name} ($${p.price_usd_per_month}/month)`] as const)} />
        <button
          type="button"
          disabled={action.busy}
          aria-busy={action.busy || undefined}
          onClick={() =>
            void action.run(async () => {
              await ctx.api.post('/v1/billing/subscribe', { plan: choice as BodyOf<'post', '/v1/billing/subscribe'>['plan'] });
              await ctx.reloadAccount();
            })
          }
        >
          Change plan
        </button>
      </div>
      <ErrorBox error={action.error} />
    </>
  );
}

function Overview({ ctx }: PageProps) {
  const { data, error } = useLoad(
    () =>
      Promise.all([
        ctx.api.get<Usage>('/v1/usage'),
        ctx.api.get<Subscription>('/v1/billing/subscription'),
        ctx.api.get<Plan[] | { items: Plan[] }>('/v1/billing/plans', { anonymous: true }),
      ]),
    [],
  );
  if (!data) return <ErrorBox error={error} />;
  const [usage, sub, plans] = data;
  const planList = Array.isArray(plans) ? plans : plans.items;
  return (
    <>
      <h1>Plan and usage</h1>
      <section className="card" aria-labelledby="usage-h">
        <h2 id="usage-h">{`${sub.plan_name} plan`}</h2>
        <p className="muted">{`Period ${when(usage.period.start)} – ${when(usage.period.end)}`}</p>
        <Meter label="Nodes" used={usage.nodes.used} limit={usage.nodes.limit} />
        <Meter label="Ingestion credits" used={usage.credits.used} limit={usage.credits.limit} />
        <p>{`Edges: ${usage.edges.used} · Requests this period: ${usage.requests.this_period}` + (usage.requests.per_minute_limit ? ` · limit ${usage.requests.per_minute_limit}/minute` : '')}</p>
        {usage.llm ? <p>{`Language-model calls: ${usage.llm.calls ?? 0} (${usage.llm.input_tokens ?? 0} tokens in, ${usage.llm.output_tokens ?? 0} out)`}</p> : null}
        {isAdmin(ctx.role) ? <ChangePlan ctx={ctx} plans={planList} current={sub.plan} /> : null}
      </section>
      <section className="card" aria-labelledby="plans-h">
        <h2 id="plans-h">Plans</h2>
        <Table<Plan>
          caption="Plans"
          rowKey={(p) => p.id}
          columns={[
            ['Plan', (p) => (p.id === sub.plan ? <strong>{`${p.name} (current)`}</strong> : p.name)],
            ['Price', (p) => `$${p.price_usd_per_month}/month`],
            ['Limits', (p) => Object.entries(p.limits).map(([k, v]) => `${k.replace(/_/g, ' ')}: ${v ?? 'unlimited'}`).join(' · ')],
          ]}
          items={planList}
        />
      </section>
    </>
  );
}

export const overview: Area = {
  id: 'overview',
  routes: ['/'],
  nav: { label: 'Plan and usage', path: '/', group: 'Organization' },
  title: () => 'Plan and usage',
  Page: Overview,
};
