import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ToolApprovals } from './tool-approvals.service';

/** how often due approvals are looked for: REFERENCE §15.10 applies an expiry within 5 s */
const SWEEP_MS = 1000;

/**
 * Applies approval expiries (REFERENCE §15.10). What is due is read from the approvals' read
 * model against the injected clock, so a test moves a FixedClock and the next sweep expires;
 * nothing sleeps until an expiry. Every replica sweeps; the approval stream's revision lets
 * one expiry land.
 */
@Injectable()
export class ApprovalExpiry implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('ApprovalExpiry');
  private timer: NodeJS.Timeout | null = null;
  private sweeping: Promise<unknown> | null = null;

  constructor(private readonly approvals: ToolApprovals) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), SWEEP_MS);
    this.timer.unref();
  }

  /** One sweep (also called directly); a sweep still going on is not doubled. */
  sweep(): Promise<unknown> {
    this.sweeping ??= this.approvals
      .expireDue()
      .catch((err: Error) => this.log.warn(`approval expiry sweep failed: ${err.message}`))
      .finally(() => (this.sweeping = null));
    return this.sweeping;
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.sweeping;
  }
}
