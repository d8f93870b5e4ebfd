import { RouteTable } from './route-table';

describe('RouteTable', () => {
  const table = new RouteTable();
  table.add(['GET', 'HEAD'], '/v1/agents/:id');
  table.add('PATCH', '/v1/agents/:id');
  table.add('POST', '/v1/agents/:id/archive');
  table.add(['GET', 'HEAD'], '/v1/agents/schedules');
  table.add('POST', '/v1/agents/schedules');
  table.add('PATCH', '/v1/agents/schedules/:id');
  table.add('DELETE', '/v1/agents/schedules/:id');

  it('lists the methods of the routes that match, HEAD left out', () => {
    expect(table.methodsFor('/v1/agents/a1')).toEqual(['GET', 'PATCH']);
    expect(table.methodsFor('/v1/agents/a1/archive?x=1')).toEqual(['POST']);
    expect(table.methodsFor('/nope')).toEqual([]);
  });

  it('takes a literal segment over a parameter, as the router does', () => {
    expect(table.methodsFor('/v1/agents/schedules')).toEqual(['GET', 'POST']);
    expect(table.methodsFor('/v1/agents/schedules/s1')).toEqual(['DELETE', 'PATCH']);
    // `/v1/agents/:id/archive` would match with id "schedules": the literal wins at that segment
    expect(table.methodsFor('/v1/agents/schedules/archive')).toEqual(['DELETE', 'PATCH']);
  });
});
