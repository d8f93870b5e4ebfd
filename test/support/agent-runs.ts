import { eventually } from '@strata/domain/testing/eventually';
import { Api, api, signUp } from './http';

/** The run once it has ended (completed, failed or cancelled), read from its session over HTTP. */
export async function runEnded(a: Api, sid: string, runId: string) {
  return eventually(async () => {
    const s = (await a.get(`/v1/agents/sessions/${sid}`)).body;
    const run = s.current_run?.id === runId ? s.current_run : s.last_run?.id === runId ? s.last_run : null;
    return run && ['completed', 'failed', 'cancelled'].includes(run.status) ? run : null;
  }, { what: `run ${runId} ended` });
}

/** A new owner on the Pro plan (managed agents), calling with their access token. */
export async function proOwner(url: string): Promise<Api> {
  const s = await signUp(url);
  expect((await api(url, s.access_token).post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
  return api(url, s.access_token);
}

/** The types of a session's events, oldest first. */
export async function sessionEventTypes(a: Api, sid: string): Promise<string[]> {
  return (await a.get(`/v1/agents/sessions/${sid}/events?limit=1000`)).body.items.map((e: { type: string }) => e.type);
}
