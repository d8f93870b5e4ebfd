import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BUILD_TIMEOUT, ensureCliBuilt, runCli } from './cli-runner';

beforeAll(() => ensureCliBuilt(), BUILD_TIMEOUT);

const ORG = '6d0c2a5e-0000-4000-8000-00000000abcd';

/** Every command that works on an existing installation (create-owner may start one). */
const COMMANDS: [string, string[], string][] = [
  ['projections status', ['projections', 'status'], ''],
  ['projections rebuild', ['projections', 'rebuild'], ''],
  ['projections verify', ['projections', 'verify'], ''],
  ['audit replay', ['audit', 'replay', '--org', ORG], ''],
  ['events tail', ['events', 'tail'], ''],
  ['export', ['export', '--org', ORG], ''],
  ['import', ['import', '--org', ORG], '{"format":"strata.graph","format_version":1}'],
];

describe('a --data-dir without an event log (a typo)', () => {
  let root: string;
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-cli-datadir-'));
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it.each(COMMANDS)('%s fails in one line and writes nothing, whether the directory exists or not', async (_name, args, input) => {
    const missing = path.join(root, 'typo');
    const empty = fs.mkdtempSync(path.join(root, 'empty-'));
    for (const dir of [missing, empty]) {
      const r = await runCli([...args, '--data-dir', dir], { input, timeoutMs: 30_000 });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`strata: no event log at ${path.join(dir, 'events.db')}: pass --data-dir (or set STRATA_DATA_DIR) to the service's data directory\n`);
      expect(r.stdout).toBe('');
    }
    expect(fs.existsSync(missing)).toBe(false);
    expect(fs.readdirSync(empty)).toEqual([]);
  });
});
