/**
 * Every registered route as (method, pattern), so an unmatched request can be told apart:
 * a path that exists for other methods is a 405 with `Allow`, anything else a 404. Patterns
 * match the path exactly, as the router does: `/nodes/` is not `/nodes` (no route, 404), or
 * its 405 would list in `Allow` the very method it refuses.
 */
export class RouteTable {
  private readonly routes: { method: string; re: RegExp; segs: string[] }[] = [];

  add(method: string | string[], url: string): void {
    const re = new RegExp(
      '^' +
        url
          .split('/')
          .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
          .join('/') +
        '$',
    );
    const segs = url.split('/');
    for (const m of Array.isArray(method) ? method : [method]) this.routes.push({ method: m.toUpperCase(), re, segs });
  }

  /**
   * The methods of the routes that match the path. A literal segment wins over a parameter, as
   * in the router: `/v1/agents/schedules` is the schedules' path, not `/v1/agents/:id`.
   */
  methodsFor(path: string): string[] {
    const p = path.split('?')[0];
    let matching = this.routes.filter((r) => r.re.test(p));
    const depth = p.split('/').length;
    for (let i = 0; i < depth; i++) {
      const literal = (r: { segs: string[] }) => r.segs[i] !== undefined && !r.segs[i].startsWith(':') && r.segs[i] !== '*';
      if (matching.some(literal)) matching = matching.filter((r) => !(r.segs[i] ?? '').startsWith(':'));
    }
    return [...new Set(matching.map((r) => r.method))].filter((m) => m !== 'HEAD').sort();
  }
}
