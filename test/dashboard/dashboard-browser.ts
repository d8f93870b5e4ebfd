import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/**
 * What the dashboard's browser tests share: the dashboard built from the sources into a
 * temporary directory (the service is started with STRATA_DASHBOARD_DIR pointing at it),
 * Debian's Chromium, and the folder screenshots are kept in: `test-results/dashboard/` (CI
 * keeps it as an artifact), or STRATA_DASHBOARD_SCREENSHOTS (docs/dashboard/ holds a committed set).
 */
export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM);

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildDashboard } = require('../../scripts/build-dashboard.js') as { buildDashboard(outDir: string): string | null };

export function buildDashboardInto(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-dashboard-'));
  const problem = buildDashboard(dir);
  if (problem) throw new Error(`the dashboard does not build:\n${problem}`);
  return dir;
}

export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

export function screenshotDir(): string {
  const dir = path.resolve(process.env.STRATA_DASHBOARD_SCREENSHOTS || path.join(__dirname, '..', '..', 'test-results', 'dashboard'));
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Every page problem the test should fail on: script errors, failed requests, CSP violations, console errors. */
export function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => {
    // a page closes its event stream when the person leaves it
    if (r.failure()?.errorText === 'net::ERR_ABORTED' && /\/stream(\?|$)/.test(new URL(r.url()).pathname + new URL(r.url()).search)) return;
    problems.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`);
  });
  page.on('console', (m) => {
    // a 4xx the page shows to the person is logged by Chromium as a failed resource: not a problem
    if (m.type() === 'error' && !/Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  page.on('dialog', (d) => void d.accept());
  return problems;
}

/** Signs a person in through the sign-in page and waits for the start page. */
export async function signInThroughPage(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/app/sign-in`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Plan and usage' }).waitFor();
}

/** Where Cytoscape drew a node, in page coordinates (read from the instance its container holds). */
export function renderedAt(page: Page, uid: string): Promise<[number, number]> {
  return page.evaluate<[number, number]>(`(() => {
    const c = document.querySelector('.graph-canvas');
    const p = c._cyreg.cy.getElementById(${JSON.stringify(uid)}).renderedPosition();
    const r = c.getBoundingClientRect();
    return [r.left + p.x, r.top + p.y];
  })()`);
}
