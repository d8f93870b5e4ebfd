/**
 * One call of a Strata HTTP route, as an MCP tool or resource makes it. The MCP server never
 * reimplements a route: it names the route and its input, and the host answers it through the
 * route itself (same guard, validation, services and error shapes).
 */
export interface RouteCall {
  method: 'GET' | 'POST';
  /** path with its parameters already encoded, e.g. `/node/abc/history` */
  path: string;
  /** POST body */
  body?: Record<string, unknown>;
  /** GET query parameters (scalars only) */
  query?: Record<string, string>;
}

/** What the route answered: its HTTP status and parsed JSON body. */
export interface RouteAnswer {
  status: number;
  body: unknown;
  /**
   * The body exactly as the route serialised it, when the host has that text and it is JSON.
   * A tool result then carries it as it is (its text item, and spliced in as its structured
   * content) instead of parsing the body only to serialise it again.
   */
  json?: string;
}

/**
 * A route answer whose `body` is parsed only when something reads it: the successful tool
 * call never does (its result is the route's own JSON text).
 */
export function lazyRouteAnswer(status: number, json: string): RouteAnswer {
  let parsed: { value: unknown } | null = null;
  return {
    status,
    json,
    get body(): unknown {
      if (!parsed) {
        try {
          parsed = { value: JSON.parse(json) };
        } catch {
          parsed = { value: { error: 'the route answered a body that is not JSON', code: 'internal_error' } };
        }
      }
      return parsed.value;
    },
  };
}

/** Answers route calls on behalf of the credential that called `/mcp`. */
export type RouteCaller = (call: RouteCall) => Promise<RouteAnswer>;
