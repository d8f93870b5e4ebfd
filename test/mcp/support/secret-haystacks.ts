import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Api } from '../../support/http';

/**
 * Everything a secret could leak into, named: the responses the test saw, the service's log
 * lines, the organization's export and every file of the data dir (the event log included).
 */
export async function secretHaystacks(o: Api, t: { logs: string[]; dataDir: string }, responses: string[]): Promise<[string, string][]> {
  const exp = await o.get('/export');
  if (exp.status !== 200) throw new Error(`export answered ${exp.status}`);
  const haystacks: [string, string][] = [
    ['responses', responses.join('\n')],
    ['logs', t.logs.join('\n')],
    ['export', exp.text],
  ];
  for (const file of fs.readdirSync(t.dataDir)) {
    const p = path.join(t.dataDir, file);
    if (fs.statSync(p).isFile()) haystacks.push([file, fs.readFileSync(p).toString('latin1')]);
  }
  if (!haystacks.some(([name]) => name === 'events.db')) throw new Error('the event log was not read');
  return haystacks;
}
