import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, Clock } from '@strata/domain/time';
import { ConnectionAuthInput, checkMcpUrl, urlNotAllowed } from '@strata/domain/mcp';
import { AddressNotAllowedError, InspectResult, McpInspector, guardedFetch, meteredFetch, resolveChecked } from '@strata/mcp/client';
import { StrataMetrics } from '@strata/observability';
import { STRATA_CONFIG, StrataConfig } from '@strata/platform/config/strata-config';
import { VERSION } from '@strata/platform/version';

/** REFERENCE §15.5 limits used by inspect. */
const CONNECT_TIMEOUT_MS = 10_000;
const LIST_TIMEOUT_MS = 30_000;
const INSPECT_TIMEOUT_MS = 20_000;
const MAX_BODY = 10 * 1024 * 1024;

/** Inspect: the checks of a connection, run against a server without saving anything. */
@Injectable()
export class McpInspectHandler {
  constructor(
    @Inject(STRATA_CONFIG) private readonly config: StrataConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly metrics: StrataMetrics,
  ) {}

  async inspect(rawUrl: string, auth: ConnectionAuthInput): Promise<InspectResult> {
    const allowPrivate = this.config.mcp.allowPrivate;
    const url = checkMcpUrl(rawUrl, allowPrivate);
    try {
      // refused addresses are a 400 before any check runs; every later connect checks again
      await resolveChecked(url.hostname, allowPrivate);
    } catch (err) {
      if (err instanceof AddressNotAllowedError) throw urlNotAllowed(err.message);
      // DNS failures are the `reachable` check's to report
    }
    const inspector = new McpInspector({
      fetch: meteredFetch(guardedFetch({ allowPrivate, connectTimeoutMs: CONNECT_TIMEOUT_MS, maxBodyBytes: MAX_BODY }), 'inspect', (c) => this.metrics.recordMcpCall(c)),
      version: VERSION,
      listTimeoutMs: LIST_TIMEOUT_MS,
      handshakeTimeoutMs: CONNECT_TIMEOUT_MS,
      now: () => this.clock.now(),
    });
    try {
      return await withDeadline(inspector.inspect(url, auth), INSPECT_TIMEOUT_MS);
    } catch (err) {
      if (err instanceof AddressNotAllowedError) throw urlNotAllowed(err.message);
      throw err;
    }
  }
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`inspect took longer than ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
