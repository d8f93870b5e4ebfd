import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { FixedClock } from '@strata/domain/time';
import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { api, request, signUp, type SignedUp } from '../support/http';
import { startTestApp, TestApp } from '../support/test-app';
import { startToolServer, type ToolServer } from '../mcp/support/tool-server';
import { buildDashboardInto, hasChromium, launch, screenshotDir, signInThroughPage, watch } from './dashboard-browser';
import { at } from '@strata/domain/testing/fixed-time';
import { eventually } from '@strata/domain/testing/eventually';

if (!hasChromium) console.warn('dashboard-agents.e2e: browser flows skipped, no browser at /usr/bin/chromium (apt-get install chromium)');
const itWithBrowser = hasChromium ? it : it.skip;
jest.setTimeout(120_000);

/**
 * Managed agents in a real browser against the real service, the model a local scripted
 * server speaking the OpenAI protocol: create an agent, start a session and watch its events
 * arrive on the live stream, send a message, interrupt a run that hangs, and a refusal's message;
 * the organization's activity over the WebSocket, an agent's question answered and its MCP tool
 * call allowed from the review queue, and agent schedules.
 */
describe('the dashboard’s managed agents', () => {
  let t: TestApp;
  let llm: ScriptedOpenAIChatServer;
  let dashboardDir: string;
  let browser: Browser | undefined;
  let page: Page;
  let problems: string[];
  let owner: SignedUp;
  let tools: ToolServer;
  const shots = screenshotDir();
  const shot = async (name: string) => {
    const file = path.join(shots, `${name}.png`);
    await page.screenshot({ path: file, fullPage: false });
    expect(fs.readFileSync(file).subarray(1, 4).toString('latin1')).toBe('PNG');
  };

  beforeAll(async () => {
    dashboardDir = buildDashboardInto();
    llm = await ScriptedOpenAIChatServer.start({ apiKey: 'test' });
    tools = await startToolServer({ tools: [{ name: 'add', description: 'Adds two numbers.', readOnly: true }] });
    t = await startTestApp({
      clock: new FixedClock(at('2030-01-15T12:00:00Z')),
      dashboardDir,
      env: { STRATA_LLM_PROVIDER: 'openai', STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: 'test', STRATA_LLM_MODEL: 'scripted', STRATA_MCP_ALLOW_PRIVATE: 'true' },
    });
    owner = await signUp(t.url, { password: 'owner password 2', org: 'Agents Inc' });
    expect((await api(t.url, owner.access_token).post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
    if (!hasChromium) return;
    browser = await launch();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    problems = watch(page);
    await signInThroughPage(page, t.url, owner.email, owner.password);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await llm?.close();
    await tools?.close();
    fs.rmSync(dashboardDir, { recursive: true, force: true });
  });
  afterEach(() => {
    if (problems) expect(problems.splice(0)).toEqual([]);
  });

  itWithBrowser('creates an agent, starts a session, watches the stream, sends a message, interrupts a run', async () => {
    const a = api(t.url, owner.access_token);
    await page.getByRole('link', { name: 'Agents', exact: true }).click();
    await page.getByRole('heading', { name: 'New agent' }).waitFor();
    await page.getByLabel('Name').fill('Scout');
    await page.getByLabel('Template', { exact: true }).selectOption('researcher');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('heading', { name: /^Scout/, level: 1 }).waitFor();
    const agentId = page.url().split('/').pop()!;
    expect((await a.get(`/v1/agents/${agentId}`)).body).toMatchObject({ name: 'Scout', template_type: 'researcher', status: 'active' });

    llm.enqueue({ type: 'text', text: 'Hello from the scripted model.' });
    await page.getByLabel('Title (optional)').fill('First contact');
    await page.getByLabel('First message (optional)').fill('Say hello');
    await page.getByRole('button', { name: 'Start session' }).click();
    await page.waitForURL(/\/app\/agents\/sessions\/[^/]+$/);
    const sid = page.url().split('/').pop()!;
    const events = page.locator('ol.events > li');
    await page.locator('li.event-message-assistant', { hasText: 'Hello from the scripted model.' }).waitFor();
    await page.locator('li.event-run-completed').waitFor();
    await page.locator('#session-status', { hasText: 'idle' }).waitFor();
    await page.locator('#stream-state', { hasText: 'live' }).waitFor();
    const shown = await events.evaluateAll((els) => els.map((e) => e.getAttribute('data-seq')));
    const logged = (await a.get(`/v1/agents/sessions/${sid}/events?limit=1000`)).body.items as { seq: number; type: string }[];
    expect(shown).toEqual(logged.map((e) => String(e.seq)));
    await shot('agent-session');

    // a second message on the open stream
    llm.enqueue({ type: 'text', text: 'Second answer.' });
    await page.getByRole('textbox', { name: 'Message' }).fill('Once more');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('li.event-message-assistant', { hasText: 'Second answer.' }).waitFor();
    await page.locator('li.event-message-user', { hasText: 'Once more' }).waitFor();

    // a run that hangs, interrupted from the page
    llm.enqueue({ type: 'hang' });
    await page.getByRole('textbox', { name: 'Message' }).fill('take your time');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('li.event-run-started').nth(2).waitFor();
    await page.getByRole('button', { name: 'Interrupt' }).click();
    await page.locator('li.event-run-cancelled', { hasText: 'interrupted' }).waitFor();
    await page.getByText('Interrupted.').waitFor();
    await page.locator('#session-status', { hasText: 'idle' }).waitFor();
    expect((await a.get(`/v1/agents/sessions/${sid}`)).body).toMatchObject({ status: 'idle', last_run: { status: 'cancelled' } });

    // a refusal shows the server's message: the agent was paused elsewhere
    expect((await a.patch(`/v1/agents/${agentId}`, { paused: true })).status).toBe(200);
    await page.getByRole('textbox', { name: 'Message' }).fill('are you there?');
    await page.getByRole('button', { name: 'Send' }).click();
    const refused = await request(t.url, 'POST', `/v1/agents/sessions/${sid}/message`, { token: owner.access_token, body: { content: 'x' } });
    expect(refused.status).toBe(409);
    await page.getByRole('alert').filter({ hasText: refused.body.error }).waitFor();

    await page.getByRole('navigation').getByRole('link', { name: 'Agents', exact: true }).click();
    await page.getByRole('link', { name: 'Scout' }).waitFor();
    await shot('agents');
  });

  itWithBrowser('streams the activity live, answers an agent’s question and allows its tool call from the review queue, and manages schedules', async () => {
    const a = api(t.url, owner.access_token);
    // an agent that asks, then calls an MCP tool that always waits for a person
    const connection = (await a.post('/v1/mcp/connections', { name: 'Calc', url: tools.url, auth: { type: 'none' }, approval_mode: 'always' })).body;
    const add = ((await a.get(`/v1/mcp/registry?connection_id=${connection.id}`)).body.tools as { name: string; model_name: string; affordance_uid: string }[]).find((x) => x.name === 'add')!;
    const agent = (await a.post('/v1/agents', { name: 'Gatekeeper', tools: ['ask_user'] })).body;
    expect((await a.put(`/v1/agents/${agent.id}/tool-grants/${add.affordance_uid}`, {})).status).toBe(201);

    await page.getByRole('link', { name: 'Activity', exact: true }).click();
    await page.locator('#activity-state', { hasText: 'live' }).waitFor();
    llm.enqueue(
      { type: 'tool_calls', calls: [{ id: 'ask1', name: 'ask_user', arguments: { question: 'Which numbers?', options: ['2 and 3', '4 and 5'] } }] },
      { type: 'tool_calls', calls: [{ id: 'add1', name: add.model_name, arguments: { a: 2, b: 3 } }] },
      { type: 'text', text: 'It is 5.' },
    );
    const created = (await a.post('/v1/agents/sessions', { agent_id: agent.id, title: 'Sums', message: 'add two numbers' })).body;
    // items arrive over the socket while the page is open
    await page.locator('li.activity-input-requested').waitFor();
    await page.locator('li.activity-session-created', { hasText: 'Gatekeeper' }).first().waitFor();
    const listed = (await a.get(`/v1/agents/activity?agent_id=${agent.id}&limit=100`)).body.items as { seq: number }[];
    for (const i of listed) await page.locator(`li.activity[data-seq="${i.seq}"]`).waitFor();
    await shot('activity');

    await page.getByRole('link', { name: 'Review queue' }).click();
    const question = page.locator(`li.question[data-session="${created.id}"]`);
    await question.locator('strong', { hasText: 'Which numbers?' }).waitFor();
    await question.getByRole('button', { name: '2 and 3' }).click();
    await question.getByRole('button', { name: 'Answer' }).click();
    await page.getByText('No agent is waiting for an answer.').waitFor();
    // the run goes on and its tool call waits for a person: the queue shows it once reopened
    const approval = await eventually(async () => (await a.get(`/v1/mcp/approvals?session_id=${created.id}&status=pending`)).body.items[0] ?? null, { what: 'a pending tool-call approval' });
    await page.getByRole('link', { name: 'Review queue' }).click();
    const call = page.locator(`li.approval[data-id="${approval.id}"]`);
    await call.getByText('Calc · add').waitFor();
    await shot('review-agents');
    await call.getByRole('button', { name: 'Allow' }).click();
    await page.getByText('No tool call is waiting.').waitFor();
    const ended = await eventually(async () => {
      const s = (await a.get(`/v1/agents/sessions/${created.id}`)).body;
      return s.last_run?.status === 'completed' ? s : null;
    }, { what: 'the run completed' });
    expect(ended.status).toBe('idle');
    const results = (await a.get(`/v1/agents/sessions/${created.id}/events?types=tool.result&limit=100`)).body.items as { data: { name: string; status: string } }[];
    expect(results.map((r) => [r.data.name, r.data.status])).toEqual([['ask_user', 'ok'], [add.model_name, 'ok']]);

    // schedules: create, change, delete
    await page.getByRole('link', { name: 'Agent schedules' }).click();
    const form = page.locator('form', { has: page.getByRole('heading', { name: 'New schedule' }) });
    await form.getByLabel('Agent').selectOption(agent.id);
    await form.getByLabel('Name').fill('Morning sums');
    await form.getByLabel(/^Cron/).fill('0 7 * * 1-5');
    await form.getByLabel('Time zone (IANA)').fill('Europe/Paris');
    await form.getByLabel('Message').fill('Add the numbers of {{date}}');
    expect(await page.evaluate<string[]>(`[...document.querySelectorAll('input:not([type=hidden]), select, textarea')].filter((c) => !(c.labels && c.labels.length) && !c.getAttribute('aria-label')).map((c) => c.outerHTML.slice(0, 120))`)).toEqual([]);
    await form.getByRole('button', { name: 'Create schedule' }).click();
    const item = page.locator('li.schedule', { hasText: 'Morning sums' });
    await item.waitFor();
    const [schedule] = (await a.get(`/v1/agents/schedules?agent_id=${agent.id}`)).body.items;
    expect(schedule).toMatchObject({ name: 'Morning sums', cron: '0 7 * * 1-5', timezone: 'Europe/Paris', message_template: 'Add the numbers of {{date}}', enabled: true });
    await item.locator('summary', { hasText: 'Change Morning sums' }).click();
    await item.getByLabel('Enabled').uncheck();
    await item.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('li.schedule', { hasText: 'Morning sums' }).locator('.pill', { hasText: 'disabled' }).waitFor();
    expect((await a.get(`/v1/agents/schedules?agent_id=${agent.id}`)).body.items[0]).toMatchObject({ enabled: false, next_run_at: null });
    await shot('agent-schedules');
    await page.getByRole('button', { name: 'Delete Morning sums' }).click();
    await page.getByText('No schedules yet.').waitFor();
    expect((await a.get(`/v1/agents/schedules?agent_id=${agent.id}`)).body.items).toEqual([]);
  });
});
