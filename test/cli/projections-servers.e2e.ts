import { requestServerRebuild } from '../../apps/cli/src/actions/server-rebuild-request';
import { eventually } from '../servers-mode/support/eventually';
import { useServersStack } from '../servers-mode/support/servers-mode-app';
import { api, signUpWithKey } from '../support/http';
import { seedGraph } from './cli-fixture';
import { VECTOR_SERVER_PROJECTION_VERSION } from '@strata/projections/server/vector.server-projection';

/**
 * `strata projections rebuild` in servers mode, against the servers-mode harness (the worker
 * and an API replica over in-process stand-ins for the servers): the request the CLI makes of
 * the checkpoint store, and what the worker holding the lease does with it.
 */
describe('strata projections rebuild vectors in servers mode', () => {
  const stack = useServersStack();

  it('the worker holding the lease empties the vector index and replays it from the log, with no write to wake it', async () => {
    const s = await signUpWithKey(stack.replica.url);
    const c = api(stack.replica.url, s.key);
    const { nodes } = await seedGraph(c, 40);
    const vector = (await c.get(`/node/${nodes[3]}/embedding`)).body.vector as number[];
    expect(vector).toHaveLength(384);
    const head = await stack.servers.head();
    await eventually(async () => (await stack.servers.checkpoints.get('vectors'))?.position === head, 'vectors caught up');
    const graphBefore = await stack.servers.checkpoints.get('graph');
    let emptied = 0;
    const removeAll = stack.servers.vectors.removeAll.bind(stack.servers.vectors);
    stack.servers.vectors.removeAll = async () => {
      emptied++;
      return removeAll();
    };

    expect(await requestServerRebuild(stack.servers.checkpoints, ['vectors'])).toEqual(['vectors']);
    await eventually(async () => {
      const cp = await stack.servers.checkpoints.get('vectors');
      return cp?.version === VECTOR_SERVER_PROJECTION_VERSION && cp.position >= head;
    }, 'vectors rebuilt');

    expect(emptied).toBe(1);
    expect(stack.worker.logs.join('\n')).toContain(`projection vectors: version -1 → ${VECTOR_SERVER_PROJECTION_VERSION}; building from the start of the log`);
    expect(stack.worker.problems.join('\n')).toMatch(/checkpoint of vectors was reset: rebuilding it/);
    // only the named projection was rebuilt
    expect(stack.worker.logs.join('\n')).not.toMatch(/projection (graph|text): version/);
    expect((await stack.servers.checkpoints.get('graph'))?.version).toBe(graphBefore?.version);
    expect((await c.get(`/node/${nodes[3]}/embedding`)).body.vector).toEqual(vector);
    expect((await c.post('/embeddings/search', { vector, k: 1 })).body[0].node.uid).toBe(nodes[3]);
  }, 60_000);

  it('refuses a name the worker does not run, before touching any checkpoint', async () => {
    const before = await stack.servers.checkpoints.get('graph');
    await expect(requestServerRebuild(stack.servers.checkpoints, ['graph', 'accounts'])).rejects.toThrow("unknown projection 'accounts'; projections: graph, text, vectors");
    expect(await stack.servers.checkpoints.get('graph')).toEqual(before);
  });
});
