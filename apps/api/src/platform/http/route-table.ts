/**
 * Every registered route as (method, pattern), so an unmatched request can be told apart:
 * a path that exists for other methods is a 405 with `Allow`, anything else a 404. Patterns
 * match the path exactly, as the router does: `/nodes/` is not `/nodes` (no route, 404), or
 * its 405 would list in `Allow` the very method it refuses.
 */
export class RouteTable {
  private readonly routes: { method: string; re: RegExp }[] = [];

  add(method: string | string[], url: string): void {
    const re = new RegExp(
      '^' +
        url
          .split('/')
          .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
          .join('/') +
        '$',
    );
    for (const m of Array.isArray(method) ? method : [method]) this.routes.push({ method: m.toUpperCase(), re });
  }

  methodsFor(path: string): string[] {
    const p = path.split('?')[0];
    const out = new Set<string>();
    for (const r of this.routes) if (r.re.test(p)) out.add(r.method);
    return [...out].filter((m) => m !== 'HEAD').sort();
  }
}
