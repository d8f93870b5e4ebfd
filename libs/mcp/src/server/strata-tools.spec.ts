import { COGNITIVE_ENDPOINTS } from '@strata/domain/cognitive';
import { DomainError } from '@strata/domain/errors';
import { STRATA_TOOLS, STRATA_TOOL_BY_NAME, describeTools, routeCallsFor } from './strata-tools';
import { resourceCallFor } from './strata-resources';

const tool = (name: string) => STRATA_TOOL_BY_NAME.get(name)!;

describe('Strata MCP tools', () => {
  it('are the eleven of the reference, each action reaching a real action of its cognitive route', () => {
    expect(STRATA_TOOLS).toHaveLength(11);
    const byPath = new Map(COGNITIVE_ENDPOINTS.map((e) => [`/${e.path}`, e]));
    for (const t of STRATA_TOOLS) {
      for (const [name, target] of Object.entries(t.actions)) {
        if (target.kind !== 'post') continue;
        const endpoint = byPath.get(target.path);
        if (!endpoint || endpoint.single) continue;
        const sent = target.action === undefined ? name : target.action;
        expect([t.name, name, sent !== null && Object.hasOwn(endpoint.actions, sent)]).toEqual([t.name, name, true]);
      }
    }
  });

  it('maps actions to routes: renamed, dropped or kept; agent_id never forwarded', () => {
    expect(routeCallsFor(tool('strata_capture'), { action: 'entity', label: 'x', agent_id: 'a' })).toEqual({ method: 'POST', path: '/reality/entity', body: { action: 'create', label: 'x' } });
    expect(routeCallsFor(tool('strata_retrieve'), { action: 'context', query: 'q' })).toEqual({ method: 'POST', path: '/retrieve/context', body: { query: 'q' } });
    expect(routeCallsFor(tool('strata_plan'), { action: 'start', label: 's' })).toEqual({ method: 'POST', path: '/agent/execution', body: { action: 'start', label: 's' } });
    expect(routeCallsFor(tool('strata_get_node'), { action: 'history', uid: 'a/b', limit: 3, props: {} })).toEqual({ method: 'GET', path: '/node/a%2Fb/history', query: { limit: '3' } });
    expect(routeCallsFor(tool('strata_write_article'), { action: 'create', label: 'A', content: 'c' })).toEqual({ method: 'POST', path: '/node', body: { label: 'A', node_type: 'Article', props: { content: 'c' } } });
    expect(routeCallsFor(tool('strata_write_article'), { action: 'create', label: 'A', project_uid: 'p' }).path).toBe('/batch');
  });

  it('refuses unknown actions and a missing uid as the routes do', () => {
    const err = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return (e as DomainError).toBody();
      }
      throw new Error('no error');
    };
    expect(err(() => routeCallsFor(tool('strata_traverse'), { action: 'fly' }))).toMatchObject({ code: 'unknown_action' });
    expect(err(() => routeCallsFor(tool('strata_traverse'), undefined))).toMatchObject({ code: 'unknown_action' });
    expect(err(() => routeCallsFor(tool('strata_get_node'), { action: 'get' }))).toMatchObject({ code: 'missing_field', field: 'uid' });
  });

  it('lists only read tools to a read credential, with hints and no closed schema', () => {
    const read = describeTools(false);
    expect(read.map((t) => t.name)).toEqual(['strata_retrieve', 'strata_traverse', 'strata_get_node']);
    expect(read[0]).toMatchObject({ annotations: { readOnlyHint: true, openWorldHint: false }, inputSchema: { additionalProperties: true, required: ['action'] } });
  });

  it('maps resource URIs to routes', () => {
    expect(resourceCallFor('strata://stats')).toEqual({ method: 'GET', path: '/stats' });
    expect(resourceCallFor('strata://node/abc')).toEqual({ method: 'GET', path: '/node/abc' });
    expect(resourceCallFor('strata://search/two%20words')).toEqual({ method: 'POST', path: '/search', body: { query: 'two words', limit: 20 } });
    expect(resourceCallFor('strata://search/%E0%A4%A')).toBeNull();
    expect(resourceCallFor('strata://other')).toBeNull();
  });
});
