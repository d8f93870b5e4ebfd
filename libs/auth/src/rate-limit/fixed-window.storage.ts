import { ThrottlerStorage } from '@nestjs/throttler';
import type { Clock } from '@strata/domain/time';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

interface Window {
  hits: number;
  ends_at: number;
}

/**
 * Fixed-window counters for @nestjs/throttler: O(1) per request whatever the limit (the
 * default storage keeps one timestamp per hit, which a 60 000/min plan cannot afford).
 * Idle windows are swept lazily.
 */
export class FixedWindowThrottlerStorage implements ThrottlerStorage {
  private readonly windows = new Map<string, Window>();
  private ops = 0;

  constructor(private readonly clock: Clock) {}

  private nowMs(): number {
    return this.clock.now() * 1000;
  }

  async increment(key: string, ttl: number, limit: number, _blockDuration: number, _name: string): Promise<ThrottlerStorageRecord> {
    return this.hit(key, ttl, limit);
  }

  hit(key: string, ttl: number, limit: number): ThrottlerStorageRecord {
    const now = this.nowMs();
    if (++this.ops % 10_000 === 0) this.sweep(now);
    let w = this.windows.get(key);
    if (w === undefined || now >= w.ends_at) {
      w = { hits: 0, ends_at: now + ttl };
      this.windows.set(key, w);
    }
    w.hits++;
    const secondsLeft = Math.max(1, Math.ceil((w.ends_at - now) / 1000));
    const blocked = w.hits > limit;
    return { totalHits: w.hits, timeToExpire: secondsLeft, isBlocked: blocked, timeToBlockExpire: blocked ? secondsLeft : 0 };
  }

  private sweep(now: number): void {
    for (const [k, w] of this.windows) if (now >= w.ends_at) this.windows.delete(k);
  }
}
