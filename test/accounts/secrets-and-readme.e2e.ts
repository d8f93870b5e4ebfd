import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TestApp, startTestApp } from '../support/test-app';
import { api, createApiKey, request, signUp } from '../support/http';
import { RequestActivity } from '../../apps/api/src/accounts/activity/request-activity';

describe('secrets never appear in logs', () => {
  it('the service log holds no password, API key, token or JWT secret', async () => {
    const t: TestApp = await startTestApp({ captureLogs: true });
    try {
      const password = 'Sup3r-secret-passw0rd-xyz';
      const s = await signUp(t.url, { password });
      await request(t.url, 'POST', '/v1/auth/login', { body: { email: s.email, password: 'Wr0ng-passw0rd-abc' } });
      await request(t.url, 'POST', '/v1/auth/login', { body: { email: s.email, password } });
      await request(t.url, 'POST', '/v1/auth/signup', { body: { email: s.email, password } }); // duplicate
      await request(t.url, 'POST', '/v1/auth/signup', { body: { email: 'x@example.com', password: 'short-pw' } });
      const key = await createApiKey(t.url, s.access_token);
      await api(t.url, key.key).post('/node', { label: 'n', node_type: 'Concept' });
      await api(t.url, key.key).get('/node/does-not-exist');
      await api(t.url, key.key).post('/v1/api-keys', { name: 'x', scopes: ['read'] }); // refused: JWT only
      await request(t.url, 'POST', '/node', { token: key.key, raw: '{broken' });
      const refreshed = await request(t.url, 'POST', '/v1/auth/refresh', { body: { refresh_token: s.refresh_token } });
      await request(t.url, 'POST', '/v1/auth/refresh', { body: { refresh_token: s.refresh_token } }); // reuse
      await api(t.url, s.access_token).delete(`/v1/api-keys/${key.id}`);
      await api(t.url, key.key).get('/nodes');
      await t.app.get(RequestActivity).flush(); // request activity written
      const jwtSecret = fs.readFileSync(path.join(t.dataDir, 'jwt-secret'), 'utf8').trim();
      await t.close({ keepData: true });

      const log = t.logs.join('\n');
      expect(t.logs.length).toBeGreaterThan(5); // the capture works
      expect(log).toContain('listening on');
      for (const secret of [password, 'Wr0ng-passw0rd-abc', 'short-pw', key.key, jwtSecret, s.access_token, s.refresh_token, refreshed.body.refresh_token, refreshed.body.access_token])
        expect(log.includes(secret)).toBe(false);

      // the event log stores hashes only
      const events = fs.readFileSync(path.join(t.dataDir, 'events.db')).toString('latin1');
      for (const secret of [password, key.key, s.refresh_token.split('.')[1]]) expect(events.includes(secret)).toBe(false);
      expect(events).toContain('$argon2id$');
    } finally {
      await t.close();
      fs.rmSync(t.dataDir, { recursive: true, force: true });
    }
  });
});

describe('README quick start', () => {
  const doc = fs.readFileSync(path.join(__dirname, '../../docs/auth.md'), 'utf8');
  const script = /```bash\n(# quickstart\n[\s\S]*?)```/.exec(doc)?.[1];
  let hasTools = true;
  try {
    execFileSync('bash', ['-c', 'command -v curl && command -v jq'], { stdio: 'ignore' });
  } catch {
    hasTools = false;
  }

  (hasTools ? it : it.skip)('a newcomer signs up, gets a key and creates a node with curl, exactly as docs/auth.md shows', async () => {
    expect(script).toBeDefined();
    const t = await startTestApp();
    try {
      const out = await new Promise<string>((resolve, reject) => {
        // run asynchronously: the service answers in this process
        const { execFile } = require('node:child_process') as typeof import('node:child_process');
        execFile('bash', ['-euo', 'pipefail', '-c', script!], { env: { ...process.env, STRATA_URL: t.url } }, (err, stdout, stderr) =>
          err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
        );
      });
      const node = JSON.parse(out);
      expect(node).toMatchObject({ label: 'Event sourcing', node_type: 'Concept', version: 1 });
    } finally {
      await t.close();
    }
  });
});
