import { RouteCall } from './route-call';

/** The fixed resources of REFERENCE §15.11 and the route each reads. */
const FIXED: readonly { uri: string; name: string; title: string; description: string; path: string }[] = [
  { uri: 'strata://stats', name: 'stats', title: 'Graph statistics', description: 'Counts by state, type and layer (GET /stats)', path: '/stats' },
  { uri: 'strata://goals', name: 'goals', title: 'Active goals', description: 'Active goals by priority then deadline (GET /goals)', path: '/goals' },
  { uri: 'strata://decisions', name: 'decisions', title: 'Open decisions', description: 'Decisions still open (GET /decisions)', path: '/decisions' },
  { uri: 'strata://questions', name: 'questions', title: 'Open questions', description: 'Questions still open (GET /questions)', path: '/questions' },
];

export const RESOURCES = FIXED.map(({ uri, name, title, description }) => ({ uri, name, title, description, mimeType: 'application/json' }));

export const RESOURCE_TEMPLATES = [
  { uriTemplate: 'strata://node/{uid}', name: 'node', title: 'A node', description: 'One node by uid (GET /node/{uid})', mimeType: 'application/json' },
  { uriTemplate: 'strata://search/{query}', name: 'search', title: 'Search', description: 'Full-text search, 20 results (POST /search); the query URL-encoded', mimeType: 'application/json' },
];

function decoded(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** The route a resource URI reads, or null when no resource has that URI. */
export function resourceCallFor(uri: string): RouteCall | null {
  const fixed = FIXED.find((r) => r.uri === uri);
  if (fixed) return { method: 'GET', path: fixed.path };
  const node = /^strata:\/\/node\/([^/?#]+)$/.exec(uri);
  if (node) {
    const uid = decoded(node[1]);
    return uid ? { method: 'GET', path: `/node/${encodeURIComponent(uid)}` } : null;
  }
  const search = /^strata:\/\/search\/([^/?#]+)$/.exec(uri);
  if (search) {
    const query = decoded(search[1]);
    return query ? { method: 'POST', path: '/search', body: { query, limit: 20 } } : null;
  }
  return null;
}
