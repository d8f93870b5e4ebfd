import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { FixedClock } from '@strata/domain/time';
import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { api, request, signUp, type SignedUp } from '../support/http';
import { startTestApp, TestApp } from '../support/test-app';
import { buildDashboardInto, hasChromium, launch, screenshotDir, signInThroughPage, watch } from './dashboard-browser';
import { at } from '@strata/domain/testing/fixed-time';

if (!hasChromium) console.warn('dashboard-agents.e2e: browser flows skipped, no browser at /usr/bin/chromium (apt-get install chromium)');
const itWithBrowser = hasChromium ? it : it.skip;
jest.setTimeout(120_000);

/**
 * Managed agents in a real browser against the real service, the model a local scripted
 * server speaking the OpenAI protocol: create an agent, start a session and watch its events
 * arrive on the live stream, send a message, interrupt a run that hangs, and a refusal's message.
 */
describe('the dashboard’s managed agents', () => {
  let t: TestApp;
  let llm: ScriptedOpenAIChatServer;
  let dashboardDir: string;
  let browser: Browser | undefined;
  let page: Page;
  let problems: string[];
  let owner: SignedUp;
  const shots = screenshotDir();
  const shot = async (name: string) => {
    const file = path.join(shots, `${name}.png`);
    await page.screenshot({ path: file, fullPage: false });
    expect(fs.readFileSync(file).subarray(1, 4).toString('latin1')).toBe('PNG');
  };

  beforeAll(async () => {
    dashboardDir = buildDashboardInto();
    llm = await ScriptedOpenAIChatServer.start({ apiKey: 'test' });
    t = await startTestApp({
      clock: new FixedClock(at('2030-01-15T12:00:00Z')),
      dashboardDir,
      env: { STRATA_LLM_PROVIDER: 'openai', STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: 'test', STRATA_LLM_MODEL: 'scripted' },
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
});
