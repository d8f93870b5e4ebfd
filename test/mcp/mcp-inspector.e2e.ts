import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FixedClock } from '@strata/domain/time';
import { at } from '@strata/domain/testing/fixed-time';
import { TestApp, startTestApp } from '../support/test-app';
import { api, createApiKey, signUp } from '../support/http';

/**
 * Strata's `POST /mcp` checked by an MCP client of another make than the SDK the server and the
 * other tests use: the MCP Inspector's CLI (`@modelcontextprotocol/inspector`, built on the v2
 * client packages), run as a child process the way a person would run it. The package declares
 * Node >= 22.19; its CLI runs on Node 20 too, so the test runs everywhere.
 */

const INSPECTOR = path.resolve(__dirname, '..', '..', 'node_modules', '.bin', 'mcp-inspector');
const ALL_TOOLS = ['strata_capture', 'strata_commit', 'strata_evolve', 'strata_get_node', 'strata_ingest', 'strata_plan', 'strata_reason', 'strata_remember', 'strata_retrieve', 'strata_traverse', 'strata_write_article'];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe("Strata's MCP endpoint under the MCP Inspector CLI", () => {
  let t: TestApp;
  let writeKey: string;
  let readKey: string;
  let home: string;
  let goalUid: string;

  beforeAll(async () => {
    t = await startTestApp({ clock: new FixedClock(at('2030-01-01T00:00:00Z')) });
    const owner = await signUp(t.url);
    writeKey = (await createApiKey(t.url, owner.access_token, { scopes: ['read', 'write'] })).key;
    readKey = (await createApiKey(t.url, owner.access_token, { scopes: ['read'] })).key;
    // the Inspector keeps a catalog under the home directory: a throwaway one
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-inspector-'));
    const goal = await api(t.url, writeKey).post('/node', { label: 'Inspector release plan', node_type: 'Goal' });
    expect(goal.status).toBe(201);
    goalUid = goal.body.uid;
  });
  afterAll(async () => {
    await t?.close();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  /** `mcp-inspector --cli <url>/mcp --transport http --header "Authorization: Bearer <key>" …`, asynchronously (the server answers in this process) */
  function inspector(key: string, args: string[]): Promise<Run> {
    const argv = ['--cli', `${t.url}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${key}`, ...args];
    return new Promise((resolve) => {
      execFile(INSPECTOR, argv, { env: { PATH: process.env.PATH ?? '', HOME: home }, timeout: 60_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0, stdout, stderr }),
      );
    });
  }

  function json(r: Run): any {
    expect({ code: r.code, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ code: 0, stderr: '' });
    return JSON.parse(r.stdout);
  }

  // legacy: initialize (2025-11-25); modern: the stateless 2026-07-28 revision (server/discover)
  describe.each(['legacy', 'modern'])('protocol era %s', (era) => {
    it('tools/list: the eleven tools to a read+write key, the three read tools to a read key', async () => {
      const listed = json(await inspector(writeKey, ['--method', 'tools/list', '--protocol-era', era]));
      expect(listed.tools.map((x: { name: string }) => x.name).sort()).toEqual(ALL_TOOLS);
      const retrieve = listed.tools.find((x: { name: string }) => x.name === 'strata_retrieve');
      expect(retrieve.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
      expect(retrieve.inputSchema).toMatchObject({ type: 'object', required: ['action'] });
      const read = json(await inspector(readKey, ['--method', 'tools/list', '--protocol-era', era]));
      expect(read.tools.map((x: { name: string }) => x.name).sort()).toEqual(['strata_get_node', 'strata_retrieve', 'strata_traverse']);
    }, 120_000);

    it('tools/call strata_retrieve finds the goal through the route, and strata_get_node reads it', async () => {
      const found = json(await inspector(readKey, ['--method', 'tools/call', '--tool-name', 'strata_retrieve', '--tool-arg', 'action=text', 'query=inspector release', '--protocol-era', era]));
      expect(found.isError).toBeFalsy();
      expect(found.structuredContent.result.map((r: { node: { uid: string } }) => r.node.uid)).toEqual([goalUid]);
      expect(JSON.parse(found.content[0].text)).toEqual(found.structuredContent.result);
      const node = json(await inspector(readKey, ['--method', 'tools/call', '--tool-name', 'strata_get_node', '--tool-arg', 'action=get', `uid=${goalUid}`, '--protocol-era', era]));
      expect(node.structuredContent).toMatchObject({ uid: goalUid, label: 'Inspector release plan', node_type: 'Goal' });
      // a route error is a tool result with isError (the Inspector prints it and exits 5), not a protocol failure
      const missing = await inspector(readKey, ['--method', 'tools/call', '--tool-name', 'strata_get_node', '--tool-arg', 'action=get', 'uid=00000000-0000-4000-8000-000000000000', '--protocol-era', era]);
      expect([missing.code, JSON.parse(missing.stderr).error.code]).toEqual([5, 'tool_is_error']);
      expect(JSON.parse(missing.stdout)).toMatchObject({ isError: true, structuredContent: { code: 'not_found', status: 404 } });
    }, 120_000);
  });

  it("a refused key: the Inspector reports auth_required with Strata's invalid_token body, and prints nothing else", async () => {
    // non-interactive: without --stored-auth-only it would try to open a browser for OAuth, which Strata does not offer
    const r = await inspector('strata_not_a_real_key', ['--method', 'tools/list', '--stored-auth-only']);
    expect([r.code, r.stdout]).toEqual([3, '']);
    const err = JSON.parse(r.stderr).error;
    expect(err.code).toBe('auth_required');
    expect(err.message).toContain('"code":"invalid_token"');
  }, 60_000);
});
