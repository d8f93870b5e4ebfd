import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startApp } from '../apps/api/src/bootstrap';
import { loadConfig } from '@strata/platform/config/strata-config';
import { timeAll } from './support/http-timing';

/**
 * The Space rule on the read path. An organization holds 10,000 spaced nodes in two Spaces and
 * 1,000 unspaced ones; a member with a read grant on one Space reads by uid and searches. Every
 * such read resolves the caller's scope from the Space membership: these figures are what that
 * costs beside the owner's, who passes the rule without reading any membership.
 */
export async function run(): Promise<Record<string, number>> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-bench-spaces-'));
  const cfg = { ...loadConfig({}), port: 0, host: '127.0.0.1', dataDir, rateLimitPerMinute: 100_000_000 };
  const running = await startApp(cfg, { logger: false });
  const out: Record<string, number> = {};
  try {
    const call = async (token: string, method: string, p: string, body?: unknown, org?: string) => {
      const r = await fetch(running.url + p, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(org ? { 'x-org-id': org } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await r.text();
      if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${text.slice(0, 300)}`);
      return JSON.parse(text) as Record<string, any>;
    };
    const signup = (email: string) => call('', 'POST', '/v1/auth/signup', { email, password: 'bench password 123' });
    const owner = await signup('owner@example.com');
    const o = owner.access_token as string;
    const orgId = owner.organization.id as string;
    await call(o, 'POST', '/v1/billing/subscribe', { plan: 'enterprise' });
    const spaceA = (await call(o, 'POST', '/node', { label: 'Finance', node_type: 'Space' })).uid as string;
    const spaceB = (await call(o, 'POST', '/node', { label: 'Legal', node_type: 'Space' })).uid as string;
    const spaced: string[] = [];
    for (let b = 0; b < 10; b++) {
      const space = b % 2 === 0 ? spaceA : spaceB;
      const nodes = Array.from({ length: 1000 }, (_, i) => ({ label: `ledger entry ${b * 1000 + i}`, node_type: 'Concept', classification: i % 3 === 0 ? 'confidential' : 'internal' }));
      const r = await call(o, 'POST', '/batch', { space_uid: space, nodes });
      if (space === spaceA) spaced.push(...(r.node_uids as string[]));
    }
    const open = (await call(o, 'POST', '/batch', { nodes: Array.from({ length: 1000 }, (_, i) => ({ label: `open note ${i}`, node_type: 'Concept' })) })).node_uids as string[];
    const member = await signup('member@example.com');
    await call(o, 'POST', `/v1/orgs/${orgId}/members`, { email: 'member@example.com', role: 'member' });
    await call(o, 'POST', `/v1/spaces/${spaceA}/grants`, { principal_uid: `user:${member.user.id}`, access: 'read', classification_ceiling: 'internal' });
    const m = member.access_token as string;

    const uids = Array.from({ length: 300 }, (_, i) => open[(i * 7) % open.length]);
    out.get_node_owner_p50_ms = (await timeAll(uids, (u) => call(o, 'GET', `/node/${u}`))).p50;
    out.get_node_member_p50_ms = (await timeAll(uids, (u) => call(m, 'GET', `/node/${u}`, undefined, orgId))).p50;
    const queries = Array.from({ length: 100 }, (_, i) => `ledger entry ${(i * 37) % 10_000}`);
    out.search_owner_p50_ms = (await timeAll(queries, (q) => call(o, 'POST', '/search', { query: q, limit: 20 }))).p50;
    out.search_member_p50_ms = (await timeAll(queries, (q) => call(m, 'POST', '/search', { query: q, limit: 20 }, orgId))).p50;
    // the member still sees exactly its Space's internal nodes: a sanity check the cache cannot fake
    const visible = await call(m, 'GET', `/node/${spaced[1]}`, undefined, orgId);
    if (visible.uid !== spaced[1]) throw new Error('member cannot read an internal node of its Space');
    const hidden = await fetch(`${running.url}/node/${spaced[0]}`, { headers: { authorization: `Bearer ${m}`, 'x-org-id': orgId } });
    if (hidden.status !== 404) throw new Error(`member reads a confidential node: ${hidden.status}`);
  } finally {
    await running.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return out;
}
