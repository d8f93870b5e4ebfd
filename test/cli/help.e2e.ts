import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { BUILD_TIMEOUT, ensureCliBuilt, runCli } from './cli-runner';

beforeAll(() => ensureCliBuilt(), BUILD_TIMEOUT);

const COMMANDS = [
  [],
  ['projections'],
  ['projections', 'status'],
  ['projections', 'rebuild'],
  ['projections', 'verify'],
  ['audit'],
  ['audit', 'replay'],
  ['events'],
  ['events', 'tail'],
  ['export'],
  ['import'],
  ['admin'],
  ['admin', 'create-owner'],
];

describe('strata --help', () => {
  it.each(COMMANDS.map((c) => [c.join(' ') || '(root)', c]))('%s explains itself and exits 0', async (_name, args) => {
    const r = await runCli([...(args as string[]), '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Usage: strata${(args as string[]).length ? ' ' + (args as string[]).join(' ') : ''} `));
    expect(r.stderr).toBe('');
  });

  it('reports an unknown command or option in one line with a non-zero exit', async () => {
    const cmd = await runCli(['projection', 'status']);
    expect(cmd.code).toBe(1);
    expect(cmd.stderr).toBe("strata: unknown command 'projection' (Did you mean projections?)\n");
    const opt = await runCli(['projections', 'status', '--jsn']);
    expect(opt.code).toBe(1);
    expect(opt.stderr).toBe("strata: unknown option '--jsn' (Did you mean --json?)\n");
    // a bad value is quoted as given, line breaks included: still one line
    const choice = await runCli(['audit', 'replay', '--org', 'o', '--format', 'x\ny']);
    expect(choice.code).toBe(1);
    expect(choice.stderr).toBe("strata: option '--format <format>' argument 'x y' is invalid. Allowed choices are table, jsonl.\n");
  });

  it('prints its version', async () => {
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it('runs as the `strata` bin (bin/strata.js) once dist/ is built', () => {
    const root = path.resolve(__dirname, '..', '..');
    const r = spawnSync(process.execPath, [path.join(root, 'bin', 'strata.js'), 'projections', '--help'], { cwd: root, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Usage: strata projections /);
  }, BUILD_TIMEOUT); // the bin rebuilds first when sources changed since beforeAll
});
