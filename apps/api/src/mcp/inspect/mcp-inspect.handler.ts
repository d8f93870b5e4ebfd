import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, Clock } from '@strata/domain/time';
import { ConnectionAuthInput, urlNotAllowed } from '@strata/domain/mcp';
import { AddressNotAllowedError, InspectResult, meteredFetch } from '@strata/mcp/client';
import { McpNetwork } from '@strata/mcp/connections';
import { StrataMetrics } from '@strata/observability';

/** Inspect: the checks of a connection, run against a server without saving anything. */
@Injectable()
export class McpInspectHandler {
  constructor(
    private readonly network: McpNetwork,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly metrics: StrataMetrics,
  ) {}

  async inspect(rawUrl: string, auth: ConnectionAuthInput): Promise<InspectResult> {
    // refused addresses are a 400 before any check runs (DNS failures are the `reachable`
    // check's to report); every later connect checks again
    const url = await this.network.checkUrl(rawUrl);
    // the §15.5 limits, the whole request's (20 s) included: past it the check under way fails
    const inspector = this.network.inspector(
      () => this.clock.now(),
      meteredFetch(this.network.guardedFetch(), 'inspect', (c) => this.metrics.recordMcpCall(c)),
    );
    try {
      return await inspector.inspect(url, auth);
    } catch (err) {
      if (err instanceof AddressNotAllowedError) throw urlNotAllowed(err.message);
      throw err;
    }
  }
}
