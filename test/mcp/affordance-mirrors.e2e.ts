import { TestApp, startTestApp } from '../support/test-app';
import { api, signUp } from '../support/http';
import { ToolServer, startToolServer } from './support/tool-server';

/**
 * An MCP tool's Affordance mirrors the registry (REFERENCE §15.8): graph routes never change
 * it (409 `invalid_transition`, nothing written); its connection's syncs do. An Affordance a
 * person made stays an ordinary node.
 */
describe('Affordance mirrors of MCP tools', () => {
  let t: TestApp;
  let tools: ToolServer;

  beforeAll(async () => {
    tools = await startToolServer({ tools: [{ name: 'add', description: 'Adds two numbers.', readOnly: true }] });
    t = await startTestApp({ env: { STRATA_MCP_ALLOW_PRIVATE: 'true' } });
  });
  afterAll(async () => {
    await t?.close();
    await tools?.close();
  });

  it('PATCH, /evolve update and tombstone, and DELETE are refused; a sync still relabels it', async () => {
    const s = await signUp(t.url);
    const a = api(t.url, s.access_token);
    const c = await a.post('/v1/mcp/connections', { name: 'Calc', url: tools.url, auth: { type: 'none' } });
    expect(c.status).toBe(201);
    const uid = (await a.get(`/v1/mcp/registry?connection_id=${c.body.id}`)).body.tools[0].affordance_uid as string;
    const before = (await a.get(`/node/${uid}`)).body;
    expect(before).toMatchObject({ node_type: 'Affordance', label: 'Calc · add', props: { affordance_type: 'mcp_tool', risk_level: 'low' } });

    const refusals = [
      await a.patch(`/node/${uid}`, { props: { risk_level: 'high' } }),
      await a.patch(`/node/${uid}`, { label: 'Renamed' }),
      await a.post('/evolve', { action: 'update', uid, props_patch: { description: 'Something else.' } }),
      await a.post('/evolve', { action: 'tombstone', uid }),
      await a.delete(`/node/${uid}`),
    ];
    for (const r of refusals) expect([r.status, r.body.code]).toEqual([409, 'invalid_transition']);
    expect(refusals[0].body.error).toContain('Calc');
    const after = (await a.get(`/node/${uid}`)).body;
    expect([after.version, after.label, after.props.risk_level, after.tombstone_at ?? null]).toEqual([before.version, 'Calc · add', 'low', null]);

    // the connection's own sync changes it: a rename relabels the mirror at the next sync
    expect((await a.patch(`/v1/mcp/connections/${c.body.id}`, { name: 'Calculator' })).status).toBe(200);
    expect((await a.post(`/v1/mcp/connections/${c.body.id}/sync`, {})).status).toBe(200);
    expect((await a.get(`/node/${uid}`)).body.label).toBe('Calculator · add');

    // an Affordance a person made is an ordinary node
    const own = await a.post('/node', { node_type: 'Affordance', label: 'Press the button', props: { action_name: 'press' } });
    expect(own.status).toBe(201);
    const ownUid = own.body.uid ?? own.body.node?.uid;
    expect((await a.patch(`/node/${ownUid}`, { props: { risk_level: 'high' } })).status).toBe(200);
  });
});
