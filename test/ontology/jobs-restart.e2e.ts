import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { RecordedChatRequest, ScriptedChatReply, ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { eventually } from '@strata/domain/testing/eventually';
import { at } from '@strata/domain/testing/fixed-time';
import { FixedClock } from '@strata/domain/time';
import { Api, api } from '../support/http';
import { startTestApp } from '../support/test-app';
import { clientServices, ok, world } from './ontology-fixture';

const KEY = 'sk-ontology-restart-SECRET';
const PEOPLE = ['Ada Lovelace', 'Grace Hopper'];

const named = (names: string[]): ScriptedChatReply => ({ type: 'json', value: { entities: names.map((text) => ({ text, category: 'person' })) }, usage: { input: 10, output: 5 } });
/** The scripted model names the people of the text it reads. */
const people = (req: RecordedChatRequest) => named(PEOPLE.filter((p) => JSON.stringify(req.body).includes(p)));

/**
 * The ontology's jobs run on the durable runner (REFERENCE §9.4 records are its jobs): an
 * extraction whose process died holding it is taken up by the next process once the lease
 * lapses, and goes on from its checkpoint: the source already read is not sent to the model again.
 */
describe('ontology extraction across a crash', () => {
  let llm: ScriptedOpenAIChatServer;
  beforeAll(async () => {
    llm = await ScriptedOpenAIChatServer.start({ apiKey: KEY, defaultReply: people });
  });
  afterAll(() => llm.close());

  const env = () => ({ STRATA_LLM_PROVIDER: 'openai', STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: KEY, STRATA_LLM_MODEL: 'scripted' });
  const job = (k: Api, id: string) => k.get(`/jobs/${id}`).then((r) => r.body);

  it('takes up the extraction of a process that died holding it, from the source it had reached', async () => {
    const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
    const first = await startTestApp({ clock, env: env() });
    const dataDir = first.dataDir;
    try {
      const w = await world(first.url);
      const s = await clientServices(w.k);
      const sources = [];
      for (const [i, who] of PEOPLE.entries())
        sources.push(ok(await w.k.post('/node', { node_type: 'Chunk', label: `notes ${i}`, props: { content: `${who} reviewed the renewal.`, chunk_type: 'text', chunk_index: i } }), 201).uid);
      const asked = llm.requests.length;
      // the first source is answered; the model never answers the second
      llm.enqueue(named([PEOPLE[0]]), { type: 'hang' });
      const { job_id } = ok(await w.k.post('/ontology/extract', { ontology_schema_id: s.schema.id, source_uids: sources }), 202);
      await eventually(async () => (await job(w.k, job_id)).progress?.processed_chunks === 1 && llm.requests.length === asked + 2, { what: 'the first source read', timeoutMs: 60_000 });
      expect(await job(w.k, job_id)).toMatchObject({ kind: 'ontology_extract', status: 'processing', title: 'ontology extraction into Client services', progress: { total_chunks: 2 } });
      await first.close({ keepData: true });
      // what a killed process leaves behind: the job still running, under a lease nobody renews
      const ops = new Database(path.join(dataDir, 'ops.db'));
      ops.prepare("UPDATE queued_jobs SET status = 'running', owner = 'a-dead-process', lease_until = ? WHERE id = ?").run(clock.now() + 60, job_id);
      ops.close();

      const second = await startTestApp({ clock, env: env(), dataDir });
      try {
        const k = api(second.url, w.key);
        expect(await job(k, job_id)).toMatchObject({ status: 'processing', progress: { total_chunks: 2, processed_chunks: 1 } });
        const resumedFrom = llm.requests.length;
        clock.advance(61); // the dead process's lease lapses: this one's runner claims the job
        const done = await eventually(async () => ((await job(k, job_id)).status === 'completed' ? job(k, job_id) : null), { what: 'the job taken up' });
        expect(done).toMatchObject({ progress: { total_chunks: 2, processed_chunks: 2 }, result: { proposals_created: 2 } });
        // only the second source went to the model again
        expect(llm.requests.slice(resumedFrom).map((r) => JSON.stringify(r.body).includes(PEOPLE[1]))).toEqual([true]);
        const proposals = ok(await k.get(`/v1/ontology/proposals?extract_job_id=${job_id}`), 200).items;
        expect(proposals.map((p: { changes_json: { adds: { canonical_name: string }[] } }) => p.changes_json.adds[0]?.canonical_name).sort()).toEqual(PEOPLE);
        expect((await k.get('/jobs')).body.items.filter((j: { id: string }) => j.id === job_id)).toHaveLength(1);
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
