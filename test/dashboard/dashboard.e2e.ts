import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { api, login, request, signUp, uniqueEmail } from '../support/http';
import { startTestApp, TestApp } from '../support/test-app';
import { clientServices, ok } from '../ontology/ontology-fixture';
import { buildDashboardInto, hasChromium, launch, renderedAt, screenshotDir, watch } from './dashboard-browser';
import { at } from '@strata/domain/testing/fixed-time';

if (!hasChromium) console.warn('dashboard.e2e: browser flows skipped, no browser at /usr/bin/chromium (apt-get install chromium)');
const itWithBrowser = hasChromium ? it : it.skip;
// a browser flow drives several pages and a background job
jest.setTimeout(90_000);

const DOC = [
  'Ada Lovelace worked with Charles Babbage in London on the Analytical Engine.',
  '',
  'Ada Lovelace wrote the first published program. Charles Babbage designed the Difference Engine.',
].join('\n');

/**
 * The dashboard in a real browser against the real service (a temporary data dir, the
 * offline language model so ingestion and ontology extraction run without a network): sign
 * up, keys, ingestion with live progress and highlighted quotes, search, the node page and its
 * neighborhood, paths, the review queue, Spaces and grants, and what a member does not see.
 */
describe('the dashboard at /app', () => {
  let t: TestApp;
  let dashboardDir: string;
  let browser: Browser | undefined;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  const shots = screenshotDir();
  const owner = { email: uniqueEmail('owner'), password: 'correct horse battery staple' };
  let ownerKey = '';

  const shot = async (name: string) => {
    const file = path.join(shots, `${name}.png`);
    await page.screenshot({ path: file, fullPage: false });
    expect(fs.readFileSync(file).subarray(1, 4).toString('latin1')).toBe('PNG');
  };
  const go = (p: string) => page.goto(`${t.url}/app${p}`);
  /** every form control on the page has an accessible name (label, aria-label or aria-labelledby) */
  const unlabelled = () =>
    page.evaluate<string[]>(`[...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
      .filter((c) => !(c.labels && c.labels.length) && !c.getAttribute('aria-label') && !c.getAttribute('aria-labelledby'))
      .map((c) => c.outerHTML.slice(0, 120))`);

  const clock = new FixedClock(at('2030-01-15T00:00:00Z'));
  beforeAll(async () => {
    dashboardDir = buildDashboardInto();
    t = await startTestApp({ clock, env: { STRATA_LLM_PROVIDER: 'offline' }, dashboardDir });
    if (!hasChromium) return;
    browser = await launch();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    problems = watch(page);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    fs.rmSync(dashboardDir, { recursive: true, force: true });
  });
  afterEach(() => {
    if (problems) expect(problems.splice(0)).toEqual([]);
  });

  it('is served same-origin with a strict CSP: the page revalidates, assets are immutable under their build, deep links get the page', async () => {
    const pageRes = await request(t.url, 'GET', '/app');
    expect(pageRes.status).toBe(200);
    expect(pageRes.headers.get('content-type')).toMatch(/^text\/html/);
    expect(pageRes.headers.get('cache-control')).toBe('no-cache');
    const csp = pageRes.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(pageRes.headers.get('x-content-type-options')).toBe('nosniff');
    const assets = [...pageRes.text.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets.length).toBe(3);
    for (const a of assets) {
      const r = await request(t.url, 'GET', a);
      expect(r.status).toBe(200);
      expect(r.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    }
    const js = assets.find((a) => a.endsWith('main.js'))!;
    expect((await request(t.url, 'GET', js)).headers.get('content-type')).toMatch(/^text\/javascript/);
    // another build's asset, a module's unit test and a path outside the build are not served
    expect((await request(t.url, 'GET', js.replace(/assets\/[0-9a-f]+\//, 'assets/0000000000000000/'))).status).toBe(404);
    expect((await request(t.url, 'GET', js.replace('main.js', 'diff.spec.js'))).status).toBe(404);
    expect((await request(t.url, 'GET', js.replace('main.js', '../../../package.json'))).status).toBe(404);
    const deep = await request(t.url, 'GET', '/app/nodes/some-node');
    expect(deep.status).toBe(200);
    expect(deep.text).toBe(pageRes.text);
    const etag = pageRes.headers.get('etag')!;
    expect((await request(t.url, 'GET', '/app', { headers: { 'if-none-match': etag } })).status).toBe(304);
    // the start page links to it
    expect((await request(t.url, 'GET', '/')).text).toContain('href="/app"');
  });

  itWithBrowser('signs up, shows plan and usage, and stays signed in across a reload (refresh token)', async () => {
    await go('/');
    await page.waitForURL(/\/app\/sign-in$/);
    await page.getByRole('link', { name: 'Create one' }).click();
    await page.getByLabel('E-mail').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByLabel('Organization name (optional)').fill('Analytical Engines');
    expect(await unlabelled()).toEqual([]);
    await shot('sign-up');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Plan and usage' }).waitFor();
    await page.getByRole('heading', { name: 'Free plan' }).waitFor();
    expect(await page.locator('#org-switch').inputValue()).toBeTruthy();
    await expect(page.locator('#org-switch option').first().textContent()).resolves.toContain('Analytical Engines (owner)');
    await shot('plan-and-usage');
    // the access token lives in memory only: a reload signs in again with the refresh token
    await page.reload();
    await page.getByRole('heading', { name: 'Plan and usage' }).waitFor();
    await expect(page.locator('.email').textContent()).resolves.toBe(owner.email);
    // once the access token has expired, the next call is refused, refreshed and retried
    const refreshes: number[] = [];
    page.on('response', (r) => r.url().endsWith('/v1/auth/refresh') && refreshes.push(r.status()));
    clock.advance(t.config.accessTokenTtl + 60);
    await page.getByRole('link', { name: 'Members and organizations' }).click();
    await page.getByRole('heading', { name: 'Members' }).waitFor();
    expect(refreshes).toEqual([200]);
  });

  itWithBrowser('shows the server’s message when sign-in fails', async () => {
    const other = await browser!.newContext();
    const p = await other.newPage();
    await p.goto(`${t.url}/app/sign-in`);
    await p.getByLabel('E-mail').fill(owner.email);
    await p.getByLabel('Password').fill('not the password');
    await p.getByRole('button', { name: 'Sign in' }).click();
    const alert = p.getByRole('alert');
    await alert.waitFor();
    const server = await request(t.url, 'POST', '/v1/auth/login', { body: { email: owner.email, password: 'not the password' } });
    expect(server.body).toEqual({ error: 'invalid email or password', code: 'invalid_field' });
    await expect(alert.textContent()).resolves.toBe(server.body.error);
    await other.close();
  });

  itWithBrowser('creates a scoped key (shown once), lists its activity, rotates and revokes it', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await page.getByLabel('Name').fill('ingest bot');
    await page.getByLabel('write').check();
    expect(await unlabelled()).toEqual([]);
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = page.locator('#new-key-secret');
    await secret.waitFor();
    ownerKey = await secret.inputValue();
    expect(ownerKey).toMatch(/^strata_/);
    await shot('api-keys');
    // the key works, and its request shows in the activity
    expect((await request(t.url, 'GET', '/stats', { token: ownerKey })).status).toBe(200);
    await page.getByRole('button', { name: 'Activity of ingest bot' }).click();
    await page.locator('#key-activity').getByText('GET /stats → 200').waitFor();
    await page.locator('#key-activity').getByText('created').first().waitFor();

    // a second key to rotate and revoke
    await page.getByLabel('Name').fill('temporary');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('Key “temporary” created').waitFor();
    const first = await page.locator('#new-key-secret').inputValue();
    await page.getByRole('button', { name: 'Rotate temporary' }).first().click();
    await page.getByText(/Key “temporary” rotated/).waitFor();
    const rotated = await page.locator('#new-key-secret').inputValue();
    expect(rotated).not.toBe(first);
    expect((await request(t.url, 'GET', '/stats', { token: rotated })).status).toBe(200);
    // revoke the replacement: refused at once
    const rows = page.locator('tr', { has: page.getByText('temporary', { exact: true }) });
    await expect(rows.count()).resolves.toBe(2);
    // the replacement's row: the one whose prefix starts its secret
    const prefixes = await rows.locator('code').allTextContents();
    const replacement = rows.nth(prefixes.findIndex((p) => rotated.startsWith(p)));
    await replacement.getByRole('button', { name: 'Revoke temporary' }).click();
    await eventually(async () => (await request(t.url, 'GET', '/stats', { token: rotated })).status === 401, { what: 'the revoked key to be refused' });
    await page.locator('.status-revoked').first().waitFor();
  });

  itWithBrowser('ingests a pasted document, follows the job, and opens an extracted node from its highlighted quote', async () => {
    await page.getByRole('link', { name: 'Ingest a document' }).click();
    await page.getByLabel('Title (optional: the first line otherwise)').fill('Engines');
    await page.getByLabel('Paste the text').fill(DOC);
    expect(await unlabelled()).toEqual([]);
    await shot('ingest');
    await page.getByRole('button', { name: 'Ingest' }).click();
    await page.waitForURL(/\/app\/jobs\/[0-9a-f-]+$/);
    await page.locator('#job-status', { hasText: 'completed' }).waitFor({ timeout: 20_000 });
    await page.locator('article.chunk mark').first().waitFor();
    const marked = await page.locator('article.chunk mark').allTextContents();
    expect(marked).toEqual(expect.arrayContaining(['Ada Lovelace']));
    await shot('ingest-job');
    await page.locator('ul.extracted').getByRole('link', { name: 'Ada Lovelace' }).first().click();
    await page.getByRole('heading', { name: 'Ada Lovelace', level: 1 }).waitFor();
    // the node page: fields, sources with the quote, edges, history, the neighborhood drawn
    await page.getByRole('heading', { name: 'Sources' }).waitFor();
    await expect(page.locator('section', { has: page.getByRole('heading', { name: 'Sources' }) }).locator('q').first().textContent()).resolves.toContain('Ada Lovelace');
    await page.locator('.graph-list button').nth(1).waitFor();

    // a file is read by the server (here HTML): its text, not its markup, is what gets chunked and quoted
    await page.getByRole('link', { name: 'Ingest a document' }).click();
    await page.getByLabel('…or upload a file').setInputFiles({ name: 'notes.html', mimeType: 'text/html', buffer: Buffer.from('<html><body><h1>Notes</h1><p>Grace Hopper visited Paris with <b>Alan Turing</b>.</p></body></html>') });
    await page.getByRole('button', { name: 'Ingest' }).click();
    await page.waitForURL(/\/app\/jobs\/[0-9a-f-]+$/);
    await page.locator('#job-status', { hasText: 'completed' }).waitFor({ timeout: 20_000 });
    await page.getByRole('heading', { name: /notes\.html/ }).first().waitFor();
    const text = await page.locator('article.chunk .chunk-text').first().textContent();
    expect(text).toContain('Grace Hopper visited Paris with Alan Turing.');
    expect(text).not.toContain('<');
  });

  itWithBrowser('searches with filters, opens a node, expands its neighborhood by click and by keyboard', async () => {
    await page.getByRole('link', { name: 'Search' }).first().click();
    await page.getByLabel('Search for').fill('Babbage');
    await page.getByLabel('Layer').selectOption('reality');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/q=Babbage/);
    const hit = page.locator('a.node-link', { hasText: 'Charles Babbage' });
    await hit.first().waitFor();
    expect(await unlabelled()).toEqual([]);
    await shot('search');
    // the filter is applied by the server: an intent-layer search finds nothing
    await page.getByLabel('Layer').selectOption('intent');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('Nothing matches.').waitFor();
    // hybrid ranking (full text and the built-in embedder) finds the same person
    await page.getByLabel('Layer').selectOption('');
    await page.getByLabel('Mode').selectOption('hybrid');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/mode=hybrid/);
    await hit.first().waitFor();
    await page.goBack();
    await page.goBack();
    await hit.first().click();
    await page.getByRole('heading', { name: 'Charles Babbage', level: 1 }).waitFor();

    // the drawing is Cytoscape's canvas; the buttons listed under it name the same nodes
    const nodes = page.locator('.graph-list button');
    await nodes.nth(1).waitFor();
    await page.locator('.graph-canvas canvas').first().waitFor();
    const before = await nodes.count();
    // a chunk neighbor leads on to the document and the other people: clicking it on the canvas adds nodes
    const chunkUid = (await page.locator('.graph-list button:not(.expanded)', { hasText: /chunk/i }).first().getAttribute('data-uid'))!;
    await page.locator('.graph-canvas').scrollIntoViewIfNeeded();
    // Cytoscape maps pointer positions through the container's box, cached until the scroll
    // event (dispatched on the next frame) reaches it: let two frames pass before clicking
    await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
    await page.mouse.click(...(await renderedAt(page, chunkUid)));
    await page.locator(`.graph-list button.expanded[data-uid="${chunkUid}"]`).waitFor();
    await eventually(async () => (await nodes.count()) > before, { what: 'the clicked node to expand' });
    const afterClick = await nodes.count();
    await shot('node-neighborhood');
    // keyboard: focus an unexpanded node's button and press Enter
    const next = page.locator('.graph-list button:not(.expanded)').first();
    const uid = await next.getAttribute('data-uid');
    await next.focus();
    await page.keyboard.press('Enter');
    await page.locator(`.graph-list button.expanded[data-uid="${uid}"]`).waitFor();
    expect(await nodes.count()).toBeGreaterThanOrEqual(afterClick);
    await page.getByText('Selected:').waitFor();
  });

  itWithBrowser('shows version history with what changed, and a path between two nodes', async () => {
    const k = api(t.url, (await login(t.url, owner.email, owner.password)).access_token);
    const found = (await k.post('/search', { query: 'Charles Babbage', node_type: 'Person' })).body as { uid: string; label: string }[];
    const babbage = found.find((f) => f.label === 'Charles Babbage')!;
    ok(await k.patch(`/node/${babbage.uid}`, { summary: 'English mathematician', reason: 'from the dashboard test' }), 200);
    const ada = ((await k.post('/search', { query: 'Ada Lovelace', node_type: 'Person' })).body as { uid: string; label: string }[]).find((f) => f.label === 'Ada Lovelace')!;

    await go(`/nodes/${babbage.uid}`);
    await page.getByRole('heading', { name: /History \(2 versions\)/ }).waitFor();
    const v2 = page.locator('ol.history li').first();
    await expect(v2.locator('summary').textContent()).resolves.toContain('v2 · update');
    await expect(v2.locator('summary').textContent()).resolves.toContain('from the dashboard test');
    await expect(v2.locator('tr.diff-changed th').allTextContents()).resolves.toEqual(['summary']);
    await expect(v2.locator('tr.diff-changed td.after').textContent()).resolves.toBe('"English mathematician"');
    await page.locator('#embedding-state').waitFor();
    await v2.scrollIntoViewIfNeeded();
    await shot('node-history');

    await page.getByLabel('Path to (node uid)').fill(ada.uid);
    await page.getByRole('button', { name: 'Find path' }).click();
    await page.waitForURL(/\/app\/paths\?/);
    await page.getByRole('heading', { name: /\d+ hops? \(cost/ }).waitFor();
    const steps = await page.locator('ol.path a.node-link').allTextContents();
    expect(steps[0]).toBe('Charles Babbage');
    expect(steps[steps.length - 1]).toBe('Ada Lovelace');
    await shot('paths');
  });

  itWithBrowser('reviews ontology proposals: approve one with its name edited, reject another', async () => {
    const k = api(t.url, ownerKey);
    const s = await clientServices(k);
    const src = ok(await k.post('/node', { node_type: 'Chunk', label: 'memo · chunk 0', props: { content: 'Globex Corporation renewed with Acme Corp. Grace Hopper will lead it.', chunk_type: 'text', chunk_index: 0 } }), 201).uid;
    const job = ok(await k.post('/ontology/extract', { ontology_schema_id: s.schema.id, source_uids: [src], mode: 'propose_only' }), 202);
    await eventually(async () => ['completed', 'failed'].includes((await k.get(`/jobs/${job.job_id}`)).body.status), { what: 'the extraction job' });
    const pending = (await k.get('/v1/ontology/proposals?status=pending')).body.items as { id: string; object_type: string }[];
    // a contact needs no field, so it applies as proposed; a client needs its `code`
    const first = pending.find((p) => p.object_type === 'ClientContact')!;
    const second = pending.find((p) => p.object_type === 'Client')!;
    expect([first, second].every(Boolean)).toBe(true);

    await page.getByRole('link', { name: 'Ontology proposals' }).click();
    const card = (id: string) => page.locator(`li.proposal[data-id="${id}"]`);
    await card(first.id).waitFor();
    expect(await unlabelled()).toEqual([]);
    await shot('proposals');
    await card(first.id).getByRole('textbox', { name: /Name of proposal/ }).fill('Grace B. Hopper');
    await card(first.id).getByRole('button', { name: 'Approve' }).click();
    await card(first.id).waitFor({ state: 'detached' });
    await card(second.id).getByRole('textbox', { name: /Reason to reject/ }).fill('not a client');
    await card(second.id).getByRole('button', { name: 'Reject' }).click();
    await card(second.id).waitFor({ state: 'detached' });

    const approved = (await k.get(`/v1/ontology/proposals/${first.id}`)).body;
    expect(approved.review_status).toBe('applied');
    expect(approved.changes_json.adds[0].canonical_name).toBe('Grace B. Hopper');
    expect((await k.get(`/node/${approved.proposed_node_uid}`)).body.props.canonical_name).toBe('Grace B. Hopper');
    expect((await k.get(`/v1/ontology/proposals/${second.id}`)).body.review_status).toBe('rejected');
    // the rest, in one batch
    const rest = pending.filter((p) => p.id !== first.id && p.id !== second.id);
    for (const p of rest) await card(p.id).getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Reject selected' }).click();
    await page.getByText('Nothing to review here.').waitFor();
    for (const p of rest) expect((await k.get(`/v1/ontology/proposals/${p.id}`)).body.review_status).toBe('rejected');
    await page.getByLabel('Status').selectOption('applied');
    await card(first.id).getByText('applied').waitFor();
  });

  itWithBrowser('adds a member, creates a Space and grants the member read access', async () => {
    const member = await signUp(t.url, { password: 'member password 1' });
    await page.getByRole('link', { name: 'Members and organizations' }).click();
    await page.getByLabel('E-mail of a signed-up user').fill(member.email);
    await page.getByLabel('Role').selectOption('member');
    await page.getByRole('button', { name: 'Add member' }).click();
    await page.getByRole('cell', { name: member.email, exact: true }).waitFor();
    await shot('members');

    await page.getByRole('link', { name: 'Spaces and grants' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Research');
    await page.getByLabel('Default classification').selectOption('confidential');
    await page.getByRole('button', { name: 'Create Space' }).click();
    await page.getByRole('link', { name: 'Research' }).waitFor();
    await page.getByRole('button', { name: 'Grants of Research' }).click();
    await page.getByLabel('Principal').fill(`user:${member.user_id}`);
    await page.getByLabel('Access', { exact: true }).selectOption('read');
    await page.getByRole('button', { name: 'Grant', exact: true }).click();
    await page.getByRole('cell', { name: `user:${member.user_id}`, exact: true }).waitFor();
    expect(await unlabelled()).toEqual([]);
    await shot('spaces');
    const ownerJwt = (await login(t.url, owner.email, owner.password)).access_token;
    const spaces = (await request(t.url, 'GET', '/v1/spaces', { token: ownerJwt })).body.items as { uid: string; name: string; grant_count: number }[];
    expect(spaces.find((x) => x.name === 'Research')?.grant_count).toBe(1);

    await page.getByRole('link', { name: 'Governance settings' }).click();
    await page.getByLabel('Mode').selectOption('shadow');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    expect((await request(t.url, 'GET', '/v1/governance/settings', { token: ownerJwt })).body.mode).toBe('shadow');
  });

  itWithBrowser('a member switches to the shared organization and sees no owner-only control; the server refuses them anyway', async () => {
    const member = await signUp(t.url, { password: 'member password 2' });
    const ownerJwt = (await login(t.url, owner.email, owner.password)).access_token;
    const ownerOrg = (await request(t.url, 'GET', '/v1/account', { token: ownerJwt })).body.memberships[0].org_id as string;
    expect((await request(t.url, 'POST', `/v1/orgs/${ownerOrg}/members`, { token: ownerJwt, body: { email: member.email, role: 'member' } })).status).toBe(201);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.getByLabel('E-mail').fill(member.email);
    await page.getByLabel('Password').fill('member password 2');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Plan and usage' }).waitFor();
    // their own organization first: they own it, so its keys are theirs to manage
    await page.getByRole('link', { name: 'API keys' }).waitFor();
    await page.locator('#org-switch').selectOption(ownerOrg);
    await expect(page.locator('#org-switch').inputValue()).resolves.toBe(ownerOrg);
    await page.getByRole('heading', { name: 'Plan and usage' }).waitFor();
    await page.getByRole('link', { name: 'Search' }).first().waitFor();
    await expect(page.getByRole('link', { name: 'API keys' }).count()).resolves.toBe(0);
    await expect(page.getByRole('link', { name: 'Spaces and grants' }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Change plan' }).count()).resolves.toBe(0);
    await go('/keys');
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    const memberJwt = (await login(t.url, member.email, 'member password 2')).access_token;
    expect((await request(t.url, 'GET', '/v1/api-keys', { token: memberJwt, org: ownerOrg })).status).toBe(403);
    // the organization's graph is theirs to read
    await go('/explore?q=Lovelace');
    await page.locator('a.node-link', { hasText: 'Ada Lovelace' }).first().waitFor();
  });

  itWithBrowser('works on a phone-sized screen and from the keyboard', async () => {
    const phone = await browser!.newContext({ viewport: { width: 390, height: 844 } });
    const p = await phone.newPage();
    const pageProblems = watch(p);
    await p.goto(`${t.url}/app/sign-in`);
    await p.getByLabel('E-mail').fill(owner.email);
    await p.getByLabel('Password').fill(owner.password);
    // keyboard only: Enter submits the form
    await p.getByLabel('Password').press('Enter');
    await p.getByRole('heading', { name: 'Plan and usage' }).waitFor();
    await p.goto(`${t.url}/app/explore?q=Lovelace`);
    await p.locator('a.node-link').first().waitFor();
    expect(await p.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    const file = path.join(shots, 'phone-search.png');
    await p.screenshot({ path: file });
    // the first Tab lands on the skip link, which moves focus to the page
    await p.keyboard.press('Tab');
    await expect(p.evaluate('document.activeElement && document.activeElement.textContent')).resolves.toBe('Skip to content');
    expect(pageProblems).toEqual([]);
    await phone.close();
  });
});

describe('/app before the dashboard is built', () => {
  it('answers 404 with a page saying how to build it, under the same CSP', async () => {
    const t = await startTestApp({ dashboardDir: path.join(os.tmpdir(), 'strata-no-dashboard-here') });
    try {
      const r = await request(t.url, 'GET', '/app/keys');
      expect(r.status).toBe(404);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      expect(r.text).toContain('npm run build');
      expect(r.headers.get('content-security-policy')).toContain("default-src 'none'");
    } finally {
      await t.close();
    }
  });
});
