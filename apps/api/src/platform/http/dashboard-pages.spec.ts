import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DASHBOARD_CSP, loadDashboard } from './dashboard-pages';

describe('loadDashboard', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-dash-unit-'));
    fs.writeFileSync(path.join(dir, 'index.html'), '<link href="{{ASSETS}}app.css"><script type="module" src="{{ASSETS}}main.js"></script>');
    fs.writeFileSync(path.join(dir, 'main.js'), 'import "./areas/a.js";');
    fs.mkdirSync(path.join(dir, 'areas'));
    fs.writeFileSync(path.join(dir, 'areas', 'a.js'), 'export const a = 1;');
    fs.writeFileSync(path.join(dir, 'app.css'), 'body{}');
    fs.writeFileSync(path.join(dir, 'main.js.map'), '{}');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is null where nothing was built', () => {
    expect(loadDashboard(path.join(dir, 'nowhere'))).toBeNull();
  });

  it('names every asset under one build hash, with its type; the page points at them', () => {
    const b = loadDashboard(dir)!;
    expect(b.build).toMatch(/^[0-9a-f]{16}$/);
    expect([...b.files.keys()].sort()).toEqual(['app.css', 'areas/a.js', 'main.js']);
    expect(b.files.get('areas/a.js')!.type).toBe('text/javascript; charset=utf-8');
    expect(b.index).toBe(`<link href="/app/assets/${b.build}/app.css"><script type="module" src="/app/assets/${b.build}/main.js"></script>`);
  });

  it('a change to any file is a new build (so cached assets never mix versions)', () => {
    const before = loadDashboard(dir)!.build;
    expect(loadDashboard(dir)!.build).toBe(before);
    fs.writeFileSync(path.join(dir, 'areas', 'a.js'), 'export const a = 2;');
    expect(loadDashboard(dir)!.build).not.toBe(before);
  });

  it('the policy allows nothing inline and nothing from elsewhere', () => {
    expect(DASHBOARD_CSP).not.toMatch(/unsafe|\*|https?:/);
    expect(DASHBOARD_CSP).toContain("default-src 'none'");
  });
});
