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
    help: 'Language-model calls, by provider and outcome (ok, error)',
    labelNames: ['provider', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly modelTokens = new Counter({
    name: 'strata_model_tokens_total',
    help: 'Language-model tokens, by provider and direction (input, output)',
    labelNames: ['provider', 'direction'] as const,
    registers: [this.registry],
  });
  readonly modelDuration = new Histogram({
    name: 'strata_model_call_duration_seconds',
    help: 'Duration of language-model calls, by provider',
    labelNames: ['provider'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  constructor(opts: { processMetrics?: boolean } = {}) {
    if (opts.processMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: 'strata_' });
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
  recordHttp(route: string, method: string, status: number, seconds: number): void {
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
