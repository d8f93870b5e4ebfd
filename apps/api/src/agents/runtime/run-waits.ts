import { Inject, Injectable, Optional } from '@nestjs/common';
import { AccountsMirror } from '@strata/projections/accounts/accounts-mirror';
import { EMBEDDED_STORAGE } from '@strata/platform/storage/storage.tokens';
import type { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import type { RecordedEvent } from '@strata/domain/events';

interface Waiter {
  ready: () => boolean;
  done: () => void;
  /** the events that can make `ready` hold; none given: any write */
  wakesOn?: (e: RecordedEvent) => boolean;
}

/**
 * Waits for the read model to reach a state: re-checked after every commit (a run's end, a
 * free run slot, an answer to a question), or in servers mode after every event the mirror applies. No polling and no clock: a waiter wakes only
 * when something was written.
 */
@Injectable()
export class RunWaits {
  private readonly waiters = new Set<Waiter>();

  constructor(@Inject(EMBEDDED_STORAGE) storage: EmbeddedStorage | null, @Optional() @Inject(AccountsMirror) mirror: AccountsMirror | null) {
    storage?.onCommitted((events) => this.check(events));
    // servers mode: the read model is this replica's mirror, moved by every event it follows (any replica's writes)
    if (!storage) mirror?.onFollowed(() => this.check());
  }

  /**
   * Wakes the waiters whose state was reached (also after writes that are not commits of the
   * log). `events`: what was committed; a waiter none of them concerns is not asked (its
   * `ready` reads the read model).
   */
  check(events?: readonly RecordedEvent[]): void {
    for (const w of [...this.waiters]) if ((!events || !w.wakesOn || events.some(w.wakesOn)) && w.ready()) w.done();
  }

  /**
   * Resolves true once `ready()` holds; false when `timeoutMs` passes first. Rejects with the
   * signal's reason when it aborts. `wakesOn`: only a commit holding such an event can make
   * `ready()` hold, so other commits do not ask it.
   */
  until(ready: () => boolean, signal?: AbortSignal, timeoutMs?: number, wakesOn?: (e: RecordedEvent) => boolean): Promise<boolean> {
    if (ready()) return Promise.resolve(true);
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<boolean>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = (fn: () => void) => {
        this.waiters.delete(w);
        signal?.removeEventListener('abort', onAbort);
        if (timer) clearTimeout(timer);
        fn();
      };
      const w: Waiter = { ready, wakesOn, done: () => finish(() => resolve(true)) };
      const onAbort = () => finish(() => reject(signal!.reason));
      signal?.addEventListener('abort', onAbort);
      if (timeoutMs !== undefined) timer = setTimeout(() => finish(() => resolve(false)), timeoutMs);
      this.waiters.add(w);
    });
  }
}
