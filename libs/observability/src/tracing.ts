import type * as otel from '@opentelemetry/api';

/** The parts of `@opentelemetry/api` the spans below use (the package itself when tracing runs). */
export type TraceApi = Pick<typeof otel, 'context' | 'trace'>;

type Attributes = Record<string, string | number | boolean>;

let api: TraceApi | null = null;
let tracer: otel.Tracer | null = null;

/** SpanStatusCode.ERROR, without loading the package for its enum. */
const ERROR = 2;

/**
 * Strata's own spans (unit of work, append, each projection, model calls, MCP calls), through
 * the OpenTelemetry API. Until `useTracer` (or `startTracing`) runs, every call here is the
 * function itself and nothing of OpenTelemetry is loaded: the type import above is erased.
 * One per process, as OpenTelemetry's own global provider is.
 */
export const tracing = {
  get enabled(): boolean {
    return tracer !== null;
  },

  /** The caller's context, to parent a span that runs later elsewhere (the write queue's batch). */
  capture(): unknown {
    return api ? api.context.active() : undefined;
  },

  async inSpan<T>(name: string, attributes: Attributes, fn: () => Promise<T>, parent?: unknown): Promise<T> {
    if (!tracer || !api) return fn();
    const a = api;
    const ctx = (parent as otel.Context | undefined) ?? a.context.active();
    const span = tracer.startSpan(name, { attributes }, ctx);
    try {
      return await a.context.with(a.trace.setSpan(ctx, span), fn);
    } catch (err) {
      failed(span, err);
      throw err;
    } finally {
      span.end();
    }
  },

  inSpanSync<T>(name: string, attributes: Attributes, fn: () => T, parent?: unknown): T {
    if (!tracer || !api) return fn();
    const a = api;
    const ctx = (parent as otel.Context | undefined) ?? a.context.active();
    const span = tracer.startSpan(name, { attributes }, ctx);
    try {
      return a.context.with(a.trace.setSpan(ctx, span), fn);
    } catch (err) {
      failed(span, err);
      throw err;
    } finally {
      span.end();
    }
  },

  /**
   * A span for work measured elsewhere: the projections apply event by event, each event to
   * every projection in turn, so each projection's span covers its own share of the time,
   * laid from `startMs` (epoch milliseconds).
   */
  measured(name: string, attributes: Attributes, startMs: number, durationMs: number, parent?: unknown): void {
    if (!tracer || !api) return;
    const ctx = (parent as otel.Context | undefined) ?? api.context.active();
    tracer.startSpan(name, { attributes, startTime: startMs }, ctx).end(startMs + durationMs);
  },

  /**
   * A span begun here and ended by the caller, for work whose steps are not one function (a
   * request's share of a write batch); `context` parents the spans of its steps.
   */
  start(name: string, attributes: Attributes, parent?: unknown): OpenSpan {
    if (!tracer || !api) return NO_SPAN;
    const ctx = (parent as otel.Context | undefined) ?? api.context.active();
    const span = tracer.startSpan(name, { attributes }, ctx);
    return {
      context: api.trace.setSpan(ctx, span),
      end: (err?: unknown) => {
        if (err !== undefined) failed(span, err);
        span.end();
      },
    };
  },

  /** Names the request on the span that is active (the HTTP server span). */
  tagRequest(requestId: string): void {
    if (!api) return;
    api.trace.getActiveSpan()?.setAttribute('strata.request_id', requestId);
  },
};

export interface OpenSpan {
  /** the span's context, for its children */
  readonly context: unknown;
  end(err?: unknown): void;
}

const NO_SPAN: OpenSpan = { context: undefined, end: () => undefined };

function failed(span: otel.Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: ERROR, message: err instanceof Error ? err.message : String(err) });
}

/** Turns the spans on with this tracer (startTracing; tests with an in-memory one); null turns them off. */
export function useTracer(t: otel.Tracer | null, a: TraceApi | null): void {
  tracer = t;
  api = t ? a : null;
}

/** The packages `startTracing` loads, only when tracing is configured; absent (a trimmed install), it says so and runs without traces. */
export const TRACING_PACKAGES = ['@opentelemetry/api', '@opentelemetry/sdk-node', '@opentelemetry/instrumentation-http', '@fastify/otel'] as const;

export interface RunningTracing {
  shutdown(): Promise<void>;
}

/**
 * OpenTelemetry traces, exported over OTLP/HTTP, when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set; the SDK reads the other standard `OTEL_*`
 * variables itself. Without it nothing is loaded and null is returned. Call it before the HTTP
 * server is created: the HTTP and Fastify instrumentations hook what is created after them.
 */
export function startTracing(env: NodeJS.ProcessEnv, warn: (line: string) => void): RunningTracing | null {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return null;
  if (env.OTEL_SDK_DISABLED === 'true') return null;
  let mods: Record<(typeof TRACING_PACKAGES)[number], any>;
  try {
    // by name at run time: optional packages, loaded only when tracing is configured
    const load = (name: string) => require(name);
    mods = Object.fromEntries(TRACING_PACKAGES.map((p) => [p, load(p)])) as typeof mods;
  } catch (err) {
    warn(`OTEL_EXPORTER_OTLP_ENDPOINT is set but tracing is off: ${(err as Error).message.split('\n')[0]} (install ${TRACING_PACKAGES.join(' ')})`);
    return null;
  }
  // Traces only: metrics are served on /metrics and logs written to stdout, so the SDK's
  // default OTLP metric and log exporters stay off unless the operator names them.
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  const { NodeSDK } = mods['@opentelemetry/sdk-node'];
  const { HttpInstrumentation } = mods['@opentelemetry/instrumentation-http'];
  const { FastifyOtelInstrumentation } = mods['@fastify/otel'];
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME ?? 'strata',
    // the exporter follows OTEL_EXPORTER_OTLP_*; http/protobuf unless OTEL_EXPORTER_OTLP_PROTOCOL says otherwise
    instrumentations: [new HttpInstrumentation(), new FastifyOtelInstrumentation({ registerOnInitialization: true })],
  });
  sdk.start();
  const otelApi = mods['@opentelemetry/api'] as typeof otel;
  useTracer(otelApi.trace.getTracer('strata'), otelApi);
  return {
    shutdown: async () => {
      useTracer(null, null);
      await sdk.shutdown();
    },
  };
}
