/** Matching `/app` paths against area patterns (`/nodes/:uid`); pure, unit-tested. */
export const BASE = '/app';

export function appPath(pathname: string): string {
  const rest = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  const trimmed = rest.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}

export function matchRoute(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/').filter(Boolean);
  const got = path.split('/').filter(Boolean);
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) {
      try {
        params[want[i].slice(1)] = decodeURIComponent(got[i]);
      } catch {
        return null;
      }
    } else if (want[i] !== got[i]) return null;
  }
  return params;
}

export function findRoute<A extends { routes: string[] }>(areas: A[], path: string): { area: A; params: Record<string, string> } | null {
  for (const area of areas)
    for (const r of area.routes) {
      const params = matchRoute(r, path);
      if (params) return { area, params };
    }
  return null;
}

/** An in-app href for a path made of segments (each one encoded). */
export function href(...segments: string[]): string {
  return BASE + '/' + segments.map((s) => encodeURIComponent(s)).join('/');
}
