import { FixedClock } from '@strata/domain/time';

/**
 * A fake clock that moves one millisecond each time it is read, so every write gets a later
 * time than the one before (as on a real clock) while a test still decides how much time
 * passes: `advance` and `set` work as on a FixedClock.
 */
export class TickingClock extends FixedClock {
  override now(): number {
    this.advance(0.001);
    return super.now();
  }
}
