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

  readonly httpRequests = this.counter('strata_http_requests_total', 'HTTP requests answered, by route template, method and status', ['route', 'method', 'status']);
  readonly httpDuration = this.histogram('strata_http_request_duration_seconds', 'Time to answer an HTTP request, by route template and method', ['route', 'method'], [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
  readonly logAppends = this.counter('strata_event_log_appended_events_total', 'Events appended to the event log by this process', []);
  readonly logAppendBytes = this.counter('strata_event_log_appended_bytes_total', 'Bytes of event data appended to the event log by this process', []);
  readonly modelCalls = this.counter('strata_model_calls_total', 'Language-model calls, by provider, purpose and outcome (ok, error)', ['provider', 'purpose', 'outcome']);
  readonly modelTokens = this.counter('strata_model_tokens_total', 'Language-model tokens, by provider, purpose and direction (input, output)', ['provider', 'purpose', 'direction']);
  readonly modelDuration = this.histogram('strata_model_call_duration_seconds', 'Duration of language-model calls, by provider and purpose', ['provider', 'purpose'], [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]);
  readonly jobDuration = this.histogram('strata_job_duration_seconds', 'Time a job ran on this process, by kind and outcome (completed, failed, cancelled, released)', ['kind', 'outcome'], [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600]);
  readonly checkpointDuration = this.histogram('strata_sqlite_checkpoint_duration_seconds', 'WAL checkpoints that copied pages (embedded default), by database and mode (passive, restart)', ['database', 'mode'], [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]);
  readonly checkpointPages = this.counter('strata_sqlite_checkpointed_pages_total', 'WAL pages copied into the database file by checkpoints, by database', ['database']);
  readonly mcpCalls = this.counter('strata_mcp_calls_total', 'Requests to MCP servers, by connection (`inspect` for unsaved checks), JSON-RPC method and outcome', ['connection', 'method', 'outcome']);
  readonly mcpDuration = this.histogram('strata_mcp_call_duration_seconds', 'Duration of requests to MCP servers, by connection and method', ['connection', 'method'], [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]);
  readonly liveSubscribers = this.liveGauge('strata_live_subscribers', 'Open live subscriptions (Server-Sent Events and WebSocket streams of the log), by transport', ['transport']);
  /** present only under STRATA_METRICS_PER_ORG: organization ids are unbounded label values */
  readonly orgHttpRequests: Counter<'org' | 'method' | 'status'> | null;

  constructor(opts: { processMetrics?: boolean; perOrg?: boolean } = {}) {
    this.orgHttpRequests = opts.perOrg
      ? this.counter('strata_org_http_requests_total', 'HTTP requests answered for an authenticated organization, by organization id, method and status', ['org', 'method', 'status'])
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

  private counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  private histogram<L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]): Histogram<L> {
    return new Histogram({ name, help, labelNames, buckets, registers: [this.registry] });
  }

  /** a gauge this process sets as things happen (unlike `gauge`, read at scrape time) */
  private liveGauge<L extends string>(name: string, help: string, labelNames: readonly L[]): Gauge<L> {
    return new Gauge({ name, help, labelNames, registers: [this.registry] });
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
