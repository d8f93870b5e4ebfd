import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { startTestApp, TestApp } from '../support/test-app';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.warn(`docs-page.e2e: skipped, no browser at ${CHROMIUM} (apt-get install chromium)`);
const itWithBrowser = hasChromium ? it : it.skip;

/** /docs in a real (headless) browser: Swagger UI loads /openapi.json and renders the operations. */
describe('GET /docs in a browser', () => {
  let t: TestApp;
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (!hasChromium) return;
    t = await startTestApp();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  itWithBrowser('renders the operations list, with a known route, and can be captured', async () => {
    const page = await browser!.newPage();
    const failed: string[] = [];
    page.on('requestfailed', (r) => failed.push(r.url()));
    await page.goto(`${t.url}/docs`);
    // Swagger UI parses the whole document (200 operations) before it draws one: 20 s measured
    // on a shared machine at load 17
    await page.waitForSelector('.opblock', { timeout: 90_000 });
    expect(await page.title()).toBe('Strata API');
    const paths = await page.locator('.opblock-summary-path').allTextContents();
    expect(paths.map((p) => p.replace(/\u200b/g, '').trim())).toEqual(expect.arrayContaining(['/node', '/search']));
    expect(failed).toEqual([]);
    const shot = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'strata-docs-')), 'docs.png');
    try {
      await page.screenshot({ path: shot, fullPage: false });
      const png = fs.readFileSync(shot);
      expect(png.length).toBeGreaterThan(0);
      expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    } finally {
      fs.rmSync(path.dirname(shot), { recursive: true, force: true });
    }
  }, 120_000);
});
