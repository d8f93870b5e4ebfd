import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import * as otel from '@opentelemetry/api';
import { eventually } from '@strata/domain/testing/eventually';
import { startTracing, tracing, TRACING_PACKAGES, useTracer } from '@strata/observability/tracing';
import { startToolServer } from '../mcp/support/tool-server';
import { builtService, kill, removePrivateBuild, startService } from '../support/built-service';
import { request, signUp, signUpWithKey } from '../support/http';
import { startTestApp } from '../support/test-app';

interface Recorded {
  name: string;
  attributes: Record<string, unknown>;
  parent: Recorded | null;
  ended: boolean;
}

/**
 * A tracer that keeps what it is given, through the real OpenTelemetry API (its context and
 * span helpers), standing in for the SDK: what Strata's spans are called, what they carry and
 * how they nest.
 */
function recordingTracer(): { tracer: otel.Tracer; spans: Recorded[] } {
  const spans: Recorded[] = [];
  const byContext = new WeakMap<object, Recorded>();
  const tracer = {
    startSpan(name: string, options: otel.SpanOptions = {}, ctx?: otel.Context): otel.Span {
      const parentSpan = ctx ? otel.trace.getSpan(ctx) : undefined;
      const rec: Recorded = { name, attributes: { ...(options.attributes ?? {}) }, parent: parentSpan ? (byContext.get(parentSpan) ?? null) : null, ended: false };
      spans.push(rec);
      const span: otel.Span = {
        spanContext: () => ({ traceId: '0'.repeat(31) + '1', spanId: String(spans.length).padStart(16, '0'), traceFlags: 1 }),
        setAttribute: (k, v) => ((rec.attributes[k] = v), span),
        setAttributes: (a) => (Object.assign(rec.attributes, a), span),
        addEvent: () => span,
        addLink: () => span,
        addLinks: () => span,
        setStatus: () => span,
        updateName: () => span,
        end: () => void (rec.ended = true),
        isRecording: () => true,
        recordException: () => undefined,
      };
      byContext.set(span, rec);
      return span;
    },
    startActiveSpan: () => {
      throw new Error('not used by Strata');
    },
  } as unknown as otel.Tracer;
  return { tracer, spans };
}

describe('traces', () => {
  afterEach(() => useTracer(null, null));

  it('nothing is loaded or recorded unless tracing is configured', async () => {
    expect(startTracing({}, () => undefined)).toBeNull();
    expect(tracing.enabled).toBe(false);
    // spans are the function itself then
    expect(await tracing.inSpan('x', {}, async () => 42)).toBe(42);
  });

  it('a write yields a unit-of-work span with the request id, and under it the append and a span per projection', async () => {
    const { tracer, spans } = recordingTracer();
    useTracer(tracer, otel);
    const t = await startTestApp({ env: { STRATA_MCP_ALLOW_PRIVATE: 'true' } });
    try {
      const s = await signUpWithKey(t.url);
      spans.splice(0);
      const res = await request(t.url, 'POST', '/node', { token: s.key, body: { label: 'traced', node_type: 'Idea' }, headers: { 'x-request-id': 'trace-req-7' } });
      expect(res.status).toBe(201);
      const uow = spans.find((x) => x.name === 'strata.unit_of_work' && x.attributes['strata.request_id'] === 'trace-req-7')!;
      expect(uow).toBeDefined();
      const children = spans.filter((x) => x.parent === uow);
      expect(children.map((x) => x.name)).toContain('strata.event_log.append');
      const projections = children.filter((x) => x.name === 'strata.projection').map((x) => x.attributes['strata.projection']);
      expect(projections).toEqual(expect.arrayContaining(['graph', 'text']));
      expect(spans.every((x) => x.ended)).toBe(true);
      // nothing of the body is an attribute
      expect(JSON.stringify(spans)).not.toContain('traced');

      // an MCP check: one span per request to the server, by method, never the URL
      const owner = await signUp(t.url);
      const tools = await startToolServer({ tools: [{ name: 'add', description: 'Adds.' }] });
      try {
        expect((await request(t.url, 'POST', '/v1/mcp/inspect', { token: owner.access_token, body: { url: tools.url } })).status).toBe(200);
      } finally {
        await tools.close();
      }
      const mcp = spans.filter((x) => x.name === 'strata.mcp_call');
      expect(mcp.map((x) => x.attributes['strata.mcp.method'])).toContain('tools/list');
      for (const x of mcp) expect(x.attributes['strata.mcp.connection']).toBe('inspect');
      expect(JSON.stringify(mcp)).not.toContain(tools.url);
    } finally {
      await t.close();
    }
  });

  // The exporter loads its HTTP agent with a dynamic import, which jest's module sandbox
  // refuses, so the SDK is exercised where it really runs: the built service, its own process
  // (built here when dist/ is missing or older than the sources, as on a fresh clone).
  let entry: string;
  beforeAll(() => {
    entry = builtService();
  }, 300_000);
  afterAll(() => removePrivateBuild());

  it('with the SDK and a local OTLP/HTTP receiver, a request yields a trace with the HTTP span and the named spans under it', async () => {
    for (const p of TRACING_PACKAGES) require.resolve(p); // installed with the service, not optional
    const received: any[] = [];
    const bodies: string[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        bodies.push(body);
        if (req.url === '/v1/traces') received.push(JSON.parse(body));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-otlp-'));
    const service = await startService(entry, dir, {
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_SERVICE_NAME: 'strata-test',
    });
    try {
      const s = await signUpWithKey(service.url);
      const res = await request(service.url, 'POST', '/node', { token: s.key, body: { label: 'exported-label', node_type: 'Idea' }, headers: { 'x-request-id': 'otlp-req-1' } });
      expect(res.status).toBe(201);
      const all = () => received.flatMap((r) => r.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans)));
      const attrs = (x: any) => Object.fromEntries((x.attributes ?? []).map((a: any) => [a.key, Object.values(a.value)[0]]));
      const uow = await eventually(() => all().find((x: any) => x.name === 'strata.unit_of_work' && attrs(x)['strata.request_id'] === 'otlp-req-1') ?? null, {
        what: 'the unit-of-work span reached the receiver',
        timeoutMs: 20_000,
      });
      const spans = await eventually(() => {
        const xs = all().filter((x: any) => x.traceId === uow.traceId);
        // the server span ends after the response is written, so it may arrive in a later batch
        const complete = ['strata.event_log.append', 'strata.projection'].every((n) => xs.some((x: any) => x.name === n)) && xs.some((x: any) => !x.parentSpanId);
        return complete ? xs : null;
      }, { what: 'the root, append and projection spans of that trace', timeoutMs: 20_000 });
      // one trace: the HTTP server span the instrumentation opened is the root, Strata's spans below it
      const root = spans.find((x: any) => !x.parentSpanId);
      expect(root).toBeDefined();
      expect(root.kind).toBe(2); // SERVER
      expect(uow.parentSpanId).toBeTruthy();
      for (const name of ['strata.event_log.append', 'strata.projection']) expect(spans.find((x: any) => x.name === name).parentSpanId).toBe(uow.spanId);
      // no body content and no credential leaves the process
      const exported = bodies.join('\n');
      expect(exported).not.toContain('exported-label');
      expect(exported).not.toContain(s.key);
      // traces only: metrics stay on /metrics and logs on stdout unless OTEL_* says otherwise
      expect(bodies.length).toBe(received.length);
    } finally {
      await kill(service);
      await new Promise((r) => receiver.close(r));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
