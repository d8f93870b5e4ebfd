import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One reading of a gauge that is computed when Prometheus scrapes (lag, queue depth, file sizes). */
export type GaugeReading = { labels?: Record<string, string>; value: number };

/**
 * The service's Prometheus instruments, one registry per process (never prom-client's global
 * one: tests run several services in one process). Label values are bounded by design: route
 * templates (never raw paths or uids), projection names, job kinds, providers.
 */
export class StrataMetrics {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'strata_http_requests_total',
    help: 'HTTP requests answered, by route template, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'strata_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route template and method',
    labelNames: ['route', 'method'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly logAppends = new Counter({
    name: 'strata_event_log_appended_events_total',
    help: 'Events appended to the event log by this process',
    registers: [this.registry],
  });
  readonly logAppendBytes = new Counter({
    name: 'strata_event_log_appended_bytes_total',
    help: 'Bytes of event data appended to the event log by this process',
    registers: [this.registry],
  });
  readonly modelCalls = new Counter({
    name: 'strata_model_calls_total',
    help: 'Language-model calls, by provider, purpose and outcome (ok, error)',
    labelNames: ['provider', 'purpose', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly modelTokens = new Counter({
    name: 'strata_model_tokens_total',
    help: 'Language-model tokens, by provider, purpose and direction (input, output)',
    labelNames: ['provider', 'purpose', 'direction'] as const,
    registers: [this.registry],
  });
  readonly modelDuration = new Histogram({
    name: 'strata_model_call_duration_seconds',
    help: 'Duration of language-model calls, by provider and purpose',
    labelNames: ['provider', 'purpose'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  readonly jobDuration = new Histogram({
    name: 'strata_job_duration_seconds',
    help: 'Time a job ran on this process, by kind and outcome (completed, failed, cancelled, released)',
    labelNames: ['kind', 'outcome'] as const,
    buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600],
    registers: [this.registry],
  });
  readonly checkpointDuration = new Histogram({
    name: 'strata_sqlite_checkpoint_duration_seconds',
    help: 'WAL checkpoints that copied pages (embedded default), by database and mode (passive, restart)',
    labelNames: ['database', 'mode'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly checkpointPages = new Counter({
    name: 'strata_sqlite_checkpointed_pages_total',
    help: 'WAL pages copied into the database file by checkpoints, by database',
    labelNames: ['database'] as const,
    registers: [this.registry],
  });
  readonly mcpCalls = new Counter({
    name: 'strata_mcp_calls_total',
    help: 'Requests to MCP servers, by connection (`inspect` for unsaved checks), JSON-RPC method and outcome',
    labelNames: ['connection', 'method', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly mcpDuration = new Histogram({
    name: 'strata_mcp_call_duration_seconds',
    help: 'Duration of requests to MCP servers, by connection and method',
    labelNames: ['connection', 'method'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly liveSubscribers = new Gauge({
    name: 'strata_live_subscribers',
    help: 'Open live subscriptions (Server-Sent Events and WebSocket streams of the log), by transport',
    labelNames: ['transport'] as const,
    registers: [this.registry],
  });
  /** present only under STRATA_METRICS_PER_ORG: organization ids are unbounded label values */
  readonly orgHttpRequests: Counter<'org' | 'method' | 'status'> | null;

  constructor(opts: { processMetrics?: boolean; perOrg?: boolean } = {}) {
    this.orgHttpRequests = opts.perOrg
      ? new Counter({
          name: 'strata_org_http_requests_total',
          help: 'HTTP requests answered for an authenticated organization, by organization id, method and status',
          labelNames: ['org', 'method', 'status'] as const,
          registers: [this.registry],
        })
      : null;
    if (opts.processMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: 'strata_' });
    // both transports are listed from the start, at 0, so a dashboard has a series to draw
    for (const transport of ['sse', 'websocket']) this.liveSubscribers.labels(transport).set(0);
  }

  /** One request to an MCP server (`meteredFetch`'s record). */
  recordMcpCall(call: { connection: string; method: string; outcome: string; seconds: number }): void {
    this.mcpCalls.labels(call.connection, call.method, call.outcome).inc();
    this.mcpDuration.labels(call.connection, call.method).observe(call.seconds);
  }

  /**
   * A gauge read at scrape time. `read` may be async (a MongoDB checkpoint read); a failing
   * read leaves the gauge empty for that scrape instead of failing the whole page.
   */
  gauge(name: string, help: string, labelNames: readonly string[], read: () => GaugeReading[] | Promise<GaugeReading[]>): void {
    new Gauge({
      name,
      help,
      labelNames: [...labelNames],
      registers: [this.registry],
      async collect() {
        this.reset();
        let readings: GaugeReading[] = [];
        try {
          readings = await read();
        } catch {
          return;
        }
        for (const r of readings) (r.labels ? this.set(r.labels, r.value) : this.set(r.value));
      },
    });
  }

  private readonly httpSeries = new Map<string, { count: Counter.Internal; time: Histogram.Internal<'route' | 'method'> }>();

  /**
   * One answered request. The label children are cached per (route, method, status): a map
   * lookup per request instead of prom-client hashing the labels of two series.
   */
  recordHttp(route: string, method: string, status: number, seconds: number, org?: string): void {
    if (org && this.orgHttpRequests) this.orgHttpRequests.labels(org, method, String(status)).inc();
    const key = `${method} ${status} ${route}`;
    let series = this.httpSeries.get(key);
    if (!series) {
      series = { count: this.httpRequests.labels(route, method, String(status)), time: this.httpDuration.labels(route, method) };
      this.httpSeries.set(key, series);
    }
    series.count.inc();
    series.time.observe(seconds);
  }

  /** The text exposition format (version 0.0.4). */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
