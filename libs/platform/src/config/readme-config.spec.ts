import * as fs from 'node:fs';
import * as path from 'node:path';
import { CONFIG_DOC } from './strata-config';

/** The README's configuration table is CONFIG_DOC, row for row (`npm run docs:config` rewrites it). */
describe('README configuration table', () => {
  it('lists every variable the service reads, as CONFIG_DOC describes it', () => {
    const readme = fs.readFileSync(path.join(__dirname, '../../../../README.md'), 'utf8');
    for (const d of CONFIG_DOC) expect(readme).toContain(`| \`${d.name}\` | ${d.default} | ${d.description} |`);
  });
});
