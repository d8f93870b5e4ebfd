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
}

/** Answers route calls on behalf of the credential that called `/mcp`. */
export type RouteCaller = (call: RouteCall) => Promise<RouteAnswer>;
