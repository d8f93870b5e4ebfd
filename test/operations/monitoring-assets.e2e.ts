import * as fs from 'node:fs';
import * as path from 'node:path';
import { startTestApp, TestApp } from '../support/test-app';

const DIR = path.resolve(__dirname, '../../docs/monitoring');

/** Every `strata_…` series an expression reads (other exporters' metrics, node_exporter's, are not ours to check). */
function seriesIn(expr: string): string[] {
  return [...expr.matchAll(/\bstrata_[a-z0-9_]+/g)].map((m) => m[0]);
}

function balanced(expr: string): boolean {
  let depth = 0;
  for (const ch of expr.replace(/"[^"]*"/g, '""')) {
    if ('({['.includes(ch)) depth++;
    else if (')}]'.includes(ch) && --depth < 0) return false;
  }
  return depth === 0;
}

/** The Grafana dashboard and the alert rules in docs/monitoring query only what the service exports. */
describe('docs/monitoring', () => {
  let t: TestApp;
  let families: Map<string, string>;
  beforeAll(async () => {
    t = await startTestApp({ metrics: 'public' });
    const text = await (await fetch(`${t.url}/metrics`)).text();
    // every registered family is listed with its type, samples or not
    families = new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1], m[2]]));
  });
  afterAll(() => t.close());

  const exported = (series: string): boolean => {
    if (families.has(series)) return true;
    const m = /^(.*)_(bucket|count|sum)$/.exec(series);
    return !!m && ['histogram', 'summary'].includes(families.get(m[1]) ?? '');
  };

  it('the dashboard is Grafana JSON whose every query reads metrics the service exports', () => {
    const dash = JSON.parse(fs.readFileSync(path.join(DIR, 'strata-dashboard.json'), 'utf8'));
    expect(dash).toMatchObject({ title: 'Strata', uid: expect.any(String), schemaVersion: expect.any(Number) });
    const panels = dash.panels.filter((p: any) => p.type !== 'row');
    expect(panels.length).toBeGreaterThan(10);
    const ids = dash.panels.map((p: any) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const queried = new Set<string>();
    for (const p of panels) {
      expect(p.targets.length).toBeGreaterThan(0);
      expect(p.gridPos.x + p.gridPos.w).toBeLessThanOrEqual(24);
      for (const target of p.targets) {
        expect(balanced(target.expr)).toBe(true);
        for (const s of seriesIn(target.expr)) queried.add(s);
      }
    }
    expect([...queried].filter((s) => !exported(s))).toEqual([]);
    // the families operators ask about daily are all on it
    for (const f of ['strata_projection_lag_events', 'strata_job_queue_jobs', 'strata_job_duration_seconds_bucket', 'strata_model_tokens_total', 'strata_mcp_calls_total', 'strata_live_subscribers', 'strata_sqlite_wal_bytes', 'strata_projection_rebuild_progress_ratio'])
      expect(queried).toContain(f);
  });

  it('every alert rule has a name and an expression over metrics the service exports', () => {
    const yaml = fs.readFileSync(path.join(DIR, 'strata-alerts.yml'), 'utf8');
    const rules = [...yaml.matchAll(/- alert: (\S+)\n(?:\s*#.*\n)*\s+expr: (.+)\n/g)].map((m) => ({ alert: m[1], expr: m[2] }));
    expect(rules.length).toBe((yaml.match(/- alert:/g) ?? []).length);
    expect(rules.map((r) => r.alert)).toEqual(expect.arrayContaining(['StrataProjectionLagging', 'StrataJobQueueStuck', 'StrataServerErrors', 'StrataDiskFilling']));
    for (const r of rules) expect(balanced(r.expr)).toBe(true);
    const missing = rules.flatMap((r) => seriesIn(r.expr).filter((s) => !exported(s)).map((s) => `${r.alert}: ${s}`));
    expect(missing).toEqual([]);
  });
});
