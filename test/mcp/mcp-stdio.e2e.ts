import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { FixedClock } from '@strata/domain/time';
import { BUILD_TIMEOUT, CLI_ENTRY, ensureCliBuilt, runCli } from '../cli/cli-runner';
import { TestApp, startTestApp } from '../support/test-app';
import { api, createApiKey, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

const CLI = path.resolve(__dirname, '..', '..', 'dist', CLI_ENTRY);

describe('strata mcp (stdio)', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    ensureCliBuilt();
    t = await startTestApp({ clock: new FixedClock(at('2030-01-01T00:00:00Z')) });
    const owner = await signUp(t.url);
    key = (await createApiKey(t.url, owner.access_token, { scopes: ['read', 'write'] })).key;
  }, BUILD_TIMEOUT);
  afterAll(() => t?.close());

  it('serves the same tools and resources to an SDK stdio client, writing only MCP to stdout', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--url', t.url],
      env: { PATH: process.env.PATH ?? '', STRATA_API_KEY: key },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d) => (stderr += d));
    const client = new Client({ name: 'stdio-e2e', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'strata' });
      expect((await client.listTools()).tools).toHaveLength(11);
      const goal = await client.callTool({ name: 'strata_commit', arguments: { action: 'goal', label: 'Relay over stdio' } });
      expect(goal.isError).toBeFalsy();
      const uid = (goal.structuredContent as { uid: string }).uid;
      expect((await api(t.url, key).get(`/node/${uid}`)).body.label).toBe('Relay over stdio');
      const read = await client.readResource({ uri: `strata://node/${uid}` });
      expect((read.contents[0] as { text: string }).text).toContain('Relay over stdio');
      await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    } finally {
      await client.close();
    }
    expect(stderr).toBe('');
  });

  it('turns a refused credential into JSON-RPC errors and exits when stdin closes', async () => {
    const r = await runCli(['mcp', '--url', t.url], {
      env: { STRATA_API_KEY: 'strata_not_a_real_key' },
      input: '{"jsonrpc":"2.0","id":7,"method":"tools/list"}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\nnot json\n',
    });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ jsonrpc: '2.0', id: 7, error: { data: { status: 401, code: 'invalid_token' } } });
    expect(lines[1]).toMatchObject({ id: null, error: { code: -32700 } });
  });

  it('needs STRATA_API_KEY: one stderr line, exit 2, nothing on stdout', async () => {
    const r = await runCli(['mcp', '--url', t.url]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('STRATA_API_KEY');
    const help = await runCli(['mcp', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: strata mcp /);
  });
});
