import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { PollingLoop } from '@strata/jobs/polling-loop';
import { ToolApprovals } from './tool-approvals.service';

/**
 * Seconds between sweeps. Reads need no sweep to be exact (an approval reads as expired from
 * its `expires_at` on); the sweep writes the durable `ToolApprovalExpired` that wakes a run
 * waiting for it and settles its Approval node and the session, well inside REFERENCE §15.10's
 * 5 s. A round with nothing due is one indexed query.
 */
const SWEEP_SECONDS = 1;

/**
 * Records approval expiries (REFERENCE §15.10) on the platform's PollingLoop. What is due is
 * read from the approvals' read model against the injected clock, so a test moves a FixedClock
 * and calls `sweep()`; nothing sleeps until an expiry. Every replica sweeps; the approval
 * stream's revision lets one expiry event land.
 */
@Injectable()
export class ApprovalExpiry implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('ApprovalExpiry');
  private readonly loop = new PollingLoop(
    () => this.approvals.expireDue(),
    (err) => this.log.warn(`approval expiry sweep failed: ${err.message}`),
  );

  constructor(private readonly approvals: ToolApprovals) {}

  onApplicationBootstrap(): void {
    this.loop.start(SWEEP_SECONDS);
  }

  /** One sweep now (tests): how many expiries this replica wrote. */
  sweep(): Promise<number> {
    return this.approvals.expireDue();
  }

  onApplicationShutdown(): Promise<void> {
    return this.loop.stop();
  }
}
