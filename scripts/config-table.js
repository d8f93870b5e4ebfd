// Rewrites the README's configuration table from CONFIG_DOC (the built service's): `npm run docs:config`.
const fs = require('node:fs');
const path = require('node:path');
const { CONFIG_DOC } = require('../dist/libs/platform/src/config/strata-config.js');

const file = path.join(__dirname, '..', 'README.md');
const lines = fs.readFileSync(file, 'utf8').split('\n');
const start = lines.findIndex((l) => l.startsWith('| variable | default | meaning |'));
if (start < 0) throw new Error('README.md has no configuration table (a row "| variable | default | meaning |")');
let end = start + 2;
while (end < lines.length && lines[end].startsWith('|')) end++;
const rows = CONFIG_DOC.map((d) => `| \`${d.name}\` | ${d.default} | ${d.description} |`);
lines.splice(start + 2, end - start - 2, ...rows);
fs.writeFileSync(file, lines.join('\n'));
console.log(`README.md: ${rows.length} configuration rows`);
