// autocannon ships no types of its own; this is the subset we use
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as (opts: Record<string, unknown>) => Promise<AutocannonResult>;

export interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  errors: number;
  duration: number;
}

export interface LoadResult {
  rps: number;
  /** requests completed in the run */
  requests: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
}

/** Runs autocannon against one request shape and returns throughput and latency. */
export async function load(opts: {
  url: string;
  method?: string;
  token?: string;
  body?: unknown;
  /** extra request headers (e.g. the Accept an MCP endpoint requires) */
  headers?: Record<string, string>;
  connections: number;
  seconds: number;
}): Promise<LoadResult> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const r = await autocannon({
    url: opts.url,
    method: opts.method ?? 'GET',
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    connections: opts.connections,
    duration: opts.seconds,
  });
  return { rps: r.requests.average, requests: r.requests.total, p50_ms: r.latency.p50, p99_ms: r.latency.p99, errors: r.non2xx + r.errors };
}
