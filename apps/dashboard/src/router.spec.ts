import { appPath, findRoute, href, matchRoute } from './router';

describe('dashboard routes', () => {
  it('maps /app paths to area paths', () => {
    expect(appPath('/app')).toBe('/');
    expect(appPath('/app/')).toBe('/');
    expect(appPath('/app/keys/')).toBe('/keys');
  });

  it('matches parameters, decoded, and nothing else', () => {
    expect(matchRoute('/nodes/:uid', '/nodes/a%3Ab')).toEqual({ uid: 'a:b' });
    expect(matchRoute('/nodes/:uid', '/nodes')).toBeNull();
    expect(matchRoute('/nodes/:uid', '/edges/x')).toBeNull();
    expect(matchRoute('/nodes/:uid', '/nodes/%E0%A4%A')).toBeNull();
  });

  it('finds the first area with a matching route; href encodes each segment', () => {
    const areas = [{ id: 'a', routes: ['/', '/x'] }, { id: 'b', routes: ['/x/:id'] }];
    expect(findRoute(areas, '/x/1')).toEqual({ area: areas[1], params: { id: '1' } });
    expect(findRoute(areas, '/nope')).toBeNull();
    expect(href('nodes', 'a/b')).toBe('/app/nodes/a%2Fb');
  });
});
