import { eventually } from '@strata/domain/testing/eventually';
import type { Api } from './http';

/** The run once it has ended (completed, failed or cancelled), read from its session over HTTP. */
export async function runEnded(a: Api, sid: string, runId: string) {
  return eventually(async () => {
    const s = (await a.get(`/v1/agents/sessions/${sid}`)).body;
    const run = s.current_run?.id === runId ? s.current_run : s.last_run?.id === runId ? s.last_run : null;
    return run && ['completed', 'failed', 'cancelled'].includes(run.status) ? run : null;
  }, { what: `run ${runId} ended` });
}
