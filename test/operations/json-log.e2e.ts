import { api, signUpWithKey } from '../support/http';
import { startTestApp } from '../support/test-app';

describe('the JSON log', () => {
  it('writes one JSON object per line, one line per request with id, principal kind, route template, status and duration, and no secret', async () => {
    const t = await startTestApp({ jsonLog: true });
    try {
      const s = await signUpWithKey(t.url);
      const planted = 'planted-secret-7f3a9c1e';
      const c = api(t.url, s.key);
      const created = await c.post('/node', { label: 'logged', node_type: 'Idea', props: { note: planted } });
      expect(created.status).toBe(201);
      expect((await c.get(`/node/${created.body.uid}`)).status).toBe(200);
      await fetch(`${t.url}/node/${created.body.uid}?token=${planted}`, { headers: { authorization: `Bearer ${planted}`, 'x-request-id': 'trace-me-1' } });
      await t.close();

      const lines = t.jsonLines.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.length).toBeGreaterThan(3);
      const requests = lines.filter((l) => l.msg === 'request');
      const read = requests.find((l) => l.route === '/node/:uid' && l.status === 200)!;
      expect(read).toMatchObject({ method: 'GET', principal: 'api_key', level: 30 });
      expect(typeof read.request_id).toBe('string');
      expect(typeof read.duration_ms).toBe('number');
      const refused = requests.find((l) => l.request_id === 'trace-me-1')!;
      expect(refused).toMatchObject({ route: '/node/:uid', status: 401, principal: 'anonymous' });
      expect(lines.some((l) => typeof l.context === 'string')).toBe(true); // the service's own lines are JSON too
      const text = t.jsonLines.join('\n');
      for (const secret of [planted, s.key, s.password, s.access_token, s.refresh_token]) expect(text).not.toContain(secret);
      expect(text).not.toContain(created.body.uid);
    } finally {
      await t.close();
    }
  });
});
